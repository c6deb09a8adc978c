import Foundation
import Isolation
import MatrixPlan

/// Per method and setting: planted (and exposed by the plan), found, correct, follow-up jobs, initial plan jobs;
/// what was missed and what was wrongly confirmed, by kind.
struct IsolateScore {
    var planted = 0, exposed = 0, found = 0, correct = 0, correctExposed = 0, followUps = 0, planJobs = 0, systems = 0
    var missedFlaky = 0, missedUnexposed = 0, missedOther = 0
    /// Exposed flaky faults, and those found: recall of exposed faults split by kind.
    var exposedFlaky = 0, correctExposedFlaky = 0
    /// Exposed faults no experiment can identify (``IsolateBench/System/unidentifiable``), and those found all the same.
    var exposedCovering = 0, correctExposedCovering = 0
    /// The same recall and precision when a found part of a planted fault that fails in every configuration the
    /// matrix allows (``IsolateBench/System/failsEverywhere(_:)``) counts as that fault: planted faults (and exposed ones) found
    /// so, found combinations right so.
    var recalledPart = 0, recalledPartExposed = 0, correctPart = 0
    /// `isolate`'s misses of exposed faults by cause (``IsolateBench/Diagnosis``).
    var missedNeverSuspected = 0, missedBudget = 0, missedRetracted = 0, missedMasked = 0
    /// One line per missed exposed fault and per wrong confirmation (printed with FLOWMATRIX_BENCH_ISOLATE_VERBOSE=1).
    var misses: [String] = []
    var wrongSuperset = 0, wrongSubset = 0, wrongOther = 0

    /// - Parameter exposedBy: the source run's jobs: a fault is exposed when a job holding it did not pass.
    mutating func add(planted faults: [IsolateBench.Fault], found: [Combination], followUps: Int, planJobs: Int, exposedBy source: [Observation],
                      diagnosis: IsolateBench.Diagnosis? = nil, system: UInt64? = nil, unidentifiable: Set<Combination> = [],
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
                    + "\(diagnosis.map { d in d.budgetSpent ? ", budget spent: \(d.spending.repeats) repeats, \(d.spending.samples) samples, \(d.spending.intermittent) intermittent, \(d.spending.deterministic) deterministic, \(d.spending.probes) probes" : "" } ?? ""))"
            }
            else if let d = diagnosis, !d.tried.contains(fault.combination) && !d.budgetSpent {
                missedNeverSuspected += 1; cause = "never suspected"
            }
            else if let d = diagnosis, d.budgetSpent { missedBudget += 1; cause = "budget exhausted" }
            else { missedOther += 1; cause = "other" }
            misses.append("missed \(fault.combination)\(fault.flaky ? " (flaky)" : ""): \(cause)"
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
        for c in distinct.subtracting(truth).sorted() {
            let kind: String
            if truth.contains(where: { $0.isSubset(of: c) }) { wrongSuperset += 1; kind = "a superset of a fault" }
            else if truth.contains(where: { c.isSubset(of: $0) }) { wrongSubset += 1; kind = "a part of a fault" }
            else { wrongOther += 1; kind = "unrelated" }
            if diagnosis != nil {
                misses.append("wrongly confirmed \(c) (\(kind)); the faults \(faults.map { "\($0.combination)\($0.flaky ? " (flaky)" : "")" })"
                    + (system.map { " [system \($0)]" } ?? ""))
            }
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
