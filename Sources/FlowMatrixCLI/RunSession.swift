import Artifacts
import Coordinator
import FlowCrypto
import FlowSpec
import FlowVocabulary
import Foundation
import Journal
import LiveView
import MatrixPlan
import Reports
import Wire

/// How `run` and `serve` run a matrix.
struct RunOptions: Sendable {
    var matrixPath: String?
    var store = StoreLayout(nil)
    /// Local worker processes (embedded mode); 0 for `serve`.
    var localWorkers = ProcessInfo.processInfo.activeProcessorCount
    var slotsPerWorker = 2
    var resume: String?
    var strict = false
    var baseline: String?
    var host = "127.0.0.1"
    var port = 0
    var token: [UInt8]?
    var quiet = false
    var retriesOverride: Int?
    /// `--repeat`: stability mode, every job this many times (overrides the matrix's `policy.repeat`).
    var repetitionsOverride: Int?
    var seedOverride: UInt64?
    /// `--shard`: run only this shard's share of the plan (docs/SCALE-OUT.md).
    var shard: ShardSelection?
    /// `--max-jobs`: the plan's job limit (MX025).
    var planSettings = PlanSettings()
    /// `--http`: the live view.
    var live: LiveViewOptions?
}

/// Runs one matrix end to end: plan, journal, coordinator, (local workers), progress, outcome, exit code.
enum RunSession {
    /// Exit code when the matrix or its corpus has findings (the run does not start).
    static let invalidInput = ExitCode.invalidInput

