import FlowMatrixCLI
import Foundation
import Isolation
import MatrixPlan

/// `flowmatrix bench isolate`: how well `flowmatrix isolate` finds planted failure-inducing combinations, beside
/// exhaustive testing and one-factor-at-a-time, on seeded synthetic systems (docs/ISOLATE.md, "Measured").
enum IsolateBench {
    static let suite = BenchSuite(
        name: "isolate",
        overview: "Failure isolation: recall, precision, follow-ups per fault vs exhaustive and one-factor-at-a-time.",
        run: { quick in run(quick: quick) }
    )

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

    /// Per method and setting: planted, found, correct, follow-up jobs, initial plan jobs.
    struct Score {
        var planted = 0, found = 0, correct = 0, followUps = 0, planJobs = 0, systems = 0

        mutating func add(planted faults: [Fault], found: [Combination], followUps: Int, planJobs: Int) {
            let truth = Set(faults.map(\.combination))
            let distinct = Set(found)
            planted += truth.count
            self.found += distinct.count
            correct += distinct.intersection(truth).count
            self.followUps += followUps
            self.planJobs += planJobs
            systems += 1
        }

        var line: String {
            func pct(_ a: Int, _ b: Int) -> String { b == 0 ? "-" : String(format: "%5.1f %%", 100 * Double(a) / Double(b)) }
            return "recall \(pct(correct, planted))  precision \(pct(correct, found))  follow-ups/fault "
                + String(format: "%7.1f", Double(followUps) / Double(max(1, planted)))
                + "  follow-ups/plan \(pct(followUps, planJobs))  (\(systems) systems)"
        }
    }

    static func run(quick: Bool) {
        // FLOWMATRIX_BENCH_ISOLATE_SYSTEMS lowers the 100 systems per setting (a debug build takes minutes per 10).
        let systems = quick ? 4 : Int(ProcessInfo.processInfo.environment["FLOWMATRIX_BENCH_ISOLATE_SYSTEMS"] ?? "") ?? 100
        FlowMatrixCLI.say("== bench isolate: \(systems) seeded systems per setting (\(quick ? "6 axes of 2–4" : "8–12 axes of 2–10")"
            + " values, an exclude and a constraint; 2–3 planted faults, some overlapping, about one in five flaky; retries 1)")
        for strength in [2, 3] {
            for size in [1, 2, 3] {
                var ours = Score(), ofot = Score(), exhaustive = Score()
                var exhaustiveJobs = 0.0, exhaustiveSkipped = 0
                for n in 0..<systems {
                    let seed = UInt64(strength * 1_000_000 + size * 10_000 + n)
                    let system = makeSystem(seed: seed, faultSize: size, quick: quick)
                    var matrix = system.matrix
                    matrix.reduction = .tWise(strength)
                    let plan = matrix.plan(scenarios: [], settings: planSettings).configurations.map(\.values)
                    var oracle = Oracle(system: system, seed: seed)
                    let source = plan.map { oracle.observe($0, followUp: false) }
                    let (found, spent) = isolate(system, source: source, strength: strength, oracle: &oracle, seed: seed)
                    ours.add(planted: system.faults, found: found, followUps: spent, planJobs: plan.count)
                    let (ofotFound, ofotSpent) = oneFactorAtATime(system, source: source, oracle: &oracle)
                    ofot.add(planted: system.faults, found: ofotFound, followUps: ofotSpent, planJobs: plan.count)
                    let space = Double(MatrixSpace(system.matrix).countStages()?.afterConstraints.uint64 ?? UInt64.max)
                    exhaustiveJobs += max(0, space - Double(plan.count)) / Double(max(1, system.faults.count))
                    if let all = exhaustiveFaults(system, maxSize: strength + 1, oracle: &oracle, limit: quick ? 2_000 : 6_000) {
                        exhaustive.add(planted: system.faults, found: all.found, followUps: all.jobs - plan.count,
                                       planJobs: plan.count)
                    } else {
                        exhaustiveSkipped += 1
                    }
                }
                FlowMatrixCLI.say("\(strength)-wise plan, \(size)-value faults:")
                FlowMatrixCLI.say("  flowmatrix isolate (budget 20 %)  " + ours.line)
                FlowMatrixCLI.say("  one-factor-at-a-time              " + ofot.line)
                FlowMatrixCLI.say("  exhaustive (spaces ≤ limit)       " + exhaustive.line + "; \(exhaustiveSkipped) spaces too large to"
                    + " run, mean " + String(format: "%.0f", exhaustiveJobs / Double(systems)) + " extra jobs per fault over all")
            }
        }
        print("published BEN figures: " + publishedBEN)
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

    /// What the literature search found about BEN's own figures (docs/ISOLATE.md, "Measured against the research").
    static let publishedBEN = "none quoted: the BEN papers found (Ghandehari et al., 'Identifying failure-inducing"
        + " combinations in a combinatorial test set', ICST 2012; 'A combinatorial testing-based approach to fault"
        + " localization', IEEE TSE 2018) could not be read for their tables here, so no figure is given rather than one"
        + " invented."
}
