import FlowVocabulary
import Foundation
import Isolation
import Journal
import MatrixPlan
import Reports
import RunControl
import Synchronization

/// `flowmatrix isolate <run>` and `run --isolate` (`--isolate-budget BUDGET`): run the few follow-up jobs that decide which value
/// combinations make a finished run's scenarios fail (docs/ISOLATE.md). The pure core is the Isolation module's
/// ``IsolationSession``; this shell reads the source run, runs each round of follow-ups as a new run through the run
/// API (the same path as `run`), and writes `isolation.json` and the reports.
enum IsolateCommand {
    static let spec = CommandSpec(
        name: "isolate",
        overview: "Run the few follow-up jobs that confirm which value combinations make a run's failures.",
        forms: ["<run-id>"],
        arguments: [("<run-id>", "A finished run (or 'last') whose failures to isolate.")],
        options: [
            CommandOption("--budget", value: .text("<n>|<p>%"),
                          help: "Follow-up jobs at most: a count, or a share of the source run's jobs.", default: .value("20%")),
            CommandOption("--workers", value: .integer("<n>", 1...256), help: "Local worker processes.",
                          default: .described("the core count")),
            CommandOption("--slots", value: .integer("<n>", 1...256), help: "Jobs each local worker runs at once.",
                          default: .described("2")),
            CommandOption("--worker-executable", value: .text("<p>"),
                          help: "Start the local workers from this worker program, as 'run' does."),
            CommandOption("--listen", value: .text("<host:port>"),
                          help: "No local workers: each round listens here for workers on other machines, as 'serve' does."),
            CommandOption("--token-file", value: .text("<file>"),
                          help: "With --listen: the token workers authenticate with (required off loopback)."),
            .store("The store of the source run."),
            CommandOption("--seed", value: .text("<n>"),
                          help: "Seed of the follow-ups: their generation's tie-breaks and their runs' seeds.",
                          default: .described("the source run's seed")),
            CommandOption("--quiet", help: "No progress lines."),
            .maxJobs("The job limit of the follow-up plans (finding MX025)."),
        ],
        discussion: """
            Each round is a new run of the source's matrix with only the follow-up jobs (its settings name the
            source: "isolates"; run again on the same run, its rounds are numbered after the earlier ones'). With
            --listen its workers are on other machines ('flowmatrix worker --connect'): every round listens on that
            address (with port 0, the port the first round bound), and they reconnect to it between rounds. The last
            round's folder gets isolation.json, which its report and the source run's report (rewritten) show as
            confirmed combinations.
            EXIT CODES: 0 every failure explained (or none to explain), 1 some failure left unexplained, 2 no journal,
            no such run, a run not finished or itself a follow-up round, its matrix cannot be read or has changed
            since the run, or a follow-up run failed, 64 usage error.
            """,
        run: { args in
            var options = RunOptions()
            options.store = RunStore(path: args.value("--store"))
            options.quiet = args.has("--quiet")
            if let n = args.integer("--workers") { options.localWorkers = n }
            if let n = args.integer("--slots") { options.slotsPerWorker = n }
            options.workerExecutable = args.value("--worker-executable")
            options.planSettings = args.planSettings
            if let address = args.value("--listen") {
                guard args.integer("--workers") == nil, options.workerExecutable == nil else {
                    throw UsageError("give '--listen' (workers on other machines) or '--workers' (local ones), not both")
                }
                try RunCommand.listen(address, tokenFile: args.value("--token-file"), into: &options)
            } else if args.value("--token-file") != nil {
                throw UsageError("'--token-file' goes with '--listen'")
            }
            let budget = try args.value("--budget").map(Budget.parse)
            let seed = try args.value("--seed").map { text in
                guard let n = UInt64(text) else { throw UsageError("'--seed' takes a whole number, not '\(text)'") }
                return n
            }
            let ids = args.positionals
            guard ids.count == 1, let requested = ids.first else { throw UsageError("give one <run-id>") }
            return try await execute(requested, options: options, budget: budget ?? .share(0.2), seed: seed)
        }
    )

