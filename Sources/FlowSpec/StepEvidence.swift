/// A piece of evidence about one step: what the screen held, what it looked like.
///
/// The content can be deferred: a registry captures the (cheap, immutable) state at step time and renders the
/// bytes only if the attempt's evidence is kept — rendering a PNG for every step of every passing job would cost
/// far more than running the job.
public struct StepAttachment: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        /// Rendered on demand from state captured at step time; must not read live state.
        case deferred(@Sendable () -> [UInt8])
    }

    /// The name within its step, e.g. `surface.json`, `wireframe.png`.
    public var name: String
    /// e.g. `application/json`, `image/png`, `text/plain`.
    public var mediaType: String
    public var content: Content

    public init(name: String, mediaType: String, bytes: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        content = .bytes(bytes)
    }

    public init(name: String, mediaType: String, render: @escaping @Sendable () -> [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        content = .deferred(render)
    }

    /// The bytes (rendering deferred content now).
    public var bytes: [UInt8] {
        switch content {
        case .bytes(let b): b
        case .deferred(let render): render()
        }
    }
}

/// A registry that can record evidence after each step it ran (passed or failed).
///
/// The worker asks after every step when the matrix keeps artifacts, renders and compresses what it gets only for
/// attempts the keep policy keeps, on the job's task, and streams it to the coordinator with the step's index.
/// Implementation requirements: describe the state *after* the step (capture it now; defer only the rendering);
/// be deterministic for the same state (identical screens deduplicate in the store); keep the capture cheap (it
/// runs once per step of every job).
public protocol StepEvidenceProviding: Sendable {
    func evidence(afterStep index: Int, step: Step) async -> [StepAttachment]
}
