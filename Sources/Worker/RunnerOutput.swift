import Synchronization
import Wire

/// The frames of the job a runner runs, handed to the shared `Outbox` in one piece when the job ends: one lock of
/// the outbox per job instead of one per message (two pool threads and the loop contend for it, and a contended
/// `Mutex` sleeps in the kernel). The session's watchdog hands over what a longer job has emitted so far at each
/// tick, so the STEP events of long jobs still stream as they happen (at most one tick late).
///
/// On a protocol version 2 connection, STEP events are held until the job's RESULT and sent with it as one
/// RESULT_STEPS frame: a short job is one frame instead of one per step plus one. Steps handed over before the
/// result (at a tick, or before the job's artifacts) go as STEP frames, and the result then follows alone.
final class RunnerOutput: JobReports {
    private struct Pending {
        var bytes: [UInt8] = []
        /// STEP events not yet encoded (version 2 only), all of one attempt: `stepsOf`.
        var steps: [StepReport] = []
        var stepsOf: (job: String, attempt: UInt32)?

        /// Encodes the held steps as STEP frames.
        mutating func encodeSteps() {
            guard let of = stepsOf else { return }
            for step in steps { Message.step(StepEvent(job: of.job, attempt: of.attempt, step)).encodeFrame(into: &bytes) }
            steps.removeAll(keepingCapacity: true)
            stepsOf = nil
        }

        /// Encodes `result` with the held steps of its attempt as one RESULT_STEPS frame (a RESULT when none).
        mutating func encode(_ result: JobResult) {
            guard let of = stepsOf, of.job == result.job, of.attempt == result.attempt else {
                encodeSteps()
                Message.result(result).encodeFrame(into: &bytes)
                return
            }
            do {
                let report = Message.resultSteps(AttemptReport(result: result, steps: steps))
                report.encodeFrame(into: &bytes)
            }
            steps.removeAll(keepingCapacity: true)  // the report is gone: no copy
            stepsOf = nil
        }

        mutating func hold(_ step: StepEvent) {
            if let of = stepsOf, of.job != step.job || of.attempt != step.attempt { encodeSteps() }
            if stepsOf == nil { stepsOf = (step.job, step.attempt) }
            steps.append(StepReport(step))
        }
    }

    private let pending = Mutex(Pending())
    private let outbox: Outbox
    /// The connection speaks protocol version 2 or later (RESULT_STEPS).
    private let holdsSteps: Bool

    init(outbox: Outbox, protocolVersion: UInt16) {
        self.outbox = outbox
        holdsSteps = protocolVersion >= MessageType.resultSteps.introducedIn
    }

    /// Holds a STEP event for its RESULT (version 2), or encodes it into this runner's buffer.
    func step(_ event: StepEvent) {
        pending.withLock { p in
            if holdsSteps { p.hold(event) } else { Message.step(event).encodeFrame(into: &p.bytes) }
        }
    }

    /// Encodes a RESULT (with the held steps of its attempt, version 2) into this runner's buffer.
    func result(_ result: JobResult) {
        pending.withLock { p in
            if holdsSteps { p.encode(result) } else { Message.result(result).encodeFrame(into: &p.bytes) }
        }
    }

    /// Encodes any other message, after the steps held so far.
    func emit(_ message: Message) {
        pending.withLock { p in
            p.encodeSteps()
            message.encodeFrame(into: &p.bytes)
        }
    }

    /// Hands everything emitted so far to the outbox (in order: under this runner's lock), held steps as STEP frames.
    func flush() {
        pending.withLock { p in
            p.encodeSteps()
            guard !p.bytes.isEmpty else { return }
            outbox.append(encoded: p.bytes)
            p.bytes.removeAll(keepingCapacity: true)
        }
    }
}