    /// A follow-up budget: a job count, or a share of the source run's jobs.
    enum Budget: Sendable, Hashable {
        case jobs(Int)
        case share(Double)

        /// `30` or `15%`.
        static func parse(_ text: String) throws -> Budget {
            if text.hasSuffix("%"), let p = Double(text.dropLast()), p > 0, p <= 1000 { return .share(p / 100) }
            if let n = Int(text), n >= 0 { return .jobs(n) }
            throw UsageError("a budget is a job count or a percentage ('30' or '20%'), not '\(text)'")
        }

        /// `run --isolate` (20 %), `run --isolate=<budget>`, or `run --isolate-budget <budget>` (which implies it);
        /// nil without either.
        static func runOption(_ args: ParsedArguments) throws -> Budget? {
            let attached = args.value("--isolate").flatMap { $0.isEmpty ? nil : $0 }
            if let text = args.value("--isolate-budget") {
                if attached != nil { throw UsageError("give the isolation budget once: '--isolate=<budget>' or '--isolate-budget <budget>'") }
                return try parse(text)
            }
            if let attached { return try parse(attached) }
            return args.has("--isolate") ? .share(0.2) : nil
        }

        /// The options `run` and `serve` take for it.
        static let runOptions: [CommandOption] = [
            CommandOption("--isolate", value: .attachedText("<n>|<p>%"),
                          help: "After a run with failures, run 'flowmatrix isolate' on it, within this follow-up budget: "
                              + "a job count or a share of the run's jobs (20% when given alone)."),
            CommandOption("--isolate-budget", value: .text("<n>|<p>%"), help: "The same as --isolate=<budget>."),
        ]

        func jobs(of source: Int) -> Int {
            switch self {
            case .jobs(let n): n
            case .share(let p): max(1, Int((Double(source) * p).rounded(.down)))
            }
        }
    }

