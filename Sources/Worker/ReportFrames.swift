import Wire

/// A runner's reports encoded as frames, for the protocol version of its connection: on version 2, STEP events
/// are held until their attempt's RESULT and go with it as one RESULT_STEPS frame (a short job is one frame);
/// steps encoded before that (`encodeHeldSteps`, at a watchdog tick or before artifacts) go as STEP frames and
/// the result then follows alone. On version 1, every report is its own frame at once.
public struct ReportFrames: Sendable {
    /// Whole encoded frames, in order.
    public private(set) var bytes: [UInt8] = []
    /// Held STEP events (version 2 only), all of one attempt: `stepsOf`.
    private var steps: [StepReport] = []
    private var stepsOf: (job: String, attempt: UInt32)?
    private let holdsSteps: Bool
    /// Version 3 and later know the `lost` status; older coordinators hear `errored`.
    private let knowsLost: Bool

    public init(protocolVersion: UInt16) {
        holdsSteps = protocolVersion >= MessageType.resultSteps.introducedIn
        knowsLost = protocolVersion >= 3
    }

    /// A step finished: held for its result (version 2), or encoded as a STEP frame.
    public mutating func step(_ event: StepEvent) {
        guard holdsSteps else {
            Message.step(event).encodeFrame(into: &bytes)
            return
        }
        if let of = stepsOf, of.job != event.job || of.attempt != event.attempt { encodeHeldSteps() }
        if stepsOf == nil { stepsOf = (event.job, event.attempt) }
        steps.append(StepReport(event))
    }

    /// An attempt's result: with the held steps of that attempt as one RESULT_STEPS frame, or as a RESULT frame.
    public mutating func result(_ result: JobResult) {
        var result = result
        if result.status == .lost, !knowsLost { result.status = .errored }
        guard let of = stepsOf, of.job == result.job, of.attempt == result.attempt else {
            encodeHeldSteps()
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

    /// Any other message, after the steps held so far.
    public mutating func append(_ message: Message) {
        encodeHeldSteps()
        message.encodeFrame(into: &bytes)
    }

    /// Encodes the held steps as STEP frames (they are sent before whatever comes next).
    public mutating func encodeHeldSteps() {
        guard let of = stepsOf else { return }
        for step in steps { Message.step(StepEvent(job: of.job, attempt: of.attempt, step)).encodeFrame(into: &bytes) }
        steps.removeAll(keepingCapacity: true)
        stepsOf = nil
    }

    /// Empties `bytes`, keeping its capacity.
    public mutating func removeBytes() { bytes.removeAll(keepingCapacity: true) }
}
