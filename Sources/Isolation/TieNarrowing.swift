/// Narrowing ties between candidates (pure; docs/ISOLATE.md, "The algorithm", step 5): one follow-up that keeps
/// part of a failing configuration decides for about half of its tied candidates at once, like delta debugging.
public enum TieNarrowing {
    /// When more than `above` candidates of a failing configuration tie at the top (as many failing
    /// configurations, as many values), one follow-up that keeps only part of its values decides for about half of
    /// them at once: if it passes, it clears those it keeps; if it fails, the moved axes play no part and the
    /// candidates it kept rank first. The moved axes are those touching most of the tied candidates, until half are
    /// touched (never an axis they all hold). Nil when few candidates tie.
    public static func keep(_ failing: [String: String], _ suspects: [SuspicionRanking.Suspect]) -> Combination? {
        guard let top = suspects.first else { return nil }
        let tied = suspects.prefix { $0.failing == top.failing && $0.combination.count == top.combination.count }.map(\.combination)
        guard tied.count > above else { return nil }
        // Axes every tied candidate holds stay (moving them would decide nothing between the candidates).
        let required = Set(tied[0].pairs.map(\.axis).filter { axis in tied.allSatisfy { $0[axis: axis] != nil } })
        var moved = Set<String>()
        var touched = 0
        while touched * 2 < tied.count {
            let untouched = tied.filter { c in !c.pairs.contains { moved.contains($0.axis) } }
            var counts: [String: Int] = [:]
            for c in untouched { for p in c.pairs where !required.contains(p.axis) { counts[p.axis, default: 0] += 1 } }
            guard let axis = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key })?.key else { break }
            moved.insert(axis)
            touched = tied.count - tied.filter { c in !c.pairs.contains { moved.contains($0.axis) } }.count
        }
        let keep = failing.filter { !moved.contains($0.key) }
        return moved.isEmpty || keep.isEmpty ? nil : Combination(keep)
    }

    /// Narrowing starts at three tied candidates: trying three one by one costs up to three follow-ups, a narrowing
    /// at most two. Measured (`bench isolate`, pairwise plans, 100 systems, three seed sets): with 2 instead of 4,
    /// three-value faults are found 4–6 points more often with fewer follow-ups, two-value faults 0.4–0.8 points
    /// less often; 1 instead of 2 lost on every setting (docs/ISOLATE.md, "6 December 2026, evening").
    public static let above = 2
}