    /// Isolates run `requested`'s failures; prints what was confirmed and returns the exit code.
    static func execute(_ requested: String, options given: RunOptions, budget: Budget, seed: UInt64?) async throws -> Int32 {
        var options = given
        try options.store.requireJournal()
        let reader = try JournalReader(path: options.store.journalPath)
        guard let runID = try reader.resolveRunID(requested), let run = try reader.run(runID) else {
            throw CommandFailure(requested == "last" ? "the journal has no runs" : "no run '\(requested)'")
        }
        if let why = IsolateSource.unfit(run) { throw CommandFailure(why) }
        if run.status != .completed && !options.quiet {
            let evidence = [JobOutcome.passed, .failed, .flaky, .timedOut].reduce(0) { $0 + (run.outcomes[$1] ?? 0) }
            FlowMatrixCLI.say("note: run \(runID) was \(run.status.rawValue): \(run.jobCount - evidence) of its \(run.jobCount) "
                + "jobs did not run to a pass or a failure, and are no evidence")
        }
        // Planned as each follow-up round plans it (the same settings: a user worker's registries), to check the run
        // against the matrix and corpus as they are now.
        var planOptions = options
        planOptions.matrixPath = run.info.matrixPath
        let (plan, findings) = MatrixPlanner.load(matrixAt: URL(fileURLWithPath: run.info.matrixPath),
                                                  settings: try await RunSession.request(planOptions).planSettings)
        guard let plan else {
            throw CommandFailure("cannot plan run \(runID)'s matrix \(run.info.matrixPath): "
                + findings.sortedForDisplay().prefix(3).map(\.description).joined(separator: "; "))
        }
        let matrix = plan.matrix
        let source = try observations(reader, runID: runID, followUp: false)
        let failingJobs = Set(source.filter { $0.verdict != .passed }.map(\.jobID))
        var failingRows: [PlannedJob] = []
        try reader.forEachJobRow(run: runID) { if failingJobs.contains($0.job.jobID) { failingRows.append($0.job) } }
        let why = IsolateSource.mismatch(matrix, source: source) ?? IsolateSource.changedScenario(plan, failing: failingRows)
        if let why {
            throw CommandFailure("run \(runID)'s matrix \(run.info.matrixPath) has changed since the run: \(why). "
                + "Isolate a run of the matrix as it is now, or restore the matrix the run was planned from.")
        }
        // Jobs, not observations (a command job's tests are one observation each).
        let jobs = Set(source.map(\.jobID)).count
        let failing = failingJobs.count
        var settings = IsolationSession.Settings(
            maxSize: matrix.reduction.strength.map { $0 + 1 } ?? 3, budget: budget.jobs(of: jobs),
            seed: seed ?? run.info.seed)
        // A full plan runs every three values in many jobs: a flaky three-value fault is a suspect there.
        if matrix.reduction.strength == nil { settings.intermittentSize = 3 }
        var session = IsolationSession(source: IsolateSource.axesOnly(source, matrix: matrix),
                                       generator: FollowUpGenerator(matrix: matrix), settings: settings)
        let say = { (line: String) in if !options.quiet { FlowMatrixCLI.say(line) } }
        say("isolate \(runID): \(failing) failing or flaky of \(jobs) jobs, "
            + "candidates up to \(settings.maxSize) values, budget \(settings.budget) follow-up jobs")
        let earlier = try IsolateSource.earlierRounds(reader, source: runID)
        var runs: [String] = []
        while true {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            say("round \(runs.count + 1): \(asks.count) follow-up job(s)")
            let (round, port) = try await runRound(asks, source: runID, number: earlier.count + runs.count + 1,
                                                   seed: settings.seed, plan: plan, matrixPath: run.info.matrixPath,
                                                   options: options)
            // Workers on other machines reconnect to the address they know: every round listens where the first did.
            if options.localWorkers == 0 { options.port = port }
            runs.append(round)
            let results = try observations(reader, runID: round, followUp: true)
            session.onResults(IsolateSource.axesOnly(results, matrix: matrix))
        }
        let record = IsolationRecord(source: runID, session: session, runs: runs)
        try publish(record, store: options.store)
        for line in record.lines { FlowMatrixCLI.say(line.terminalSafe) }
        FlowMatrixCLI.say("isolation: \(record.confirmed.count) confirmed, \(record.jobsRun) follow-up job(s) in "
            + "\(runs.count) run(s)" + (runs.last.map { "; " + options.store.runFolder($0).appendingPathComponent(IsolationRecord.fileName).path } ?? ""))
        return record.unresolved.isEmpty ? ExitCode.success : ExitCode.failures
    }

    /// `show`'s and `diff`'s lines for a run with an `isolation.json` in its folder (none without one; a file that
    /// cannot be read says so).
    static func isolationLines(store: RunStore, runID: String) -> [String] {
        do {
            guard let record = try IsolationRecord.read(in: store.runFolder(runID)) else { return [] }
            let head = record.source == runID ? "isolation of \(runID)" : "isolation of \(record.source) (follow-ups in \(runID))"
            return ["\(head): \(record.confirmed.count) confirmed, \(record.jobsRun) follow-up job(s)"]
                + record.lines.map { "  " + $0.terminalSafe }
        } catch {
            return ["isolation of \(runID): \(IsolationRecord.fileName) cannot be read: \(error)".terminalSafe]
        }
    }

    /// `run --isolate`: isolates the run that just finished with failures (the store's last run).
    ///
    /// The run's failures stand whatever isolation finds: explaining a failure does not make it pass, so the exit code
    /// stays 1 (failures) unless isolation itself could not be done (2).
    static func afterRun(_ options: RunOptions, budget: Budget) async throws -> Int32 {
        var isolateOptions = options
        isolateOptions.matrixPath = nil
        let code = try await execute("last", options: isolateOptions, budget: budget, seed: nil)
        return code == ExitCode.success || code == ExitCode.failures ? ExitCode.failures : code
    }

