import FlowVocabulary
import Foundation
import Journal

/// SplitMix64: a seeded generator, so a failing seed can be run again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

/// A run of random jobs written straight into a journal as a coordinator would: scenario jobs and command jobs (a
/// `request:command` step then a `test:` step per test of its result files), every final outcome, retries with every
/// attempt outcome, superseded attempts, repetitions (`--repeat`: a `repetition` axis). Its command attempts mix
/// freely what the issue is about: an attempt that exited non-zero while every test passed, one that exited 0 with a
/// failing test, one that wrote no result file.
struct GeneratedRun {
    struct Attempt {
        var outcome: JobOutcome
        var superseded = false
        var steps: [StepResult]
        var failureStep: Int?
        var message: String?
    }

    struct Job {
        var planned: PlannedJob
        var outcome: JobOutcome
        var attempts: [Attempt]
    }

    var runID: String
    var startedAt: Date
    var jobs: [Job]

    static let outcomes: [JobOutcome] = [.passed, .passed, .failed, .flaky, .timedOut, .quarantined, .cancelled, .notRun]

    init(seed: UInt64, runID: String, startedAt: Date) {
        var random = SeededRandom(state: seed)
        self.runID = runID
        self.startedAt = startedAt
        let repetitions = random.chance(0.3) ? Int.random(in: 2...3, using: &random) : 1
        let locales = Array(["en", "de", "ar"].prefix(Int.random(in: 1...3, using: &random)))
        let scenarios = ["checkout", "suite", "pytest[tests/test_b.py]"].prefix(Int.random(in: 1...3, using: &random))
        var jobs: [Job] = []
        for scenario in scenarios {
            let command = scenario != "checkout"
            for locale in locales {
                for repetition in 1...repetitions {
                    var values = [("locale", locale)]
                    if repetitions > 1 { values.append(("repetition", String(repetition))) }
                    let outcome = random.pick(Self.outcomes)
                    let planned = Self.planned(scenario, values, command: command, number: jobs.count)
                    jobs.append(Job(planned: planned, outcome: outcome,
                                    attempts: Self.attempts(for: outcome, command: command, random: &random)))
                }
            }
        }
        self.jobs = jobs
    }

    static func planned(_ scenario: String, _ values: [(String, String)], command: Bool, number: Int) -> PlannedJob {
        let canonical = values.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
        let json = "{" + values.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
        let id = String(format: "%016llx", UInt64(number + 1) &* 0x9E37_79B9_7F4A_7C15)
        return PlannedJob(jobID: id, scenarioID: scenario, scenarioTitle: scenario, configuration: canonical,
                          configurationJSON: json, registry: command ? "command" : "catalog")
    }

    /// The attempts that end in `outcome`: the last one decides; earlier ones failed (a retry), and a superseded one
    /// may come anywhere.
    static func attempts(for outcome: JobOutcome, command: Bool, random: inout SeededRandom) -> [Attempt] {
        let failing: [JobOutcome] = [.failed, .failed, .timedOut, .cancelled]
        var outcomes: [JobOutcome]
        switch outcome {
        case .passed: outcomes = [.passed]
        case .flaky: outcomes = (0..<Int.random(in: 1...2, using: &random)).map { _ in random.pick(failing) } + [.passed]
        case .failed: outcomes = (0..<Int.random(in: 0...2, using: &random)).map { _ in random.pick(failing) } + [.failed]
        case .timedOut: outcomes = (0..<Int.random(in: 0...1, using: &random)).map { _ in random.pick(failing) } + [.timedOut]
        case .quarantined: outcomes = [.cancelled, .cancelled]
        case .cancelled: outcomes = random.chance(0.5) ? [.failed] : []
        case .notRun: outcomes = []
        }
        var attempts = outcomes.map { attempt($0, command: command, random: &random) }
        if !attempts.isEmpty, random.chance(0.15) {
            // A late result of an expired lease: it never decides.
            var late = attempt(random.pick([.failed, .passed, .timedOut]), command: command, random: &random)
            late.superseded = true
            attempts.insert(late, at: Int.random(in: 0..<attempts.count, using: &random))
        }
        return attempts
    }

