/// A piece of evidence about one step: what the screen held, what it looked like.
public struct StepAttachment: Sendable, Hashable {
    /// The name within its step, e.g. `surface.json`, `wireframe.png`.
    public var name: String
    /// e.g. `application/json`, `image/png`, `text/plain`.
    public var mediaType: String
    public var bytes: [UInt8]

    public init(name: String, mediaType: String, bytes: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        self.bytes = bytes
    }
}

/// A registry that can record evidence after each step it ran (passed or failed).
///
/// The worker asks after every step when the matrix keeps artifacts, compresses what it gets on the job's task,
/// and streams it to the coordinator with the step's index. Implementation requirements: describe the state
/// *after* the step; be deterministic for the same state (identical screens deduplicate in the store); keep it
/// fast (it runs once per step).
public protocol StepEvidenceProviding: Sendable {
    func evidence(afterStep index: Int, step: Step) async -> [StepAttachment]
}