    /// One round as a new run: the source's matrix (`plan`, planned once for every round), only the follow-up jobs,
    /// the local workers `run` would start (or, without local workers, the address workers connect to, said once it
    /// listens). Returns the run and the port it listened on.
    static func runRound(_ asks: [IsolationSession.FollowUp], source: String, number: Int, seed: UInt64,
                         plan: Plan, matrixPath: String, options: RunOptions) async throws -> (runID: String, port: Int) {
        var roundOptions = options
        roundOptions.matrixPath = matrixPath
        roundOptions.quiet = true
        var request = try await RunSession.request(roundOptions)
        request.plan = plan
        request.shard = FollowUpJobs(source: source, round: number, seed: seed, asks: asks)
        request.reports = RunReportWriter(baseline: nil)
        let bound = Mutex(options.port)
        let remote = options.localWorkers == 0
        let result: RunResult
        do {
            result = try await RunController(request, onEvent: { event in
                guard case .serving(let run) = event else { return }
                bound.withLock { $0 = run.port }
                if remote { FlowMatrixCLI.say("round \(number): workers connecting to \(run.host):\(run.port)") }
            }).run()
        } catch let error as RunError {
            try RunSession.fail(error)
        }
        guard result.status == .completed, result.journalFailure == nil else {
            throw CommandFailure("follow-up run \(result.runID) did not complete (\(result.status.rawValue))")
        }
        return (result.runID, bound.withLock { $0 })
    }

    /// The verdicts of a run's jobs (passed, failed or timed out, flaky; others are no evidence). A command job that
    /// reports tests (JUnit, docs/COMMAND-JOBS.md) is one subject per test, each with its own verdict, so two defects
    /// in one suite are isolated apart; the job itself stays a subject whose failure counts only when no test failed
    /// (its command broke beyond its tests).
    static func observations(_ reader: JournalReader, runID: String, followUp: Bool) throws -> [Observation] {
        var out: [Observation] = []
        func add(_ row: JobRow, tests: [(test: String, verdict: Verdict)]) {
            let verdict: Verdict
            switch row.result?.outcome {
            // The coordinator ends a job `passed` only when none of its attempts failed (a pass after a failed attempt is
            // `flaky`): its other attempts were taken back before they started (to run on a free worker) or lost with
            // a worker, which says nothing of its configuration. Counting such a pass as flaky (as before 6 December
            // 2026, 22:00 UTC) spent follow-ups repeating clean passes, and made phantom intermittent failures to explain.
            case .passed: verdict = .passed
            case .failed, .timedOut: verdict = .failed
            case .flaky: verdict = .flaky
            default: return
            }
            // A stability run's repetitions (`run --repeat`) are jobs of one configuration: their verdicts are its
            // repeats, which tell an intermittent failure from a deterministic one.
            var configuration = Configuration(parsing: row.job.configuration)?.values ?? [:]
            configuration[Repetitions.axis] = nil
            let subject = Subject(scenario: row.job.scenarioID, registry: row.job.registry)
            for (test, v) in tests {
                out.append(Observation(subject: Subject(scenario: subject.scenario, registry: subject.registry, test: test),
                                       configuration: configuration, verdict: v, jobID: row.job.jobID, followUp: followUp))
            }
            let job = tests.contains { $0.verdict != .passed } ? Verdict.passed : verdict
            out.append(Observation(subject: subject, configuration: configuration, verdict: job, jobID: row.job.jobID,
                                   followUp: followUp))
        }
        // Steps are read only for a run with command jobs (decoding every job's steps is the costly part of a read).
        if try reader.registries(runs: [runID]).contains(CommandTemplate.registry) {
            try reader.forEachJob(run: runID) { detail in
                add(detail.row, tests: detail.row.job.registry == CommandTemplate.registry ? testVerdicts(detail) : [])
            }
        } else {
            try reader.forEachJobRow(run: runID) { add($0, tests: []) }
        }
        return out
    }