    static func attempt(_ outcome: JobOutcome, command: Bool, random: inout SeededRandom) -> Attempt {
        let step0: StepOutcome = switch outcome {
        case .passed, .flaky: .passed
        case .timedOut: .timedOut
        case .cancelled, .quarantined, .notRun: .cancelled
        case .failed: .failed
        }
        guard command else {
            let failAt = step0 == .passed ? nil : Int.random(in: 0...2, using: &random)
            let steps = (0...(failAt ?? 2)).map { i in
                StepResult(index: i, key: ["launch app", "tap 'Pay'", "expect 'Total' visible"][i],
                           outcome: i == failAt ? step0 : .passed, duration: 0.1,
                           message: i == failAt ? "expected 'Total' to be visible" : nil)
            }
            return Attempt(outcome: outcome, steps: steps, failureStep: failAt,
                           message: failAt == nil ? nil : "expected 'Total' to be visible")
        }
        let exit = step0 == .passed ? nil : "exited with status \(random.pick([1, 2, 134]))\ncoverage 41% is below 80%"
        var steps = [StepResult(index: 0, key: "request:command", outcome: step0, duration: 0.2, message: exit)]
        // Most attempts wrote a result file; its tests pass or fail whatever the exit status said.
        if random.chance(0.8) {
            let testOutcomes: [StepOutcome] = [.passed, .passed, .passed, .failed, .errored, .skipped, .timedOut, .lost]
            for t in 0..<Int.random(in: 1...4, using: &random) {
                let o = random.pick(testOutcomes)
                steps.append(StepResult(index: t + 1, key: "test:suite.test_\(t)", outcome: o, duration: 0.01,
                                        message: o == .passed ? nil : "assert \(t) == \(t + 1)"))
            }
        }
        return Attempt(outcome: outcome, steps: steps, failureStep: exit == nil ? nil : 0, message: exit)
    }

    /// The jobs of positions `positions` (or all) as journal records of a completed run with `settingsJSON`.
    func records(settingsJSON: String = "{}", runID: String? = nil, positions: [Int]? = nil) -> [JournalRecord] {
        let id = runID ?? self.runID
        let chosen = positions.map { $0.map { jobs[$0] } } ?? jobs
        var records: [JournalRecord] = [
            .runStarted(RunInfo(runID: id, matrixName: "generated", matrixPath: "generated.json", seed: 7,
                                startedAt: startedAt, settingsJSON: settingsJSON)),
            .jobsPlanned(runID: id, jobs: chosen.map(\.planned)),
        ]
        var clock = startedAt
        for job in chosen {
            let jobID = job.planned.jobID
            for (n, attempt) in job.attempts.enumerated() {
                clock += 1
                records.append(.attemptStarted(runID: id, jobID: jobID, attempt: n + 1, worker: "worker-\(n % 2)", at: clock))
                for step in attempt.steps { records.append(.stepRecorded(runID: id, jobID: jobID, attempt: n + 1, step: step)) }
                records.append(.attemptFinished(runID: id, jobID: jobID, attempt: n + 1, result: AttemptResult(
                    outcome: attempt.outcome, finishedAt: clock, duration: 0.5, failureStep: attempt.failureStep,
                    message: attempt.message, superseded: attempt.superseded)))
            }
            let deciding = job.attempts.last { !$0.superseded }
            let failing = job.outcome != .passed && job.outcome != .flaky
            records.append(.jobFinished(runID: id, jobID: jobID, result: JobResult(
                outcome: job.outcome, attempts: job.attempts.count, duration: job.attempts.isEmpty ? nil : 0.5,
                failureStep: failing ? deciding?.failureStep : nil,
                failureMessage: failing ? (deciding?.message ?? "the run was interrupted") : nil, finishedAt: clock)))
        }
        records.append(.runFinished(runID: id, status: .completed, at: clock + 1))
        return records
    }
}
