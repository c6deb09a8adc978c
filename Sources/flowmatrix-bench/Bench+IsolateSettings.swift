import Foundation
import Isolation
import MatrixPlan
import Synchronization

/// `bench isolate`'s settings (strength × fault size), its scores and the published figures it quotes.
extension IsolateBench {
    /// A planted failure-inducing combination; a flaky one fails an attempt with probability ½.
    struct Fault {
        var combination: Combination
        var flaky: Bool
    }

    /// A synthetic system: a matrix (axes, an exclude, a constraint) and its planted faults.
    struct System {
        var matrix: MatrixFile
        var faults: [Fault]
        var generator: FollowUpGenerator
    }


    /// What a session's record says about a miss: the combinations it kept in a follow-up, those it retracted, and
    /// whether it stopped on its budget.
    struct Diagnosis {
        var tried: Set<Combination>
        var intermittentTries: [Combination: Int] = [:]
        /// Follow-ups by kind: repeats of flaky jobs, samples around failing configurations, intermittent trials,
        /// deterministic trials (and narrowings), probes of second faults.
        var spending = (repeats: 0, samples: 0, intermittent: 0, deterministic: 0, probes: 0)
        var retracted: Set<Combination>
        var budgetSpent: Bool
    }

    /// Runs every setting and prints its lines through `say`.
    static func measure(quick: Bool, say: (String) -> Void) {
        // FLOWMATRIX_BENCH_ISOLATE_SYSTEMS lowers the 100 systems per setting.
        let env = ProcessInfo.processInfo.environment
        let systems = quick ? 4 : Int(env["FLOWMATRIX_BENCH_ISOLATE_SYSTEMS"] ?? "") ?? 100
        let strengths = (env["FLOWMATRIX_BENCH_ISOLATE_STRENGTHS"] ?? "2,3").split(separator: ",").compactMap { Int($0) }
        // FLOWMATRIX_BENCH_ISOLATE_SIZES=3 runs the three-value fault settings only.
        let sizes = (env["FLOWMATRIX_BENCH_ISOLATE_SIZES"] ?? "1,2,3").split(separator: ",").compactMap { Int($0) }
        // FLOWMATRIX_BENCH_ISOLATE_SEED_OFFSET moves every system's seed: other systems, to check a change is not
        // tuned to the usual ones.
        let offset = UInt64(env["FLOWMATRIX_BENCH_ISOLATE_SEED_OFFSET"] ?? "") ?? 0
        // FLOWMATRIX_BENCH_ISOLATE_BUDGET=40 gives isolate 40 % of the plan's jobs in place of the CLI's default 20 %:
        // how recall grows with the budget (docs/ISOLATE.md, "What a flaky fault costs").
        let budget = min(1_000, max(1, Int(env["FLOWMATRIX_BENCH_ISOLATE_BUDGET"] ?? "") ?? 20))
        // FLOWMATRIX_BENCH_ISOLATE_CTW=<dir> runs isolate on the CTWedge models BEN's published figures come from
        // instead (CTWBench.swift).
        if let directory = env["FLOWMATRIX_BENCH_ISOLATE_CTW"] {
            CTWBench.measure(directory: directory, say: say)
            say("published BEN figures: " + publishedBEN)
            return
        }
        say("== bench isolate: \(systems) seeded systems per setting (\(quick ? "6 axes of 2–4" : "8–12 axes of 2–10")"
            + " values, an exclude and a constraint; 2–3 planted faults, some overlapping, about one in five flaky; retries 1)")
        for strength in strengths {
            for size in sizes {
                let started = Date()
                var ours = IsolateScore(), ofot = IsolateScore(), exhaustive = IsolateScore()
                var exhaustiveJobs = 0.0, exhaustiveSkipped = 0
                // The systems run in parallel; each is scored in order, so the lines do not depend on the cores.
                let runs = parallelMap(0..<systems) { n in
                    run(seed: UInt64(strength * 1_000_000 + size * 10_000 + n) &+ offset, strength: strength, size: size, quick: quick,
                        budget: budget)
                }
                for r in runs {
                    let system = r.system
                    ours.add(planted: system.faults, found: r.ours.found, followUps: r.ours.spent, planJobs: r.planJobs,
                             exposedBy: r.source, diagnosis: r.ours.diagnosis, system: r.seed,
                             unidentifiable: system.unidentifiable, failsEverywhere: system.failsEverywhere)
                    ofot.add(planted: system.faults, found: r.ofot.found, followUps: r.ofot.spent, planJobs: r.planJobs,
                             exposedBy: r.source, failsEverywhere: system.failsEverywhere)
                    exhaustiveJobs += r.extraJobsPerFault
                    if let all = r.exhaustive {
                        exhaustive.add(planted: system.faults, found: all.found, followUps: all.jobs - r.planJobs,
                                       planJobs: r.planJobs, exposedBy: r.source, failsEverywhere: system.failsEverywhere)
                    } else {
                        exhaustiveSkipped += 1
                    }
                }
                say("\(strength)-wise plan, \(size)-value faults (" + String(format: "%.0f s", Date().timeIntervalSince(started)) + "):")
                say("  flowmatrix isolate (budget \(budget) %)  " + ours.line)
                say("    " + ours.detail)
                say("    " + ours.identifiable)
                say("    a found part of a planted fault that fails wherever the matrix allows it counted as that fault: "
                    + ours.partLine + "; one-factor-at-a-time " + ofot.partLine + "; exhaustive " + exhaustive.partLine)
                if env["FLOWMATRIX_BENCH_ISOLATE_VERBOSE"] != nil { for m in ours.misses { say("      " + m) } }
                say("  one-factor-at-a-time              " + ofot.line)
                say("  exhaustive (spaces ≤ limit)       " + exhaustive.line + "; \(exhaustiveSkipped) spaces too large to"
                    + " run, mean " + String(format: "%.0f", exhaustiveJobs / Double(systems)) + " extra jobs per fault over all")
            }
        }
        say("published BEN figures: " + publishedBEN)
    }