    /// A command job's tests with their verdicts over its attempts (superseded ones left out), as its `junit.xml`
    /// and the per-test pivot read them (``TestVerdict``); a skipped test is no evidence.
    static func testVerdicts(_ detail: JobDetail) -> [(test: String, verdict: Verdict)] {
        let counted = detail.attempts.filter { !($0.attempt.result?.superseded ?? true) }
        return CommandJobTests.runs(counted, steps: \.steps).compactMap { test in
            switch TestVerdict(test.runs.map(\.step.outcome), job: CellStatus(detail.row)) {
            case .passed: (test.name, .passed)
            case .flaky: (test.name, .flaky)
            case .failure, .error: (test.name, .failed)
            case .skipped: nil
            }
        }
    }

    /// Writes `isolation.json` into the last follow-up run's folder and the source run's, and rewrites both reports
    /// so their headlines and "Failures by axis" show what was confirmed.
    static func publish(_ record: IsolationRecord, store: RunStore) throws {
        let folders = ([record.source] + (record.runs.last.map { [$0] } ?? []))
        for runID in folders {
            do {
                try record.write(in: store.runFolder(runID))
            } catch {
                throw CommandFailure("cannot write \(IsolationRecord.fileName) for run \(runID): \(error)")
            }
            _ = RunReportWriter.writeReports(runID: runID, store: store, baseline: nil)
        }
    }
}

/// A round's plan: the source matrix's jobs replaced by the follow-ups (each built from a planned job of its
/// scenario and registry, with the follow-up's configuration). Recorded in the run's settings under `isolates`.
///
/// The round runs with its own seed, derived from the isolation's seed and the round's number: a job's first attempt
/// is seeded by the matrix seed and the job's id (scenario, configuration), so with the source's seed a follow-up of a
/// configuration the source ran replayed that job's very draws (a seeded `flaky` network failed the same requests),
/// and a repeat of a flaky job, or an intermittent trial, was no new evidence (docs/ISOLATE.md, step 7).
struct FollowUpJobs: PlanShard {
    var source: String
    var round: Int
    var seed: UInt64
    var asks: [IsolationSession.FollowUp]

    var settingsKey: String { "isolates" }

    func apply(to plan: inout Plan) -> [String: Any] {
        plan.matrix.seed = RunDefinitionBuilder.jobSeed(seed, "isolate round \(round)")
        var scenarios: [Subject: Job] = [:]
        for job in plan.jobs where scenarios[Subject(scenario: job.scenario.id, registry: job.registry)] == nil {
            scenarios[Subject(scenario: job.scenario.id, registry: job.registry)] = job
        }
        var seen = Set<String>()
        // The session works on axes (``IsolateSource/axesOnly(_:matrix:)``); a job gets the keys the matrix's includes
        // add to its axis values, as every planned job of them has them (`banner=shown` wherever `network=offline`).
        let space = MatrixSpace(plan.matrix)
        // The axes of one value, which the session leaves out, as every job has them.
        let constants = FollowUpGenerator.constantAxes(of: plan.matrix)
        // A command job's test runs as its whole job (one job for every test that asks for the same configuration).
        plan.jobs = asks.compactMap { ask in
            guard let template = scenarios[ask.subject.job] else { return nil }
            let values = ask.configuration.merging(constants) { own, _ in own }
            let job = Job(scenario: template.scenario, scenarioFile: template.scenarioFile,
                          configuration: Configuration(space.withIncludes(values)), registry: template.registry)
            return seen.insert(job.id).inserted ? job : nil
        }
        return ["source": source, "round": round, "jobs": plan.jobs.count]
    }
}
