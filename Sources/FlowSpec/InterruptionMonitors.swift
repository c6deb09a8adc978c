import Synchronization

/// Something that can interrupt a flow (a "rate this app" prompt, a permission alert): how to see it and how
/// to dismiss it. The headless, sleep-free version of an XCUITest interruption monitor.
public struct Interruption: Sendable {
    /// A name for records and reports, e.g. `rate-app-prompt`.
    public var name: String
    /// The element identifier of the interrupting UI; a wait for this very element does not handle it.
    public var element: String
    /// True when the interruption is on screen now.
    public var isPresent: @Sendable () async -> Bool
    /// Dismisses it (e.g. taps its close button).
    public var handle: @Sendable () async throws -> Void

    public init(
        name: String, element: String, isPresent: @escaping @Sendable () async -> Bool,
        handle: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.element = element
        self.isPresent = isPresent
        self.handle = handle
    }
}

/// The interruptions a registry (or a test) has registered, checked in registration order while a wait runs.
public final class InterruptionMonitors: Sendable {
    private let monitors = Mutex<[Interruption]>([])

    public init() {}

    /// Registers an interruption; later registrations are checked after earlier ones.
    public func register(_ interruption: Interruption) {
        monitors.withLock { $0.append(interruption) }
    }

    /// Removes every interruption with `name`.
    public func remove(named name: String) {
        monitors.withLock { $0.removeAll { $0.name == name } }
    }

    public var registered: [String] { monitors.withLock { $0.map(\.name) } }

    /// Handles the first registered interruption that is present and is not `awaitedElement`.
    /// - Returns: the handled interruption's name, or nil when none was present.
    public func handleFirstPresent(excluding awaitedElement: String?) async throws -> String? {
        let candidates = monitors.withLock { $0 }
        for interruption in candidates where interruption.element != awaitedElement {
            if await interruption.isPresent() {
                try await interruption.handle()
                return interruption.name
            }
        }
        return nil
    }
}
