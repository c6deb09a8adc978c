import FlowVocabulary

/// When to tell the person running the coordinator that jobs wait for a worker none connected can serve: once they
/// have waited 10 s, and again every 60 s while they still wait.
struct UnservedNotice {
    /// Since when jobs have waited for a capable worker (nil: they have one, or none waits).
    private var since: Duration?
    private var saidAt: Duration?

    /// The sentence to say now about `needs` (nil: nothing to say yet, or again); `workerNames` is asked only then.
    mutating func sentence(
        for needs: [(registry: String, labels: [String: String], jobs: Int)], workerNames: () -> [String], now t: Duration
    ) -> String? {
        guard !needs.isEmpty else { since = nil; saidAt = nil; return nil }
        let since = self.since ?? t
        self.since = since
        guard t - since >= .seconds(10), saidAt.map({ t - $0 >= .seconds(60) }) ?? true else { return nil }
        saidAt = t
        let what = needs.map { need in
            "\(need.jobs) job(s) need registry \(need.registry)"
                + (need.labels.isEmpty ? "" : " with labels " + need.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }.joined(separator: "; ")
        let workerNames = workerNames()
        let connected = workerNames.isEmpty ? "no worker is connected" : "connected: \(workerNames.map(\.terminalSafe).joined(separator: ", "))"
        return "\(what), and no connected worker offers that for \((t - since).secondsText) (\(connected))"
    }
}
