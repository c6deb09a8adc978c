import FlowVocabulary
import MatrixPlan
import Wire

/// Peer admission: the authenticated connections of a run, each with the worker id the scheduler knows it by, its
/// name, protocol version and the scenarios it has had; the worker process instance each stands for (a label no
/// other connection may claim); the instances of lost connections (newest 256), so a process that reconnects is
/// known; and the peers expelled for what they sent, whose jobs are not blamed for their loss. Pure.
struct PeerTable {
    struct Peer {
        var worker: WorkerID
        var name: String
        /// The protocol version agreed in the handshake: a message type of a later version is refused.
        var version: UInt16
        var sentScenarios: Set<Bytes32> = []
        /// The worker process's instance (its commitment, `WorkerInstance`), if it announced one no other connection
        /// holds.
        var instance: String?
    }

    /// A closed peer: its worker, and what its close means for the jobs it held.
    struct Departure {
        var worker: WorkerID
        /// The engine closed it for what it sent: its jobs were not at fault.
        var faultless: Bool
        /// The same process is connected again already (its new connection was heard first): not a crash.
        var reconnected: Bool
    }

    private var peers: [UInt64: Peer] = [:]
    private var peerOfWorker: [WorkerID: UInt64] = [:]
    private var nextWorker: UInt64 = 1
    /// Worker process instances (the commitment of their `flowmatrix.instance` label, `WorkerInstance`) whose
    /// connection was lost, newest 256.
    private var lostInstances = BoundedMemory<String, WorkerID>(limit: 256)
    /// Peers closed for what they sent, until their close is heard.
    private var expelled = Set<UInt64>()

    subscript(peer: UInt64) -> Peer? { peers[peer] }
    var count: Int { peers.count }
    var all: Dictionary<UInt64, Peer>.Values { peers.values }
    var sortedIDs: [UInt64] { peers.keys.sorted() }
    /// The peer that stands for `worker`, if it is still connected.
    func peer(of worker: WorkerID) -> UInt64? { peerOfWorker[worker] }

    /// Admits `peer` (not admitted yet) as a new worker, named and versioned as its HELLO says.
    mutating func admit(_ peer: UInt64, hello: Hello) -> WorkerID {
        let worker = WorkerID(nextWorker)
        nextWorker += 1
        peers[peer] = Peer(worker: worker, name: hello.name, version: hello.version)
        peerOfWorker[worker] = peer
        return worker
    }

    /// A HELLO's labels, `key=value` or a bare `key` (value ""). The handshake refuses empty keys, and nothing here
    /// assumes it did.
    static func labels(of hello: Hello) -> [String: String] {
        var labels: [String: String] = [:]
        for label in hello.labels {
            guard let equals = label.firstIndex(of: "=") else { labels[label] = ""; continue }
            labels[String(label[..<equals])] = String(label[label.index(after: equals)...])
        }
        return labels
    }

    /// What the coordinator and a worker that can run none of the run's jobs are told: the registries (and job
    /// labels) the run needs, and what the worker offers. What the peer chose is escaped, as `show` does.
    static func noJobsNotice(hello: Hello, needed: [String], requiredLabels: [String: String]) -> String {
        let needs = needed.joined(separator: ", ")
        let offers = hello.registries.sorted().map(\.terminalSafe).joined(separator: ", ")
        let jobLabels = requiredLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        let ownLabels = hello.labels.filter { !$0.hasPrefix("flowmatrix.") }.map(\.terminalSafe).joined(separator: ", ")
        return "this run needs registr\(needed.count == 1 ? "y" : "ies") [\(needs)]"
            + (requiredLabels.isEmpty ? "" : " with labels \(jobLabels)")
            + "; worker \(hello.name.terminalSafe) offers [\(offers)] and labels [\(ownLabels)]: it gets no jobs from this run"
            + (needed.contains(CommandTemplate.registry) && !hello.registries.contains(CommandTemplate.registry)
                ? " (a worker runs command jobs only when started with --allow-commands)" : "")
    }

    /// The worker process `peer` stands for, from its HELLO labels (`WorkerInstance`): its commitment becomes its
    /// instance unless another connection announced it already (a commitment is nobody's to copy), and a key that
    /// opens the commitment of a lost connection, or of one still open here, makes this the same process.
    /// - Returns: the worker of a lost connection whose process is back (its loss was a broken connection).
    mutating func claimInstance(_ labels: [String: String], peer: UInt64) -> WorkerID? {
        guard let commitment = labels[WorkerInstance.label], !commitment.isEmpty, !lostInstances.contains(commitment),
              !peers.contains(where: { $0.key != peer && $0.value.instance == commitment })
        else { return nil }
        peers[peer]?.instance = commitment
        guard let key = labels[WorkerInstance.keyLabel], let previous = WorkerInstance.commitment(ofKey: key) else {
            return nil
        }
        if let lost = lostInstances.forget(previous) { return lost }
        // Its previous connection is still open here (this one was heard before that one's close): when it closes,
        // it is this process's broken connection, not a crash (`remove(_:)`).
        for (id, other) in peers where id != peer && other.instance == previous { peers[id]?.instance = commitment }
        return nil
    }

    /// Whether `peer` still needs the body of scenario `hash`; it counts as sent from now on.
    mutating func needsScenario(_ hash: Bytes32, peer: UInt64) -> Bool {
        guard peers[peer]?.sentScenarios.contains(hash) == false else { return false }
        peers[peer]?.sentScenarios.insert(hash)
        return true
    }

    /// `peer` is being closed for what it sent: when its close is heard, its jobs are not blamed. False when it is
    /// not connected.
    @discardableResult
    mutating func expel(_ peer: UInt64) -> Bool {
        guard peers[peer] != nil else { return false }
        expelled.insert(peer)
        return true
    }

    /// `peer`'s connection closed: it is forgotten, and its instance remembered as lost unless the same process is
    /// connected again already. Nil when it was not connected.
    mutating func remove(_ peer: UInt64) -> Departure? {
        guard let state = peers.removeValue(forKey: peer) else { return nil }
        peerOfWorker[state.worker] = nil
        var departure = Departure(worker: state.worker, faultless: expelled.remove(peer) != nil, reconnected: false)
        if let instance = state.instance {
            if peers.values.contains(where: { $0.instance == instance }) {
                departure.reconnected = true
            } else {
                lostInstances.remember(instance, state.worker)
            }
        }
        return departure
    }
}
