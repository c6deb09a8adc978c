import Journal
import Synchronization

/// Carries the journal writer's first failed commit to whoever can act on it (the running coordinator), even when
/// the failure comes before that party exists: `attach` then acts at once.
final class JournalFailureRelay: Sendable {
    private struct State {
        var failure: JournalError?
        var action: (@Sendable (JournalError) -> Void)?
    }

    private let state = Mutex(State())

    /// The first failure, if any.
    var failure: JournalError? { state.withLock { $0.failure } }

    /// The writer's `onFailure`.
    func fire(_ error: JournalError) {
        let action = state.withLock { s -> (@Sendable (JournalError) -> Void)? in
            guard s.failure == nil else { return nil }
            s.failure = error
            return s.action
        }
        action?(error)
    }

    /// Forgets the action (and what it holds): the run it stopped is over.
    func detach() { state.withLock { $0.action = nil } }

    /// What to do on failure (once).
    func attach(_ action: @escaping @Sendable (JournalError) -> Void) {
        let failure = state.withLock { s -> JournalError? in
            s.action = action
            return s.failure
        }
        if let failure { action(failure) }
    }
}
