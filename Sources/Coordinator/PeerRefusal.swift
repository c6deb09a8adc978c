import FlowVocabulary
import Wire

/// What the engine answers a peer it refuses or lets go: an ERROR naming the rule it broke, then the close (the
/// engine then expels the peer, so its jobs are not blamed); the close alone for BYE or an ERROR from the worker.
enum PeerRefusal {
    typealias Action = CoordinatorEngine.Action

    /// An ERROR [invalid-value] and the close, for a peer that broke a bound.
    static func invalid(_ peer: UInt64, reason: String) -> [Action] {
        [.send(peer: peer, [.error(ErrorMessage(WireError(.invalidValue, reason)))]), .close(peer: peer, reason: reason)]
    }

    /// An ERROR and the close for a report about an attempt that is not assigned to `peer`.
    static func notAssigned(_ type: MessageType, _ job: String, _ attempt: UInt32, from peer: UInt64) -> [Action] {
        invalid(peer, reason:
            "\(type) for job \(job.debugDescription.prefix(80)) attempt \(attempt), which is not assigned to this worker")
    }

    /// An ERROR and the close for a message that `peer`'s protocol version does not have: a type of a later version
    /// [unknown-type], or a `status` of a later version [invalid-value]; nil when the version has it.
    static func newer(_ message: Message, from peer: UInt64, version: UInt16) -> [Action]? {
        let type = message.type
        if type.introducedIn > version {
            return [.send(peer: peer, [.error(ErrorMessage(WireError(.unknownType,
                "\(type) is not part of protocol version \(version)")))]),
             .close(peer: peer, reason: "\(type) from a version \(version) worker")]
        }
        guard message.introducedIn > version else { return nil }
        let text = "status lost is not part of protocol version \(version) (a version \(version) worker reports errored)"
        return [.send(peer: peer, [.error(ErrorMessage(WireError(.invalidValue, text)))]),
                .close(peer: peer, reason: "\(type) with status lost from a version \(version) worker")]
    }

    /// The close for BYE or an ERROR from the worker; an ERROR and the close for a message a worker never sends.
    static func closing(_ message: Message, from peer: UInt64) -> [Action] {
        switch message {
        case .bye: [.close(peer: peer, reason: "worker said BYE")]
        case .error(let e): [.close(peer: peer, reason: "worker reported error \(e.code): \(e.message)")]
        default: unexpected(message.type, from: peer)
        }
    }

    /// An ERROR and the close for a message type a worker never sends.
    static func unexpected(_ type: MessageType, from peer: UInt64) -> [Action] {
        [.send(peer: peer, [.error(ErrorMessage(WireError(.unexpectedMessage,
            "a worker may not send \(type) to the coordinator")))]),
         .close(peer: peer, reason: "unexpected \(type) from worker")]
    }

    /// The most steps one attempt may report: its scenario's `declared` steps and
    /// ``CoordinatorEngine/maximumExtraStepsPerAttempt`` more (docs/PROTOCOL.md, "Bounds").
    static func stepBound(declared: Int) -> Int { declared + CoordinatorEngine.maximumExtraStepsPerAttempt }

    /// An ERROR and the close for more steps than ``stepBound(declared:)`` for one attempt of job `job` (`declared`
    /// steps in its scenario).
    static func tooManySteps(job: String, declared: Int, from peer: UInt64) -> [Action] {
        invalid(peer, reason: "more than \(stepBound(declared: declared)) steps for one attempt of job \(job.debugDescription.prefix(80)) "
            + "(its \(declared) declared steps and \(CoordinatorEngine.maximumExtraStepsPerAttempt) more)")
    }
}
