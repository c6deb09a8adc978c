import Foundation
import Journal
import Testing

/// Two network namespaces joined by a veth pair: the coordinator in one, a worker in the other, talking over a real
/// (non-loopback) link that the test can cut. Needs root and iproute2's `ip` (CI runs as root); elsewhere the tests
/// are disabled with ``NetworkNamespaces/unavailable`` as the reason.
final class NetworkNamespaces: Sendable {
    static let ip = "/usr/sbin/ip"

    /// Why namespaces cannot be made here, or nil when they can.
    static func unavailable() async -> String? {
        guard geteuid() == 0 else { return "network namespace tests need root (CI runs them as root)" }
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            return "network namespace tests need \(ip) (Debian package iproute2)"
        }
        let probe = "fmprobe\(getpid())"
        guard (try? await run(ip, ["netns", "add", probe])) != nil else {
            return "this machine does not allow creating network namespaces (ip netns add failed)"
        }
        _ = try? await run(ip, ["netns", "del", probe])
        return nil
    }

    let coordinator: String
    let worker: String
    let coordinatorLink: String
    let workerLink: String
    let coordinatorAddress: String
    let workerAddress: String

    /// Creates both namespaces, the veth pair between them and addresses in a /24 of its own.
    init() async throws {
        let tag = String(UInt32.random(in: 0..<0xFFFFFF), radix: 16)
        coordinator = "fmc\(tag)"
        worker = "fmw\(tag)"
        coordinatorLink = "fvc\(tag)"
        workerLink = "fvw\(tag)"
        let subnet = "10.\(Int.random(in: 64...127)).\(Int.random(in: 0...255))"
        coordinatorAddress = "\(subnet).1"
        workerAddress = "\(subnet).2"
        try await Self.run(Self.ip, ["netns", "add", coordinator])
        try await Self.run(Self.ip, ["netns", "add", worker])
        try await Self.run(Self.ip, ["link", "add", coordinatorLink, "netns", coordinator, "type", "veth", "peer", "name", workerLink,
                               "netns", worker])
        for (ns, link, address) in [(coordinator, coordinatorLink, "\(subnet).1/24"), (worker, workerLink, "\(subnet).2/24")] {
            try await Self.run(Self.ip, ["-n", ns, "addr", "add", address, "dev", link])
            try await Self.run(Self.ip, ["-n", ns, "link", "set", link, "up"])
            try await Self.run(Self.ip, ["-n", ns, "link", "set", "lo", "up"])
        }
    }

    /// Drops every packet both ways, as a pulled cable would: no RST, no FIN, no ICMP. A blackhole route to the other
    /// side in each namespace, more specific than the link's /24 (the kernel's netem qdisc is not always there).
    func partition() async throws {
        try await Self.run(Self.ip, ["-n", coordinator, "route", "add", "blackhole", "\(workerAddress)/32"])
        try await Self.run(Self.ip, ["-n", worker, "route", "add", "blackhole", "\(coordinatorAddress)/32"])
    }

    func heal() async throws {
        try await Self.run(Self.ip, ["-n", coordinator, "route", "del", "blackhole", "\(workerAddress)/32"])
        try await Self.run(Self.ip, ["-n", worker, "route", "del", "blackhole", "\(coordinatorAddress)/32"])
    }

    /// Deletes both namespaces (the veth pair goes with them).
    func cleanUp() async {
        for ns in [coordinator, worker] { _ = try? await Self.run(Self.ip, ["netns", "del", ns]) }
    }

    @discardableResult
    static func run(_ tool: String, _ args: [String]) async throws -> String {
        let (status, text) = try await runProgram(tool, args)
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(args.joined(separator: " ")): \(text)"])
        }
        return text
    }
}

@Suite("Network faults in network namespaces", .serialized, .timeLimit(.minutes(3)),
       .enabled("needs root, iproute2's ip and permission to create network namespaces") {
           await NetworkNamespaces.unavailable() == nil
       })