    /// One system of a setting, run by the three methods in turn on one oracle (so its draws are the same on every run).
    struct SystemRun: Sendable {
        var seed: UInt64
        var system: System
        var planJobs: Int
        var source: [Observation]
        var ours: (found: [Combination], spent: Int, diagnosis: Diagnosis)
        var ofot: (found: [Combination], spent: Int)
        /// Nil when the space is too large to run.
        var exhaustive: (found: [Combination], jobs: Int)?
        /// The jobs exhaustive testing adds to the plan, per fault, counted for every space.
        var extraJobsPerFault: Double
    }

    static func run(seed: UInt64, strength: Int, size: Int, quick: Bool, budget: Int = 20) -> SystemRun {
        let system = makeSystem(seed: seed, faultSize: size, quick: quick)
        var matrix = system.matrix
        matrix.reduction = .tWise(strength)
        let plan = matrix.plan(scenarios: [], settings: planSettings).configurations.map(\.values)
        var oracle = Oracle(system: system, seed: seed)
        let source = plan.map { oracle.observe($0, followUp: false) }
        let ours = isolate(system, source: source, strength: strength, budget: budget, oracle: &oracle, seed: seed)
        let ofot = oneFactorAtATime(system, source: source, oracle: &oracle)
        let space = Double(MatrixSpace(system.matrix).countStages()?.afterConstraints.uint64 ?? UInt64.max)
        let exhaustive = exhaustiveFaults(system, maxSize: strength + 1, oracle: &oracle, limit: quick ? 2_000 : 6_000)
        return SystemRun(seed: seed, system: system, planJobs: plan.count, source: source, ours: ours, ofot: ofot,
                         exhaustive: exhaustive,
                         extraJobsPerFault: max(0, space - Double(plan.count)) / Double(max(1, system.faults.count)))
    }

    /// `transform` of each element, on every core (FLOWMATRIX_BENCH_ISOLATE_THREADS=1 runs them one by one), in order.
    static func parallelMap<T: Sendable>(_ range: Range<Int>, _ transform: @Sendable (Int) -> T) -> [T] {
        let env = ProcessInfo.processInfo.environment
        let threads = max(1, Int(env["FLOWMATRIX_BENCH_ISOLATE_THREADS"] ?? "") ?? ProcessInfo.processInfo.activeProcessorCount)
        let results = Mutex<[Int: T]>([:])
        let next = Atomic<Int>(range.lowerBound)
        DispatchQueue.concurrentPerform(iterations: min(threads, range.count)) { _ in
            while true {
                let n = next.add(1, ordering: .relaxed).oldValue
                guard n < range.upperBound else { return }
                let r = transform(n)
                results.withLock { $0[n] = r }
            }
        }
        return results.withLock { all in range.map { all[$0]! } }
    }

    /// One greedy covering-array run without restarts or row deletion: the plans are a little larger than
    /// `flowmatrix plan`'s, and 600 of them are built in minutes rather than hours.
    static var planSettings: PlanSettings {
        var settings = PlanSettings()
        settings.coveringArray.maximumRestarts = 1
        settings.coveringArray.optimizationPasses = 0
        settings.coveringArray.candidates = 20
        return settings
    }

    /// BEN's published figures (docs/ISOLATE.md, "Measured against the research"): quoted, not measured here.
    static let publishedBEN = "BEN as run by Arcaini, Gargantini, Radavelli for 'Efficient and Guaranteed Detection of"
        + " t-way Failure-inducing Combinations' (IWCT 2019), from the run log they published with it (github.com/fmselab/"
        + "mixtgte, logs/logsFinal.csv: 130 BEN runs, 13 benchmarks of 3–13 parameters with 1–4 deterministic failure-"
        + "inducing combinations of 1–4 values, 10 runs each; averaged per benchmark, then over benchmarks, as their"
        + " stats.R does): precision 45.8 %, recall 44.9 %, 6.9 new tests on initial test sets of 19.3 (follow-ups 36 %"
        + " of the plan), one BEN cycle of at most 10 new tests. Their systems, initial sets and budget are not these:"
        + " the figures are quoted beside ours, not measured in this sitting. BEN's method was read from coffee4j's Ben class."
}
