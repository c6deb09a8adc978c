import Synchronization
import Wire

/// The frames of the job a runner runs (`ReportFrames`), handed to the shared `Outbox` in one piece when the job
/// ends: one lock of the outbox per job instead of one per message (two pool threads and the loop contend for it,
/// and a contended `Mutex` sleeps in the kernel). The session's watchdog hands over what a longer job has
/// reported so far at each tick, so the STEP events of long jobs still stream as they happen (at most one tick
/// late), while a short job on a version 2 connection is one RESULT_STEPS frame.
final class RunnerOutput: JobReports {
    private let frames: Mutex<ReportFrames>
    private let outbox: Outbox

    init(outbox: Outbox, protocolVersion: UInt16) {
        self.outbox = outbox
        frames = Mutex(ReportFrames(protocolVersion: protocolVersion))
    }

    func step(_ event: StepEvent) { frames.withLock { $0.step(event) } }

    func result(_ result: JobResult) { frames.withLock { $0.result(result) } }

    /// Hands everything reported so far to the outbox (in order: under this runner's lock), held steps as STEP frames.
    func flush() {
        frames.withLock { f in
            f.encodeHeldSteps()
            guard !f.bytes.isEmpty else { return }
            outbox.append(encoded: f.bytes)
            f.removeBytes()
        }
    }
}