struct NetworkNamespaceTests {
    @Test("a partition (every packet dropped, no reset): the worker's jobs are re-queued, it rejoins after healing, every job passes")
    func partitionAndHeal() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let net = try await NetworkNamespaces()
        // The namespaces are deleted however the test ends (a `defer` cannot await).
        do {
            try await Self.partitionAndHeal(ws, net)
        } catch {
            await net.cleanUp()
            throw error
        }
        await net.cleanUp()
    }

    static func partitionAndHeal(_ ws: E2EWorkspace, _ net: NetworkNamespaces) async throws {
        // 24 jobs of 1 s on 2 slots: 12 s of work, so the partition lands while the worker holds jobs even when a
        // loaded machine makes the journal lag behind.
        try ws.scenario("slow", ["busy:1000"])
        let values = (0..<24).map { "\"\($0)\"" }.joined(separator: ", ")
        let matrix = #"{"name": "netns", "corpus": "corpus", "registry": "test", "policy": {"timeout": 30}, "axes": {"n": [\#(values)]}}"#
        try Data(matrix.utf8).write(to: ws.root.appendingPathComponent("m.json"))
        try Data("netns-test-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        chmod(ws.root.appendingPathComponent("token").path, 0o600)
        let address = "\(net.coordinatorAddress):7700"
        let binary = E2EWorkspace.binary.path
        let serve = try ws.start(tool: NetworkNamespaces.ip, ["netns", "exec", net.coordinator, binary, "serve", "m.json",
                                                             "--listen", address, "--token-file", "token"], label: "serve")
        let worker = try ws.start(tool: NetworkNamespaces.ip, ["netns", "exec", net.worker, E2EWorkspace.testWorker, "--connect", address,
                                                              "--token-file", "token", "--registry", "test", "--slots", "2",
                                                              "--exit-after-drain", "--give-up-after", "60"], label: "worker")
        try await waitUntil("2 jobs finished before the partition", timeout: .seconds(60)) { ws.finishedJobs() >= 2 }
        try await net.partition()
        // The coordinator notices the silence (3 missed heartbeats of 2 s) and re-queues what the worker held.
        do {
            try await waitUntil("the coordinator records a lost attempt", timeout: .seconds(40)) { try lostAttempts(ws) > 0 }
        } catch {
            let state = "serve running: \(serve.isRunning), worker running: \(worker.isRunning)"
            Issue.record("\(state)\nserve: \(ws.output("serve"))\nworker: \(ws.output("worker"))")
            throw error
        }
        #expect(serve.isRunning && worker.isRunning)
        try await net.heal()
        try await ws.waitForExit(serve, timeout: .seconds(90))
        try await ws.waitForExit(worker, timeout: .seconds(30))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        #expect(worker.terminationStatus == 0, "\(ws.output("worker"))")
        let runID = try #require(try ws.latestRunID())
        let outcomes = try ws.outcomes(run: runID)
        #expect(outcomes.count == 24)
        #expect(outcomes.values.allSatisfy { $0 == .passed }, "\(outcomes.values.filter { $0 != .passed })")
        // The same worker process came back: attempts after the loss ran on it, by name.
        let reader = try JournalReader(path: ws.journalPath)
        let workers = try reader.attemptTotals(run: runID).workers
        #expect(workers.count == 1, "\(workers)")
    }

    /// Attempts the coordinator ended because their worker was lost.
    private static func lostAttempts(_ ws: E2EWorkspace) throws -> Int {
        guard let runID = try ws.latestRunID() else { return 0 }
        let reader = try JournalReader(path: ws.journalPath)
        var lost = 0
        for row in try reader.jobs(run: runID) {
            lost += try reader.attempts(run: runID, job: row.job.jobID)
                .filter { ($0.result?.message ?? "").hasPrefix("lost: ") || $0.result?.message?.contains("worker was lost") == true }
                .count
        }
        return lost
    }
}
