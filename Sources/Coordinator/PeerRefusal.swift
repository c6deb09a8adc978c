import FlowVocabulary
import Wire

/// What the engine refuses from an authenticated peer (an ERROR, then the close; the peer is then expelled and its
/// jobs are not blamed), the bound on steps per attempt, and the worker instances a connection may claim.
extension CoordinatorEngine {
    /// An ERROR and the close for a report about an attempt that is not assigned to `peer`.
    func refusal(_ type: MessageType, _ job: String, _ attempt: UInt32, from peer: UInt64) -> [Action] {
        let text = "\(type) for job \(job.debugDescription.prefix(80)) attempt \(attempt), which is not assigned to this worker"
        return [.send(peer: peer, [.error(ErrorMessage(WireError(.invalidValue, text)))]), .close(peer: peer, reason: text)]
    }

    /// An ERROR and the close for a message that `peer`'s protocol version does not have: a type of a later version
    /// [unknown-type], or a `status` of a later version [invalid-value]; nil when the version has it.
    func refusal(ofNewer message: Message, from peer: UInt64, version: UInt16) -> [Action]? {
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
    func closing(_ message: Message, from peer: UInt64) -> [Action] {
        switch message {
        case .bye: [.close(peer: peer, reason: "worker said BYE")]
        case .error(let e): [.close(peer: peer, reason: "worker reported error \(e.code): \(e.message)")]
        default: refusal(ofUnexpected: message.type, from: peer)
        }
    }

    /// An ERROR and the close for a message type a worker never sends.
    func refusal(ofUnexpected type: MessageType, from peer: UInt64) -> [Action] {
        [.send(peer: peer, [.error(ErrorMessage(WireError(.unexpectedMessage,
            "a worker may not send \(type) to the coordinator")))]),
         .close(peer: peer, reason: "unexpected \(type) from worker")]
    }

    /// An ERROR and the close for more steps than job `index`'s attempt may have.
    func refusal(ofSteps index: Int, from peer: UInt64) -> [Action] {
        let text = "more than \(stepBound(index)) steps for one attempt of job \(definition.jobs[index].id.debugDescription.prefix(80)) "
            + "(its \(definition.jobs[index].stepKeys.count) declared steps and \(Self.maximumExtraStepsPerAttempt) more)"
        return [.send(peer: peer, [.error(ErrorMessage(WireError(.invalidValue, text)))]), .close(peer: peer, reason: text)]
    }

    /// The most steps one attempt of job `index` may report: its declared steps and ``maximumExtraStepsPerAttempt``.
    func stepBound(_ index: Int) -> Int { definition.jobs[index].stepKeys.count + Self.maximumExtraStepsPerAttempt }

    /// Counts `count` more steps of job `index`'s live attempt. - Returns: false past ``stepBound(_:)`` (nothing is
    /// counted; the caller refuses the peer).
    func takeSteps(_ count: Int, job index: Int) -> Bool {
        owners.takeSteps(count, job: index, bound: stepBound(index))
    }

    /// The worker process `peer` stands for, from its HELLO labels (`WorkerInstance`): its commitment becomes its
    /// instance unless another connection announced it already (a commitment is nobody's to copy), and a key that
    /// opens the commitment of a lost connection, or of one still open here, makes this the same process.
    /// - Returns: the scheduler's directives when a lost connection's process is back.
    func claimInstance(_ labels: [String: String], peer: UInt64) -> [SchedulerDirective] {
        guard let commitment = labels[WorkerInstance.label], !commitment.isEmpty, !lostInstances.contains(commitment),
              !peers.contains(where: { $0.key != peer && $0.value.instance == commitment })
        else { return [] }
        peers[peer]?.instance = commitment
        guard let key = labels[WorkerInstance.keyLabel], let previous = WorkerInstance.commitment(ofKey: key) else { return [] }
        if let lost = lostInstances.forget(previous) {
            return scheduler.onWorkerReturned(lost: lost, now: now())
        }
        // Its previous connection is still open here (this one was heard before that one's close): when it closes,
        // it is this process's broken connection, not a crash (``onPeerClosed(_:)``).
        for (id, other) in peers where id != peer && other.instance == previous { peers[id]?.instance = commitment }
        return []
    }
}
