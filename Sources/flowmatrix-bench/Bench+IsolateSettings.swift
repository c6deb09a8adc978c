import Foundation
import Isolation
import MatrixPlan

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

    /// Per method and setting: planted (and exposed by the plan), found, correct, follow-up jobs, initial plan jobs;
    /// what was missed and what was wrongly confirmed, by kind.
    struct Score {
        var planted = 0, exposed = 0, found = 0, correct = 0, correctExposed = 0, followUps = 0, planJobs = 0, systems = 0
        var missedFlaky = 0, missedUnexposed = 0, missedOther = 0
        /// Exposed flaky faults, and those found: recall of exposed faults split by kind.
        var exposedFlaky = 0, correctExposedFlaky = 0
        /// Exposed faults no experiment can identify (``System/unidentifiable``), and those found all the same.
        var exposedCovering = 0, correctExposedCovering = 0
        /// The same recall and precision when a found part of a planted fault that fails in every configuration the
        /// matrix allows (``System/failsEverywhere(_:)``) counts as that fault: planted faults (and exposed ones) found
        /// so, found combinations right so.
        var recalledPart = 0, recalledPartExposed = 0, correctPart = 0
        /// `isolate`'s misses of exposed faults by cause (``Diagnosis``).
        var missedNeverSuspected = 0, missedBudget = 0, missedRetracted = 0, missedMasked = 0
        /// One line per missed exposed fault (printed with FLOWMATRIX_BENCH_ISOLATE_VERBOSE=1).
        var misses: [String] = []
        var wrongSuperset = 0, wrongSubset = 0, wrongOther = 0

        /// - Parameter exposedBy: the source run's jobs: a fault is exposed when a job holding it did not pass.
        mutating func add(planted faults: [Fault], found: [Combination], followUps: Int, planJobs: Int, exposedBy source: [Observation],
                          diagnosis: Diagnosis? = nil, system: UInt64? = nil, unidentifiable: Set<Combination> = [],
                          failsEverywhere: (Combination) -> Bool = { _ in false }) {
            let truth = Set(faults.map(\.combination))
            let distinct = Set(found)
            let shown = Set(faults.map(\.combination).filter { c in
                source.contains { $0.verdict != .passed && c.isContained(in: $0.configuration) }
            })
            planted += truth.count
            exposed += shown.count
            self.found += distinct.count
            correct += distinct.intersection(truth).count
            correctExposed += distinct.intersection(shown).count
            let shownFlaky = Set(faults.filter { $0.flaky && shown.contains($0.combination) }.map(\.combination))
            exposedFlaky += shownFlaky.count
            correctExposedFlaky += distinct.intersection(shownFlaky).count
            exposedCovering += shown.intersection(unidentifiable).count
            correctExposedCovering += distinct.intersection(shown).intersection(unidentifiable).count
            for fault in faults where !distinct.contains(fault.combination) {
                if !shown.contains(fault.combination) { missedUnexposed += 1; continue }
                // Why an exposed fault was missed, first cause that applies (the session's own record).
                let masked = source.filter { $0.verdict != .passed && fault.combination.isContained(in: $0.configuration) }
                    .allSatisfy { o in distinct.contains { $0 != fault.combination && $0.isContained(in: o.configuration) } }
                let cause: String
                if let d = diagnosis, d.retracted.contains(fault.combination) { missedRetracted += 1; cause = "wrongly retracted" }
                else if diagnosis != nil, masked { missedMasked += 1; cause = "masked" }
                else if fault.flaky {
                    missedFlaky += 1
                    let tries = diagnosis?.intermittentTries[fault.combination] ?? 0
                    cause = "flaky never confirmed (\(tries == 0 ? "never tried" : "tried \(tries)×") as intermittent"
                        + "\(diagnosis.map { d in d.budgetSpent ? ", budget spent: \(d.spending.repeats) repeats, \(d.spending.intermittent) intermittent, \(d.spending.deterministic) deterministic" : "" } ?? ""))"
                }
                else if let d = diagnosis, !d.tried.contains(fault.combination) && !d.budgetSpent {
                    missedNeverSuspected += 1; cause = "never suspected"
                }
                else if let d = diagnosis, d.budgetSpent { missedBudget += 1; cause = "budget exhausted" }
                else { missedOther += 1; cause = "other" }
                misses.append("\(fault.combination)\(fault.flaky ? " (flaky)" : ""): \(cause)"
                    + (unidentifiable.contains(fault.combination)
                        ? " (with the other faults it holds every configuration: no experiment tells it apart)" : "")
                    + "; found \(found.map(\.description))"
                    + (system.map { " [system \($0)]" } ?? ""))
            }
            let parts = Set(distinct.subtracting(truth).filter { c in truth.contains { c.isSubset(of: $0) } && failsEverywhere(c) })
            correctPart += distinct.intersection(truth).count + parts.count
            for fault in truth where distinct.contains(fault) || parts.contains(where: { $0.isSubset(of: fault) }) {
                recalledPart += 1
                if shown.contains(fault) { recalledPartExposed += 1 }
            }
            for c in distinct.subtracting(truth) {
                if truth.contains(where: { $0.isSubset(of: c) }) { wrongSuperset += 1 }
                else if truth.contains(where: { c.isSubset(of: $0) }) { wrongSubset += 1 } else { wrongOther += 1 }
            }
            self.followUps += followUps
            self.planJobs += planJobs
            systems += 1
        }

        static func pct(_ a: Int, _ b: Int) -> String { b == 0 ? "    -  " : String(format: "%5.1f %%", 100 * Double(a) / Double(b)) }

        var line: String {
            "recall \(Self.pct(correct, planted)) (of exposed \(Self.pct(correctExposed, exposed)))  precision \(Self.pct(correct, found))"
                + "  follow-ups/fault " + String(format: "%6.1f", Double(followUps) / Double(max(1, planted)))
                + "  follow-ups/plan \(Self.pct(followUps, planJobs))  (\(systems) systems)"
        }

        /// The same figures when a found part of a planted fault that fails everywhere counts as that fault.
        var partLine: String {
            "recall \(Self.pct(recalledPart, planted)) (of exposed \(Self.pct(recalledPartExposed, exposed)))"
                + "  precision \(Self.pct(correctPart, found))"
        }

        /// Why faults were missed and what the wrong confirmations were.
        var detail: String {
            "exposed \(exposed) of \(planted), found: deterministic \(correctExposed - correctExposedFlaky) of"
                + " \(exposed - exposedFlaky) (\(Self.pct(correctExposed - correctExposedFlaky, exposed - exposedFlaky))),"
                + " flaky \(correctExposedFlaky) of \(exposedFlaky) (\(Self.pct(correctExposedFlaky, exposedFlaky)));"
                + " missed: \(missedUnexposed) never failed in the plan, \(missedFlaky) flaky never confirmed,"
                + " \(missedNeverSuspected) never suspected, \(missedBudget) budget exhausted, \(missedRetracted) wrongly retracted,"
                + " \(missedMasked) masked by an overlapping fault, \(missedOther) other (tried, nothing left);"
                + " wrong: \(wrongSuperset) supersets of a fault, \(wrongSubset) parts of one, \(wrongOther) unrelated"
        }

        /// Recall of the exposed faults that an experiment can tell apart from a scenario failing everywhere.
        var identifiable: String {
            "\(exposedCovering) exposed faults no experiment can tell from a scenario failing everywhere (\(correctExposedCovering) "
                + "of them found all the same); recall of the other exposed faults "
                + Self.pct(correctExposed - correctExposedCovering, exposed - exposedCovering).trimmingCharacters(in: .whitespaces)
                + " (\(correctExposed - correctExposedCovering) of \(exposed - exposedCovering))"
        }
    }

    /// What a session's record says about a miss: the combinations it kept in a follow-up, those it retracted, and
    /// whether it stopped on its budget.
    struct Diagnosis {
        var tried: Set<Combination>
        var intermittentTries: [Combination: Int] = [:]
        /// Follow-ups by kind: repeats of flaky jobs, intermittent trials, deterministic trials (and narrowings).
        var spending = (repeats: 0, intermittent: 0, deterministic: 0)
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
        say("== bench isolate: \(systems) seeded systems per setting (\(quick ? "6 axes of 2–4" : "8–12 axes of 2–10")"
            + " values, an exclude and a constraint; 2–3 planted faults, some overlapping, about one in five flaky; retries 1)")
        for strength in strengths {
            for size in sizes {
                let started = Date()
                var ours = Score(), ofot = Score(), exhaustive = Score()
                var exhaustiveJobs = 0.0, exhaustiveSkipped = 0
                for n in 0..<systems {
                    let seed = UInt64(strength * 1_000_000 + size * 10_000 + n) &+ offset
                    let system = makeSystem(seed: seed, faultSize: size, quick: quick)
                    var matrix = system.matrix
                    matrix.reduction = .tWise(strength)
                    let plan = matrix.plan(scenarios: [], settings: planSettings).configurations.map(\.values)
                    var oracle = Oracle(system: system, seed: seed)
                    let source = plan.map { oracle.observe($0, followUp: false) }
                    let (found, spent, diagnosis) = isolate(system, source: source, strength: strength, oracle: &oracle, seed: seed)
                    ours.add(planted: system.faults, found: found, followUps: spent, planJobs: plan.count, exposedBy: source,
                             diagnosis: diagnosis, system: seed, unidentifiable: system.unidentifiable,
                             failsEverywhere: system.failsEverywhere)
                    let (ofotFound, ofotSpent) = oneFactorAtATime(system, source: source, oracle: &oracle)
                    ofot.add(planted: system.faults, found: ofotFound, followUps: ofotSpent, planJobs: plan.count, exposedBy: source,
                             failsEverywhere: system.failsEverywhere)
                    let space = Double(MatrixSpace(system.matrix).countStages()?.afterConstraints.uint64 ?? UInt64.max)
                    exhaustiveJobs += max(0, space - Double(plan.count)) / Double(max(1, system.faults.count))
                    if let all = exhaustiveFaults(system, maxSize: strength + 1, oracle: &oracle, limit: quick ? 2_000 : 6_000) {
                        exhaustive.add(planted: system.faults, found: all.found, followUps: all.jobs - plan.count,
                                       planJobs: plan.count, exposedBy: source, failsEverywhere: system.failsEverywhere)
                    } else {
                        exhaustiveSkipped += 1
                    }
                }
                say("\(strength)-wise plan, \(size)-value faults (" + String(format: "%.0f s", Date().timeIntervalSince(started)) + "):")
                say("  flowmatrix isolate (budget 20 %)  " + ours.line)
                say("    " + ours.detail)
                say("    " + ours.identifiable)
                say("    a found part of a planted fault that fails wherever the matrix allows it counted as that fault: "
                    + ours.partLine + "; one-factor-at-a-time " + ofot.partLine + "; exhaustive " + exhaustive.partLine)
                if env["FLOWMATRIX_BENCH_ISOLATE_VERBOSE"] != nil { for m in ours.misses { say("      missed " + m) } }
                say("  one-factor-at-a-time              " + ofot.line)
                say("  exhaustive (spaces ≤ limit)       " + exhaustive.line + "; \(exhaustiveSkipped) spaces too large to"
                    + " run, mean " + String(format: "%.0f", exhaustiveJobs / Double(systems)) + " extra jobs per fault over all")
            }
        }
        say("published BEN figures: " + publishedBEN)
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
    static let publishedBEN = "none quoted: no figure could be found, so none is given rather than one invented."
        + " Searched (5 December 2026): Ghandehari, Lei, Xu, Kacker, Kuhn, Kung, 'Identifying failure-inducing"
        + " combinations in a combinatorial test set', ICST 2012 (no copy of its text found); Ghandehari, Lei, Kacker,"
        + " Kuhn, Xie, Kung, 'A combinatorial testing-based approach to fault localization', IEEE TSE (2018): the copy"
        + " found holds its abstract and introduction, which report the experiment (the Siemens suite and flex, grep,"
        + " gzip, sed from SIR) only in words (BEN localizes the faulty statements effectively and efficiently), no"
        + " number. BEN's method was read from coffee4j's Ben class."
}
