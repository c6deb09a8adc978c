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
        guard tied.count > (failing.count >= manyValues ? above : aboveInFewValues) else { return nil }
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

    /// In a configuration of ``manyValues`` values or more, narrowing starts at three tied candidates: trying three one
    /// by one costs up to three follow-ups, a narrowing at most two. Measured (`bench isolate`, pairwise plans of 8–12
    /// axes, 100 systems, three seed sets): with 2 instead of 4, three-value faults are found 4–6 points more often
    /// with fewer follow-ups, two-value faults 0.4–0.8 points less often; 1 instead of 2 lost on every setting.
    public static let above = 2
    /// In a smaller configuration it starts at five, as before: on the shipped nightly (five axes, a flaky network)
    /// narrowing from three confirmed 79–84 combinations against 88, and lost `locale=de + window=narrow-landscape`
    /// in both scenarios of that planted defect, on each of three seeds (docs/ISOLATE.md, "6 December 2026, evening").
    public static let aboveInFewValues = 4
    /// A configuration with at least this many values narrows from ``above``; a smaller one from ``aboveInFewValues``.
    public static let manyValues = 8
}