    static func execute(_ options: RunOptions) async throws -> Int32 {
        try options.store.create()
        let writer: JournalWriter
        let reader: JournalReader
        let journalFailure = JournalFailureRelay()
        do {
            writer = try JournalWriter(path: options.store.journalPath, onFailure: { journalFailure.fire($0) })
            reader = try JournalReader(path: options.store.journalPath)
        } catch {
            throw CommandFailure("cannot open the journal: \(error)")
        }
        var resumeState: ResumeState?
        var matrixPath = options.matrixPath
        if let runID = options.resume {
            guard let summary = try reader.run(runID) else { throw CommandFailure("no run '\(runID)' in \(options.store.journalPath)") }
            resumeState = try reader.resumeState(run: runID)
            if matrixPath == nil { matrixPath = summary.info.matrixPath }
        }
        guard let matrixPath else { throw UsageError("missing <matrix>") }
        // Every phase says when it starts and how long it took: a big matrix must never look stuck.
        var phaseStarted = ContinuousClock.now
        if !options.quiet { FlowMatrixCLI.say("planning \(matrixPath) …") }
        let (loaded, findings) = MatrixPlanner.load(matrixAt: URL(fileURLWithPath: matrixPath), settings: options.planSettings)
        guard var plan = loaded, findings.isEmpty else {
            for f in findings.sortedForDisplay() { FlowMatrixCLI.writeError("\(f.description.terminalSafe)\n") }
            FlowMatrixCLI.writeError("Error: \(matrixPath) has \(findings.count) finding(s); the run did not start\n")
            return invalidInput
        }
        if let r = options.retriesOverride { plan.matrix.retries = r }
        if let s = options.seedOverride { plan.matrix.seed = s }
        let repetitions = options.repetitionsOverride ?? plan.matrix.repetitions
        if repetitions > 1 {
            guard plan.jobs.count * repetitions <= options.planSettings.maximumJobs else {
                FlowMatrixCLI.writeError("Error: \(plan.jobs.count) jobs × \(repetitions) repetitions is more than the job limit of "
                    + "\(options.planSettings.maximumJobs) (MX025); nothing runs. Raise it with --max-jobs, or repeat fewer times.\n")
                return invalidInput
            }
            plan.jobs = Repetitions.expand(plan.jobs, count: repetitions)
        }
        let planHash = plan.hash
        var shardRecord: [String: Any]?
        if let shard = options.shard {
            shardRecord = shard.apply(to: &plan)
        } else if let resumeState, let runID = options.resume, try reader.run(runID)?.isShard == true {
            // A shard resumes with the jobs it journaled, not a new split.
            plan.jobs = plan.jobs.filter { resumeState.done[$0.id] != nil || resumeState.nextAttempt[$0.id] != nil }
        }
        if options.localWorkers > 0 {
            // Local workers allow commands (LocalWorkers): they host `command` too.
            let hosted = Set(BuiltInRegistries.all.map(\.name) + [CommandTemplate.registry])
            guard hosted.contains(plan.matrix.registry) else {
                throw CommandFailure("the matrix needs registry '\(plan.matrix.registry)', which local workers do not host "
                    + "(built in: \(hosted.sorted().joined(separator: ", "))); use 'flowmatrix serve' with your own workers",
                    exitCode: invalidInput)
            }
            guard plan.matrix.requiredLabels.isEmpty else {
                let labels = plan.matrix.requiredLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                throw CommandFailure("the matrix requires worker labels \(labels.joined(separator: ", ")), which local workers "
                    + "do not carry; use 'flowmatrix serve' with workers started with --label", exitCode: invalidInput)
            }
        }

        let runID = options.resume ?? RunID.generate(at: Date())
        // Held in an optional so the run phase below can take it: once the run is over, the definition, the engine
        // and the server are gone before the reports are written (a million-job run must not hold both at once).
        var runDefinition: RunDefinition? = try makeDefinition(plan: plan, runID: runID, reader: reader, resume: resumeState)
        let jobCount = runDefinition?.jobs.count ?? 0
        let alreadyFinal = runDefinition?.finished.count ?? 0
        let matrixName = plan.matrix.name
        if !options.quiet {
            FlowMatrixCLI.say(String(format: "planned %d jobs in %.1f s", plan.jobs.count,
                                     (ContinuousClock.now - phaseStarted).milliseconds / 1000))
        }
        if resumeState != nil {
            try writer.submit(.runResumed(runID: runID, at: Date()))
            if !options.quiet {
                FlowMatrixCLI.say("resuming run \(runID): \(alreadyFinal) job(s) already final, "
                    + "\(jobCount - alreadyFinal) to run")
            }
        } else {
            try writer.submit(
                .runStarted(RunInfo(runID: runID, matrixName: plan.matrix.name, matrixPath: URL(fileURLWithPath: matrixPath).path,
                                    seed: plan.matrix.seed, startedAt: Date(),
                                    settingsJSON: settingsJSON(plan.matrix, planHash: planHash, shard: shardRecord))))
            // In chunks, each committed before the next is built: a million planned jobs never sit in memory twice.
            let chunk = 20_000
            for start in stride(from: 0, to: plan.jobs.count, by: chunk) {
                try writer.submit(.jobsPlanned(runID: runID, jobs: plan.jobs[start..<min(start + chunk, plan.jobs.count)].map { job in
                    PlannedJob(jobID: job.id, scenarioID: job.scenario.id, scenarioTitle: job.scenario.title,
                               configuration: job.configuration.canonicalString,
                               configurationJSON: JobIdentity.canonicalJSON(job.configuration), registry: job.registry)
                }))
                if (start / chunk) % 5 == 4 { try writer.flushSync() }
            }
        }
        // The run definition holds what the run needs; the plan's jobs and configurations are not needed again.
        plan.jobs = []
        plan.configurations = []
        plan.origins = []

        // The live view draws from the journal: the run and its jobs are committed before it starts.
        var liveServer: LiveServer?
        if let live = options.live {
            try writer.flushSync()
            let server = try await live.start(runID: runID, jobs: jobCount, journalPath: options.store.journalPath)
            liveServer = server
            if !options.quiet { FlowMatrixCLI.say("live view: \(live.url(port: server.port))") }
        }
        defer { liveServer?.stop() }
        let final: RunProgress
        let status: RunStatus
        let elapsed: Duration
        do {
        guard let definition = runDefinition.take() else { throw CommandFailure("internal error: the run has no definition") }
        let token = options.token ?? Array(Hex.encode(secureRandomBytes(32)).utf8)
        var settings = CoordinatorSettings(host: options.host, port: options.port, token: token)
        settings.heartbeatInterval = .seconds(2)
        let quiet = options.quiet
        settings.onNotice = { line in if !quiet { FlowMatrixCLI.writeError("\nnotice: \(line)\n") } }
        settings.observer = liveServer?.feed
        do {
            settings.blobStore = try BlobStore(root: options.store.blobsRoot)
        } catch {
            throw CommandFailure("cannot open the blob store in \(options.store.root.path): \(error)")
        }
        let server: CoordinatorServer
        do {
            server = try await CoordinatorServer.start(definition: definition, settings: settings) { records in
                do { try writer.submit(records) } catch { FlowMatrixCLI.writeError("journal: \(error)\n") }
            }
        } catch {
            // The run was journaled as started: close it as aborted so `runs` does not show it running forever.
            try? writer.submit(.runFinished(runID: runID, status: .aborted, at: Date()))
            try? writer.close()
            throw CommandFailure("cannot listen on \(options.host):\(options.port): \(error)")
        }
        journalFailure.attach { error in
            // Said at once, and nothing more is dispatched: every further job would be lost from the journal.
            FlowMatrixCLI.writeError("\nError: the journal cannot be written (\(error)): dispatching stopped, in-flight "
                + "jobs finish. Free space in \(options.store.root.path), then finish the run with "
                + "'flowmatrix run --resume \(runID)'.\n")
            server.stopDispatching(reason: "the journal cannot be written")
        }
        let started = ContinuousClock.now
        if !options.quiet {
            let mode = options.localWorkers > 0 ? "\(options.localWorkers) local worker(s)" : "workers connecting to \(options.host):\(server.port)"
            FlowMatrixCLI.say("run \(runID): \(matrixName.terminalSafe), \(jobCount) job(s), \(mode)")
            if let shard = options.shard {
                FlowMatrixCLI.say("  shard \(shard.spec) (from \(shard.source)), split by "
                    + (shard.durations == nil ? "count" : "durations from \(shard.durationsPath ?? "?")"))
            }
        }
        let workers = options.localWorkers > 0
            ? try LocalWorkers(count: options.localWorkers, slots: options.slotsPerWorker, port: server.port,
                               token: String(decoding: token, as: UTF8.self), quiet: options.quiet)
            : nil

        let interrupts = InterruptHandler { count in
            if count == 1 {
                FlowMatrixCLI.writeError("\ninterrupted: finishing in-flight jobs (Ctrl-C again to abort)\n")
                server.stopDispatching(reason: "interrupted by the user")
            } else {
                FlowMatrixCLI.writeError("\naborting: cancelling in-flight jobs\n")
                server.abort(reason: "aborted by the user")
            }
        }
        let progress = ProgressLine(total: jobCount, alreadyDone: alreadyFinal, enabled: !options.quiet)
        let ticker = Task {
            while !Task.isCancelled {
                progress.update(server.progress, elapsed: ContinuousClock.now - started)
                // A display refresh interval, not a wait for a condition.
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        final = await server.waitForCompletion()
        ticker.cancel()
        await ticker.value
        progress.finish(final, elapsed: ContinuousClock.now - started)
        interrupts.cancel()
        elapsed = ContinuousClock.now - started

        await server.shutdown(grace: .seconds(5))
        await workers?.waitForExit(grace: .seconds(5))
        status = interrupts.count == 0 ? .completed : (interrupts.count == 1 ? .interrupted : .aborted)
        try writer.submit(.runFinished(runID: runID, status: status, at: Date()))
        if let failure = journalFailure.failure {
            try? writer.close()
            FlowMatrixCLI.writeError("Error: run \(runID) stopped because its journal could not be written: \(failure)\n"
                + "  Every result committed before that is kept; 'flowmatrix run --resume \(runID)' runs the rest.\n")
            return ExitCode.ioError
        }
        try writer.flushSync()
        try writer.close()
        }
        // The run's memory (definition, engine, server) is released; hand it back to the system before the reports.
        journalFailure.detach()
        ProcessFacts.returnFreedMemory()

        phaseStarted = ContinuousClock.now
        if !options.quiet { FlowMatrixCLI.say("writing reports …") }
        let reportNote = RunArtifacts.writeReports(runID: runID, store: options.store, baseline: options.baseline)
        if !options.quiet {
            FlowMatrixCLI.say(String(format: "reports written in %.1f s", (ContinuousClock.now - phaseStarted).milliseconds / 1000))
        }
        if let liveServer, let live = options.live {
            // Open pages reload into the static report, served from the run's folder while the linger lasts.
            liveServer.finish(reportFolder: options.store.runFolder(runID))
            if live.linger > .zero {
                if !options.quiet { FlowMatrixCLI.say("serving the report at \(live.url(port: liveServer.port)) for \(live.linger)") }
                try? await Task.sleep(for: live.linger)
            }
        }
        let failures = final.count(.failed) + final.count(.timedOut) + final.count(.quarantined)
        let notRun = final.count(.notRun) + final.count(.cancelled)
        if !options.quiet {
            let seconds = max(elapsed.milliseconds / 1000, 0.001)
            // Jobs that ran in this session (not those final before a resume, not those that never ran).
            let ran = final.done - alreadyFinal - notRun
            // Not run without an interrupt: fail-fast stopped dispatching.
            let word = status == .completed && notRun > 0 ? "stopped by fail-fast" : status.rawValue
            FlowMatrixCLI.say(String(format: "run %@ %@ in %.2fs: %d passed, %d failed, %d flaky, %d timed out, %d quarantined, %d not run (%.0f jobs/s)",
                         runID, word, seconds, final.count(.passed), final.count(.failed), final.count(.flaky),
                         final.count(.timedOut), final.count(.quarantined), notRun, Double(max(0, ran)) / seconds))
            if final.artifactsStored > 0 || final.artifactResends > 0 {
                FlowMatrixCLI.say("  \(final.artifactsStored) artifact(s) stored"
                    + (final.artifactResends > 0 ? ", \(final.artifactResends) re-sent after failing verification" : ""))
            }
            if final.supersededResults > 0 { FlowMatrixCLI.say("  \(final.supersededResults) late or duplicate result(s) ignored") }
            if let reportNote { FlowMatrixCLI.say("  \(reportNote)") }
            FlowMatrixCLI.say("  details: flowmatrix show \(runID)  (store: \(options.store.root.path))")
        }
        if status != .completed { return ExitCode.interrupted }
        if failures > 0 || (options.strict && final.count(.flaky) > 0) { return ExitCode.failures }
        return ExitCode.success
    }

    /// Turns a plan into the coordinator's run definition: scenario bodies by hash, seeds, expected durations.
    static func makeDefinition(plan: Plan, runID: String, reader: JournalReader, resume: ResumeState?) throws -> RunDefinition {
        let estimates = try reader.durationEstimates(jobIDs: Set(plan.jobs.map(\.id)))
        var bodies: [Bytes32: [UInt8]] = [:]
        var hashes: [String: Bytes32] = [:]
        var jobs: [RunJob] = []
        jobs.reserveCapacity(plan.jobs.count)
        var finished: [Int: JobOutcome] = [:]
        var offsets: [Int: Int] = [:]
        var priorFailures: [Int: Int] = [:]
        for (index, job) in plan.jobs.enumerated() {
            let body = Array(JobIdentity.canonicalJSON(job.scenario).utf8)
            let key = job.scenario.id + "\u{0}" + String(body.count)
            let hash: Bytes32
            if let known = hashes[key], bodies[known] == body { hash = known } else {
                hash = Bytes32(SHA256.hash(body)) ?? .zero
                hashes[key] = hash
                bodies[hash] = body
            }
            // No history at all: zero, "unknown", and the scheduler goes by what this run measures.
            let seconds = estimates.expected(job.id, fallback: 0)
            jobs.append(RunJob(
                id: job.id, scenarioID: job.scenario.id, scenarioTitle: job.scenario.title, scenarioHash: hash,
                stepKeys: job.scenario.steps.map(\.key), registry: job.registry, requiredLabels: plan.matrix.requiredLabels,
                configuration: job.configuration.pairs.map { ConfigurationPair($0.key, $0.value) },
                seed: jobSeed(plan.matrix.seed, job.id), expectedDuration: .milliseconds(Int64(seconds * 1000))))
            if let resume {
                // Jobs that never ran (not run, cancelled by an interrupt) run now; every real outcome stays.
                if let outcome = resume.done[job.id], outcome != .notRun, outcome != .cancelled { finished[index] = outcome }
                if let next = resume.nextAttempt[job.id], next > 1 { offsets[index] = next - 1 }
                if let failures = resume.failures[job.id] { priorFailures[index] = failures }
            }
        }
        let scheduler = SchedulerSettings(retries: plan.matrix.retries, failFast: plan.matrix.failFast,
                                          jobTimeout: plan.matrix.jobTimeout)
        var definition = RunDefinition(runID: runID, jobs: jobs, scenarioBodies: bodies, scheduler: scheduler,
                                       finished: finished, attemptOffsets: offsets, keep: plan.matrix.keep)
        definition.priorFailures = priorFailures
        return definition
    }

    /// A job's seed: the matrix seed mixed with the job id, the same on every rerun of that job.
    static func jobSeed(_ seed: UInt64, _ jobID: String) -> UInt64 {
        let digest = SHA256.hash(Array("\(seed):\(jobID)".utf8))
        return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The run's settings as stored in the journal; a shard also records its index, count, plan hash and the
    /// plan positions of its jobs (what `merge` checks and orders by).
    static func settingsJSON(_ m: MatrixFile, planHash: String? = nil, shard: [String: Any]? = nil) -> String {
        var object: [String: Any] = [
            "registry": m.registry, "retries": m.retries, "jobTimeoutSeconds": m.jobTimeout.milliseconds / 1000,
            "failFast": m.failFast, "keep": m.keep.rawValue, "reduction": m.reduction.description,
        ]
        if let planHash { object["planHash"] = planHash }
        if let shard { object["shard"] = shard }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Reports written at the end of a run: report.html, junit.xml, summary.json (docs/REPORTS.md).
enum RunArtifacts {
    /// Writes the run's reports; returns a line saying where they are (or why they are not). A `--baseline last`
    /// with no earlier run writes the report without a comparison.
    static func writeReports(runID: String, store: StoreLayout, baseline: String?) -> String? {
        do {
            let reader = try JournalReader(path: store.journalPath)
            var note: String?
            let files: ReportFiles
            do {
                files = try ReportWriter.write(runID: runID, reader: reader, blobsRoot: store.blobsRoot,
                                               into: store.runFolder(runID), baseline: baseline)
            } catch let error as ReportError where error.code == .noBaseline {
                note = "no baseline: \(error.message)"
                files = try ReportWriter.write(runID: runID, reader: reader, blobsRoot: store.blobsRoot,
                                               into: store.runFolder(runID), baseline: nil)
            }
            for warning in files.warnings { FlowMatrixCLI.writeError("warning: \(warning)\n") }
            var line = "report: \(files.html.path)"
            if let diff = files.diff { line += "\n  since \(diff.base): \(diff.summaryLine)" }
            if let note { line += "\n  \(note)" }
            if let stability = files.stability {
                // Stability mode: the least stable jobs and axis values (stability.json holds them all).
                line += "\n" + stability.lines().map(\.terminalSafe).joined(separator: "\n")
                line += "\n  stability: " + files.folder.appendingPathComponent("stability.json").path
            }
            return line
        } catch {
            return "report not written: \(error)"
        }
    }
}
