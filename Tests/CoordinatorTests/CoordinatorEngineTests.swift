import Coordinator
import FlowCrypto
import FlowMatrixTestKit
import FlowSpec
import FlowVocabulary
import Foundation
import Journal
import Synchronization
import Testing
import Wire
import Worker

/// Runs a coordinator engine against in-process workers (a `JobExecutor` each), without sockets.
struct InMemoryFleet {
    let engine: EngineHarness
    let executor = JobExecutor(factories: [TestRegistry.factory, NoOpRegistry.factory])
    var scenarios: [Bytes32: Scenario] = [:]
    var queues: [UInt64: [JobAssignment]] = [:]

    init(engine: EngineHarness) { self.engine = engine }

    /// The protocol version each peer joined with: version 2 peers send a job's steps and result as RESULT_STEPS.
    var versions: [UInt64: UInt16] = [:]

    mutating func join(_ peer: UInt64, registries: [String] = ["test"], slots: UInt32 = 2, credit: UInt32 = 4,
                       version: UInt16 = 1) async {
        versions[peer] = version
        let hello = Hello(version: version, name: "worker-\(peer)", slots: slots, registries: registries, labels: [],
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
        var messages = collected.messages
        if versions[peer] ?? 1 >= 2, case .result(let result)? = messages.last {
            let steps = messages.compactMap { if case .step(let s) = $0 { StepReport(s) } else { nil } }
            messages = [.resultSteps(AttemptReport(result: result, steps: steps))]
        }
        take(engine.onMessages(peer, messages + [.credit(1)]))
        return true
    }
}

final class MessageBox: Sendable {
    private let box = Mutex<[Message]>([])
    var messages: [Message] { box.withLock { $0 } }
    func append(_ m: [Message]) { box.withLock { $0 += m } }
}

extension MessageBox {
    /// Journal records as an engine hands them over.
    final class Records: Sendable {
        private let box = Mutex<[JournalRecord]>([])
        var all: [JournalRecord] { box.withLock { $0 } }
        func append(_ r: [JournalRecord]) { box.withLock { $0 += r } }
    }
}

/// A journal in a temporary folder holding `definition`'s run as started and planned, as a coordinator's would.
struct PlannedJournal {
    let folder: URL
    let path: String
    let writer: JournalWriter

    init(_ definition: RunDefinition) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("journal.sqlite").path
        writer = try JournalWriter(path: path)
        try writer.submit([
            .runStarted(RunInfo(runID: definition.runID, matrixName: "m", matrixPath: "m.json", seed: 1, startedAt: Date())),
            .jobsPlanned(runID: definition.runID, jobs: definition.jobs.map {
                PlannedJob(jobID: $0.id, scenarioID: $0.scenarioID, scenarioTitle: $0.scenarioTitle,
                           configuration: "locale=en", configurationJSON: "{\"locale\":\"en\"}", registry: "test")
            }),
        ])
    }

    /// Closes the writer (if the test has not) and deletes the folder.
    func remove() {
        try? writer.close()
        try? FileManager.default.removeItem(at: folder)
    }
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
        let definition = makeDefinition([["pass", "pass"], ["pass", "fail"], ["flaky", "pass"], ["pass"]], retries: 1)
        let journal = try PlannedJournal(definition)
        defer { journal.remove() }
        let (path, writer) = (journal.path, journal.writer)
        var t = Duration.zero
        let engine = EngineHarness(definition: definition, journal: { try? writer.submit($0) }, now: { t })
        var finals: [String: [JobOutcome]] = [:]
        engine.onJobFinished = { finals[$0.id, default: []].append($0.outcome) }
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
        let engine = EngineHarness(definition: makeDefinition(Array(repeating: ["pass"], count: 6)),
                                       journal: { _ in }, now: { t })
        var count: [String: Int] = [:]
        engine.onJobFinished = { count[$0.id, default: 0] += 1 }
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

