import FlowVocabulary
import Foundation
import Journal
import Testing

/// Real processes on loopback: `flowmatrix run`, `serve` and `worker`, killed and resumed.
@Suite("Distributed runs end to end", .serialized, .timeLimit(.minutes(3)))
struct DistributedRunTests {
    @Test("a matrix runs to completion through 'flowmatrix run'; every job has exactly one final outcome")
    func embeddedRun() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("passes", ["pass", "pass", "pass"])
        try ws.scenario("fails", ["pass", "fail"])
        try ws.scenario("flaky", ["flaky"])
        let matrix = try ws.matrix(locales: ["en", "de", "ar"], retries: 1)
        let (status, output) = try await ws.run(["run", matrix, "--workers", "2"], label: "run")
        #expect(status == 1, "failures exit 1: \(output)")
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        let rows = try reader.jobs(run: runID)
        #expect(rows.count == 9)
        #expect(rows.allSatisfy { $0.state == .done })
        let byScenario = Dictionary(grouping: rows, by: \.job.scenarioID).mapValues { Set($0.compactMap { $0.result?.outcome }) }
        #expect(byScenario == ["passes": [.passed], "fails": [.failed], "flaky": [.flaky]])
        #expect(try reader.run(runID)?.status == .completed)
        #expect(output.contains("3 passed, 3 failed, 3 flaky"))
    }

    @Test("kill -9 of a worker mid-run: every job still completes once, on the other worker")
    func workerKilled() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // 8 jobs of ~2 s on a one-slot worker; the kill lands once the journal shows the victim running an attempt
        // (its start is journaled after 0.5 s), so it is mid-job even on a loaded machine.
        for i in 0..<4 { try ws.scenario("slow-\(i)", ["busy:2000", "pass"]) }
        let matrix = try ws.matrix(locales: ["en", "de"])
        let token = "e2e-token-0123456789abcdef"
        try Data(token.utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        let victim = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "1",
                                   "--name", "victim"], label: "victim")
        try await waitUntil("the victim runs an attempt", timeout: .seconds(60)) {
            // The journal may not have its schema yet: not yet, then.
            guard let runID = try? ws.latestRunID(), let reader = try? JournalReader(path: ws.journalPath),
                  let rows = try? reader.jobs(run: runID) else { return false }
            return rows.contains { row in
                (try? reader.attempts(run: runID, job: row.job.jobID))?.contains { $0.worker == "victim" && $0.result == nil } ?? false
            }
        }
        await ws.kill9(victim)
        let survivor = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "2",
                                     "--name", "survivor", "--exit-after-drain", "--give-up-after", "20"], label: "survivor")
        try await ws.waitForExit(serve, timeout: .seconds(90))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        let runID = try #require(try ws.latestRunID())
        let outcomes = try ws.outcomes(run: runID)
        #expect(outcomes.count == 8)
        #expect(outcomes.values.allSatisfy { $0 == .passed })
        let reader = try JournalReader(path: ws.journalPath)
        var lost = 0
        for jobID in outcomes.keys {
            let attempts = try reader.attempts(run: runID, job: jobID)
            #expect(attempts.filter { $0.result?.outcome == .passed && $0.result?.superseded == false }.count == 1)
            lost += attempts.filter { $0.worker == "victim" && $0.result?.outcome == .cancelled }.count
        }
        #expect(lost >= 1, "the victim had jobs in flight when it was killed")
        try await ws.waitForExit(survivor, timeout: .seconds(30))
    }

    @Test("kill -9 of the coordinator mid-run, then resume: outcomes match an uninterrupted run")
    func coordinatorKilledAndResumed() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for i in 0..<4 { try ws.scenario("slow-\(i)", ["busy:200", "pass"]) }
        try ws.scenario("fails", ["busy:100", "fail"])
        let matrix = try ws.matrix(locales: ["en", "de"])
        // The reference: the same matrix, uninterrupted, in its own store.
        let (refStatus, _) = try await ws.run(["run", matrix, "--workers", "2", "--store", "reference"], label: "reference")
        #expect(refStatus == 1)
        let refReader = try JournalReader(path: ws.root.appendingPathComponent("reference/journal.sqlite").path)
        let refRun = try #require(try refReader.latestRunID())
        var reference: [String: JobOutcome] = [:]
        for row in try refReader.jobs(run: refRun) { reference[row.job.jobID] = row.result?.outcome }

        try Data("resume-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve1")
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "1"],
                                  label: "worker")
        try await waitUntil("some jobs finish", timeout: .seconds(60)) { ws.finishedJobs() >= 2 }
        await ws.kill9(serve)
        let runID = try #require(try ws.latestRunID())
        let before = try ws.outcomes(run: runID)
        #expect(before.count < 10, "the coordinator was killed mid-run")
        // The worker stays up and reconnects on its own to the resumed coordinator on the same address.
        let resumed = try ws.start(["serve", "--resume", runID, "--listen", "127.0.0.1:\(port)", "--token-file", "token"],
                                   label: "serve2")
        try await ws.waitForExit(resumed, timeout: .seconds(90))
        #expect(resumed.terminationStatus == 1, "\(ws.output("serve2"))")
        let after = try ws.outcomes(run: runID)
        #expect(after == reference)
        for (job, outcome) in before { #expect(after[job] == outcome, "a job final before the crash stayed final") }
        #expect(worker.isRunning, "a fleet worker outlives its coordinators")
    }

    @Test("Ctrl-C once finishes in-flight jobs and leaves the rest not run; the run can be resumed to completion")
    func interruptOnceThenResume() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for i in 0..<8 { try ws.scenario("slow-\(i)", ["busy:150", "pass"]) }
        let matrix = try ws.matrix(locales: ["en", "de"])
        let run = try ws.start(["run", matrix, "--workers", "1", "--slots", "1"], label: "run")
        try await waitUntil("some jobs finish", timeout: .seconds(60)) { ws.finishedJobs() >= 2 }
        // Local workers run below the coordinator's priority, so they cannot starve its loop and journal writer.
        let coordinatorNice = try #require(ProcStat(pid: run.processIdentifier)?.nice)
        let workers = ProcStat.children(of: run.processIdentifier)
        #expect(!workers.isEmpty)
        #expect(workers.allSatisfy { $0.nice == min(19, coordinatorNice + 5) }, "\(workers)")
        kill(run.processIdentifier, SIGINT)
        try await ws.waitForExit(run, timeout: .seconds(60))
        #expect(run.terminationStatus == 130, "\(ws.output("run"))")
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        #expect(try reader.run(runID)?.status == .interrupted)
        let outcomes = try ws.outcomes(run: runID)
        #expect(outcomes.count == 16, "every job has a final outcome: passed or not run")
        #expect(outcomes.values.contains(.notRun))
        #expect(outcomes.values.allSatisfy { $0 == .passed || $0 == .notRun })
        // Not-run jobs are not final for a resume: they run now.
        let (status, output) = try await ws.run(["run", "--resume", runID, "--workers", "1"], label: "resume")
        #expect(status == 0, "\(output)")
        #expect(try ws.outcomes(run: runID).values.allSatisfy { $0 == .passed })
    }

    @Test("a worker with the wrong token is told so, retries, and exits 3 once --give-up-after runs out")
    func wrongToken() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix()
        try Data("the-right-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        try Data("a-wrong-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("wrong"))
        let (_, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        try await waitUntil("the coordinator listens", timeout: .seconds(30)) { ws.output("serve").contains("job(s)") }
        let (status, output) = try await ws.run(["worker", "--connect", "127.0.0.1:\(port)", "--token-file", "wrong",
                                                 "--give-up-after", "1"], label: "intruder", timeout: .seconds(30))
        #expect(status == 3)
        #expect(output.contains("token") && output.contains("Not final"), "\(output)")
    }

    @Test("a worker lacking the registry never receives its jobs, and both sides are told why at once")
    func registryMismatch() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(registry: "noop")
        try Data("registry-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        let wrong = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--registry", "test",
                                  "--name", "test-only"], label: "wrong")
        // Both sides are told at once why the test-only worker gets nothing.
        try await waitUntil("the coordinator says the test-only worker gets no jobs", timeout: .seconds(30)) {
            ws.output("serve").contains("worker test-only offers [test]")
        }
        try await waitUntil("the worker is told", timeout: .seconds(30)) {
            ws.output("wrong").contains("coordinator says: this run needs registry [noop]")
        }
        let right = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--registry", "noop",
                                  "--name", "noop-only", "--exit-after-drain"], label: "right")
        try await ws.waitForExit(serve, timeout: .seconds(60))
        #expect(serve.terminationStatus == 0)
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        for row in try reader.jobs(run: runID) {
            #expect(try reader.attempts(run: runID, job: row.job.jobID).allSatisfy { $0.worker == "noop-only" })
        }
        try await ws.waitForExit(right, timeout: .seconds(30))
        #expect(wrong.isRunning)
    }

    @Test("a hanging job times out; a crashing job is retried, then quarantined")
    func hangAndCrash() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("hangs", ["pass", "hang"])
        try ws.scenario("crashes", ["crash"])
        try ws.scenario("fine", ["pass"])
        let matrix = try ws.matrix(locales: ["en"], retries: 1, timeout: 1)
        let (status, output) = try await ws.run(["run", matrix, "--workers", "2"], label: "run")
        #expect(status == 1, "\(output)")
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        let rows = Dictionary(uniqueKeysWithValues: try reader.jobs(run: runID).map { ($0.job.scenarioID, $0) })
        #expect(rows["hangs"]?.result?.outcome == .timedOut)
        #expect(rows["hangs"]?.result?.failureStep == 1)
        #expect(rows["fine"]?.result?.outcome == .passed)
        let crash = try #require(rows["crashes"]?.result)
        #expect(crash.outcome == .quarantined)
        #expect(crash.failureMessage?.contains("workers in a row") == true)
        #expect(crash.attempts >= 3)
    }
}
