/// Intermittent confirmations that share all but one value (pure; docs/ISOLATE.md, "The algorithm", step 11): a flaky
/// pair whose failing jobs happened to hold one of two third values was confirmed as the two triples. The jobs favour
/// the triples — the pair's jobs without either third value passed — so only a follow-up tells them apart: with every
/// failure explained and budget left, the shared part is tried as an intermittent suspect, its follow-ups moving the
/// failing jobs' other values (``IsolationEvidence/confounding(_:subject:in:)``). One that fails holding neither
/// triple confirms the part, and the confirmations that hold it are dropped (``superseded(_:by:)``); passing ones
/// leave the triples as they were.
enum SharedParts {
    /// The parts to try: of two intermittent confirmations of the same size (two values or more) that share all but one
    /// value, that shared part, when `untried` allows it and it is no confirmation; each once, in order.
    static func next(intermittent confirmed: [Combination], untried: (Combination) -> Bool) -> [Combination] {
        var out: [Combination] = []
        for (i, a) in confirmed.enumerated() where a.count > 1 {
            for b in confirmed[(i + 1)...] where b.count == a.count {
                let part = Combination(sorted: a.pairs.filter { b.pairs.contains($0) })
                guard part.count == a.count - 1, !confirmed.contains(part), !out.contains(part), untried(part) else { continue }
                out.append(part)
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