    @Test("RESULT_STEPS from a version 2 worker is journaled exactly as its STEPs and RESULT are")
    func resultSteps() async throws {
        let definition = makeDefinition([["pass", "pass"], ["pass", "fail"], ["flaky", "pass"], ["pass"]], retries: 1)
        func run(version: UInt16) async throws -> [String] {
            let journal = try PlannedJournal(definition)
            defer { journal.remove() }
            let (path, writer) = (journal.path, journal.writer)
            var t = Duration.zero
            let engine = EngineHarness(definition: definition, journal: { try? writer.submit($0) }, now: { t })
            var fleet = InMemoryFleet(engine: engine)
            await fleet.join(1, slots: 1, credit: 1, version: version)
            while !engine.isComplete, await fleet.runOne(on: 1) { t += .milliseconds(10) }
            #expect(engine.isComplete)
            try writer.flushSync()
            try writer.close()
            let reader = try JournalReader(path: path)
            var lines: [String] = []
            for job in definition.jobs {
                let attempts = try reader.attempts(run: definition.runID, job: job.id)
                for attempt in attempts {
                    let steps = try reader.steps(run: definition.runID, job: job.id, attempt: attempt.attempt)
                    lines.append("\(job.id)#\(attempt.attempt) \(attempt.result?.outcome.rawValue ?? "-") "
                                 + steps.map { "\($0.index):\($0.key):\($0.outcome.rawValue)" }.joined(separator: ","))
                }
                lines.append("\(job.id) \(try reader.jobs(run: definition.runID).first { $0.job.jobID == job.id }?.result?.outcome.rawValue ?? "-")")
            }
            return lines
        }
        let separate = try await run(version: 1)
        let folded = try await run(version: 2)
        #expect(folded == separate)
        #expect(separate.contains("job1#1 failed 0:tap:pass:passed,1:tap:fail:failed"))
        #expect(separate.contains("job2 flaky"))
    }

    @Test("a RESULT_STEPS delivered again (same batch, later batch) is superseded: one outcome, one result, steps once")
    func duplicateResultSteps() async throws {
        let definition = makeDefinition([["pass", "pass", "pass"], ["pass"]])
        let journal = try PlannedJournal(definition)
        defer { journal.remove() }
        let (path, writer) = (journal.path, journal.writer)
        let engine = EngineHarness(definition: definition, journal: { try? writer.submit($0) }, now: { .zero })
        var finals: [String: Int] = [:]
        engine.onJobFinished = { finals[$0.id, default: 0] += 1 }
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, slots: 1, credit: 2, version: 2)
        let report = AttemptReport(
            result: JobResult(job: "job0", attempt: 1, status: .passed, failure: nil, durationMicros: 30),
            steps: (0..<3).map { StepReport(index: UInt32($0), status: .passed, durationMicros: 10, message: "") })
        _ = engine.onMessages(1, [.resultSteps(report), .resultSteps(report)])
        _ = engine.onMessages(1, [.resultSteps(report)])
        #expect(finals == ["job0": 1])
        #expect(engine.progress.done == 1)
        #expect(engine.progress.supersededResults == 2)
        try writer.flushSync()
        try writer.close()
        let reader = try JournalReader(path: path)
        let row = try #require(try reader.jobs(run: definition.runID).first { $0.job.jobID == "job0" })
        #expect(row.result?.outcome == .passed)
        let attempts = try reader.attempts(run: definition.runID, job: "job0")
        #expect(attempts.map { $0.result?.outcome } == [.passed])
        #expect(try reader.steps(run: definition.runID, job: "job0", attempt: 1).map(\.index) == [0, 1, 2])
    }

    @Test("RESULT_STEPS from a version 1 worker is an unknown type: ERROR and close, nothing recorded")
    func resultStepsFromVersion1() async {
        let definition = makeDefinition([["pass"]])
        let records = MessageBox.Records()
        let engine = EngineHarness(definition: definition, journal: { records.append($0) }, now: { .zero })
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, slots: 1, credit: 1, version: 1)
        let report = AttemptReport(result: JobResult(job: "job0", attempt: 1, status: .passed, failure: nil, durationMicros: 5),
                                   steps: [StepReport(index: 0, status: .passed, durationMicros: 5, message: "")])
        let actions = engine.onMessages(1, [.resultSteps(report)])
        let errors = actions.compactMap { action -> ErrorMessage? in
            guard case .send(1, let messages) = action, case .error(let e)? = messages.first else { return nil }
            return e
        }
        #expect(errors.map(\.knownCode) == [.unknownType])
        #expect(actions.contains { if case .close(1, _) = $0 { true } else { false } })
        #expect(engine.progress.done == 0)
        #expect(!records.all.contains { if case .attemptCompleted = $0 { true } else { false } })
    }

    @Test("a worker that lacks the registry never receives the jobs")
    func registryMatching() async {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, registries: ["catalog"])
        #expect(fleet.queues[1] == nil)
        #expect(engine.unservableQueuedJobs == 1)
        await fleet.join(2, registries: ["test"])
        #expect(fleet.queues[2]?.count == 1)
    }
}
