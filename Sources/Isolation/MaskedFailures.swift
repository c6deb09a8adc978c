/// Failures of an intermittent suspect that a deterministic confirmation masks (docs/ISOLATE.md, "The algorithm",
/// step 4).
///
/// A job a confirmed combination explains is left out of every tally: its failure is the confirmation's. Where a
/// deterministic confirmation and a flaky combination that share a value were run together (a 3-wise plan holds each
/// three values in several jobs), the confirmation explains most of the flaky combination's failing jobs, and what is left of them may fail less than the suspect share by chance: the
/// flaky combination is then no suspect, and a larger one holding it, whose own few jobs happened to fail, was tried
/// and confirmed in its place. The masked jobs do not contradict it, so for a combination that is no suspect on its
/// own jobs, but whose own jobs show intermittency and failed at least ``IsolationEvidence/minimumFailing`` times,
/// they count as its failures. (A combination that is a suspect on its own jobs gains nothing: masked jobs would only
/// raise a larger combination's share above its parts'.)
extension IsolationEvidence {
    /// Whether the rules for overlapping faults apply: masked failures, tallies taken after a decision's confirmations,
    /// and a suspect of two failing jobs passed over for its part (docs/ISOLATE.md, "The algorithm", step 4). They
    /// apply where candidates have four values (a 3-wise plan, which runs overlapping combinations together in most of
    /// their jobs); on pairwise plans they lost as much as they gained (docs/ISOLATE-FIGURES.md, "Figures of 6 December 2026,
    /// morning"), and those plans are left as they were.
    static func overlapRules(candidates maxSize: Int) -> Bool { maxSize > 3 }

    /// Counts, in `tallies`, the failing jobs that only deterministic confirmations explain (none of them held by the
    /// combination, nor a part of one: a deterministic fault fails every job that holds it, so its jobs say nothing of
    /// its parts) for every combination that is no suspect on its own (unexplained) jobs, whose own jobs show
    /// intermittency and failed at least ``minimumFailing`` times.
    /// - Parameters:
    ///   - jobs: the jobs the tallies were made of.
    ///   - explained: every confirmed combination; `deterministic`, those confirmed as deterministic.
    static func addMasked(to tallies: inout [Combination: Tally], jobs: [(configuration: [String: String], verdict: Verdict)],
                          explained: [Combination], deterministic: Set<Combination>, size: Int)
    {
        var masked: [Combination: Int] = [:]
        for job in jobs where job.verdict != .passed {
            let by = explained.filter { $0.isContained(in: job.configuration) }
            guard !by.isEmpty, by.allSatisfy(deterministic.contains) else { continue }
            for c in Combination.subsets(of: job.configuration, maxSize: size)
            where !by.contains(where: { $0.isSubset(of: c) || c.isSubset(of: $0) }) {
                masked[c, default: 0] += 1
            }
        }
        for (c, n) in masked {
            guard let t = tallies[c], t.intermittent > 0, t.failing >= minimumFailing, !suspicious(t) else { continue }
            tallies[c]?.failing += n
        }
    }
}
