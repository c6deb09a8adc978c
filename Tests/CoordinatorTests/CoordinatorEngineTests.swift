import Coordinator
import FlowCrypto
import FlowMatrixTestKit
import FlowSpec
import Foundation
import Journal
import Synchronization
import Testing
import Wire
import Worker

/// Runs a coordinator engine against in-process workers (a `JobExecutor` each), without sockets.
struct InMemoryFleet {
    let engine: CoordinatorEngine
    let executor = JobExecutor(factories: [TestRegistry.factory, NoOpRegistry.factory])
    var scenarios: [Bytes32: Scenario] = [:]
    var queues: [UInt64: [JobAssignment]] = [:]

    init(engine: CoordinatorEngine) { self.engine = engine }

    mutating func join(_ peer: UInt64, registries: [String] = ["test"], slots: UInt32 = 2, credit: UInt32 = 4) async {
        let hello = Hello(version: 1, name: "worker-\(peer)", slots: slots, registries: registries, labels: [],
                          nonce: .zero, mac: .zero)
        take(engine.onPeerJoined(peer, hello: hello))
        take(engine.onMessages(peer, [.credit(credit)]))
    }

    mutating func take(_ actions: [CoordinatorEngine.Action]) {
        for case .send(let peer, let messages) in actions {
            for message in messages {
                switch message {
                case .scenario(let body):
                    scenarios[body.hash] = try? JSONDecoder().decode(Scenario.self, from: Data(body.bytes))
                case .assign(let jobs): queues[peer, default: []] += jobs
                default: break
                }
            }
        }
    }

    /// Runs one queued job on `peer` and feeds its messages (and a credit) back.
    mutating func runOne(on peer: UInt64) async -> Bool {
        guard var queue = queues[peer], !queue.isEmpty else { return false }
        let job = queue.removeFirst()
        queues[peer] = queue
        guard let scenario = scenarios[job.scenarioHash] else { Issue.record("scenario body never sent"); return false }
        let collected = MessageBox()
        await executor.run(job, scenario: scenario) { collected.append($0) }
        take(engine.onMessages(peer, collected.messages + [.credit(1)]))
        return true
    }
}

final class MessageBox: Sendable {
    private let box = Mutex<[Message]>([])
    var messages: [Message] { box.withLock { $0 } }
    func append(_ m: [Message]) { box.withLock { $0 += m } }
}

func makeDefinition(_ targets: [[String]], retries: Int = 0, runID: String = "test-run") -> RunDefinition {
    var bodies: [Bytes32: [UInt8]] = [:]
    var jobs: [RunJob] = []
    for (i, stepTargets) in targets.enumerated() {
        let scenario = Scenario(id: "s\(i)", title: "scenario \(i)",
                                steps: stepTargets.map { Step(verb: .tap, target: $0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = Array((try? encoder.encode(scenario)) ?? Data())
        let hash = Bytes32(SHA256.hash(body)) ?? .zero
        bodies[hash] = body
        jobs.append(RunJob(id: "job\(i)", scenarioID: scenario.id, scenarioTitle: scenario.title, scenarioHash: hash,
                           stepKeys: scenario.steps.map(\.key), registry: "test", requiredLabels: [:],
                           configuration: [ConfigurationPair("locale", "en")], seed: UInt64(i), expectedDuration: .zero))
    }
    return RunDefinition(runID: runID, jobs: jobs, scenarioBodies: bodies,
                         scheduler: SchedulerSettings(retries: retries, jobTimeout: .seconds(30)))
}

@Suite("Coordinator engine with in-process workers")
struct CoordinatorEngineTests {
    @Test("every job reaches exactly one final outcome, flaky is flaky, and the journal holds it all")
    func runToCompletion() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("journal.sqlite").path
        let writer = try JournalWriter(path: path)
        let definition = makeDefinition([["pass", "pass"], ["pass", "fail"], ["flaky", "pass"], ["pass"]], retries: 1)
        try writer.submit([.runStarted(RunInfo(runID: definition.runID, matrixName: "m", matrixPath: "m.json", seed: 1,
                                               startedAt: Date())),
                           .jobsPlanned(runID: definition.runID, jobs: definition.jobs.map {
                               PlannedJob(jobID: $0.id, scenarioID: $0.scenarioID, scenarioTitle: $0.scenarioTitle,
                                          configuration: "locale=en", configurationJSON: "{\"locale\":\"en\"}", registry: "test")
                           })])
        var t = Duration.zero
        let engine = CoordinatorEngine(definition: definition, journal: { try? writer.submit($0) }, now: { t })
        var finals: [String: [JobOutcome]] = [:]
        engine.onJobFinished = { job, outcome in finals[job.id, default: []].append(outcome) }
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1)
        await fleet.join(2)
        var rounds = 0
        while !engine.isComplete, rounds < 100 {
            rounds += 1
            t += .milliseconds(10)
            _ = await fleet.runOne(on: 1)
            _ = await fleet.runOne(on: 2)
        }
        #expect(engine.isComplete)
        #expect(finals == ["job0": [.passed], "job1": [.failed], "job2": [.flaky], "job3": [.passed]])
        try writer.flushSync()
        let reader = try JournalReader(path: path)
        let rows = try reader.jobs(run: definition.runID)
        #expect(rows.map { $0.result?.outcome } == [.passed, .failed, .flaky, .passed])
        #expect(rows[1].result?.failureStep == 1)
        #expect(rows[1].result?.attempts == 2)
        let attempts = try reader.attempts(run: definition.runID, job: "job2")
        #expect(attempts.map { $0.result?.outcome } == [.failed, .passed])
        #expect(Set(attempts.map(\.worker)).count == 2, "the retry ran on the other worker")
        let steps = try reader.steps(run: definition.runID, job: "job1", attempt: 1)
        #expect(steps.map(\.key) == ["tap:pass", "tap:fail"])
        try writer.close()
    }

    @Test("a worker that vanishes mid-job has its jobs finished elsewhere, counted once")
    func workerLost() async {
        var t = Duration.zero
        let engine = CoordinatorEngine(definition: makeDefinition(Array(repeating: ["pass"], count: 6)),
                                       journal: { _ in }, now: { t })
        var count: [String: Int] = [:]
        engine.onJobFinished = { job, _ in count[job.id, default: 0] += 1 }
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, credit: 3)
        await fleet.join(2, credit: 1)
        _ = await fleet.runOne(on: 1)
        fleet.take(engine.onPeerClosed(1))
        fleet.queues[1] = nil
        while !engine.isComplete {
            t += .milliseconds(1)
            guard await fleet.runOne(on: 2) else { break }
        }
        #expect(engine.isComplete)
        #expect(count.count == 6 && count.values.allSatisfy { $0 == 1 })
    }

    @Test("a worker that lacks the registry never receives the jobs")
    func registryMatching() async {
        let engine = CoordinatorEngine(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, registries: ["catalog"])
        #expect(fleet.queues[1] == nil)
        #expect(engine.unservableQueuedJobs == 1)
        await fleet.join(2, registries: ["test"])
        #expect(fleet.queues[2]?.count == 1)
    }
}
