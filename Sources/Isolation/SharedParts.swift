/// Parts of intermittent confirmations still to try (pure; docs/ISOLATE.md, "The algorithm", step 11). First the part
/// two confirmations, one of them intermittent at least, share all but one value of: a flaky pair whose failing jobs
/// happened to hold one of two third values was confirmed as the two triples. The jobs favour the triples — the
/// pair's jobs without either third value passed — so only a follow-up tells them apart: with every failure explained
/// and budget left, the shared part is tried as an intermittent suspect, its follow-ups moving the failing jobs' other
/// values (``IsolationEvidence/confounding(_:subject:in:)``). One that fails holding neither triple confirms the part,
/// and the confirmations that hold it are dropped (``superseded(_:by:)``); passing ones leave the triples as they were.
enum SharedParts {
    /// The parts to try: of two confirmations of the same size (two values or more), at least one of them
    /// intermittent, that share all but one value, that shared part, when `untried` allows it and it is no
    /// confirmation; each once, in order. A deterministic one counts too: a flaky value was confirmed as one
    /// deterministic pair (follow-ups that held it failed both attempts, as they do one time in four) and one
    /// intermittent pair (systems 2010050, 2010065, 2011580). Two deterministic ones are two overlapping faults, and
    /// their part is left alone.
    ///
    /// Then, of each intermittent confirmation of two values or more, a part one value smaller that was tried as an
    /// intermittent suspect and has tries left (`begun`): a flaky value whose one follow-up passed was left for its
    /// pair with a value its failing jobs happened to share, which was then confirmed with the budget half unspent
    /// (system 2011544).
    static func next(_ confirmed: [(combination: Combination, intermittent: Bool)], untried: (Combination) -> Bool,
                     begun: (Combination) -> Bool = { _ in false }) -> [Combination] {
        var out: [Combination] = []
        func offer(_ part: Combination) {
            guard !confirmed.contains(where: { $0.combination == part }), !out.contains(part), untried(part) else { return }
            out.append(part)
        }
        for (i, a) in confirmed.enumerated() where a.combination.count > 1 {
            for b in confirmed[(i + 1)...] where b.combination.count == a.combination.count && (a.intermittent || b.intermittent) {
                let part = Combination(sorted: a.combination.pairs.filter { b.combination.pairs.contains($0) })
                if part.count == a.combination.count - 1 { offer(part) }
            }
        }
        for c in confirmed where c.intermittent && c.combination.count > 1 {
            for drop in c.combination.pairs {
                let part = Combination(sorted: c.combination.pairs.filter { $0 != drop })
                if begun(part) { offer(part) }
            }
        }
        return out
    }

    /// Whether confirmation `c` holds a smaller one of the intermittent confirmations `confirmed`: that one explains
    /// every failure `c` does, and `c` adds nothing — a deterministic `c` too, confirmed before it by follow-ups that
    /// held it and failed both attempts, as a flaky fault's do one time in four (system 3030034).
    static func superseded(_ c: Combination, by confirmed: [Combination]) -> Bool {
        confirmed.contains { $0.count < c.count && $0.isSubset(of: c) }
    }
}
