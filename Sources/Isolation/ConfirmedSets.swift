extension IsolationRecord.Confirmed {
    /// What two confirmations must share to be one with a set of values: the subject, the kind, and every axis value
    /// but the merged axis's.
    private struct Frame: Hashable {
        var subject: Subject
        var intermittent: Bool
        var rest: [String: [String]]
    }

    /// Confirmations of one subject and kind (deterministic or intermittent) that differ only in one axis's values,
    /// as one confirmation with that axis's values as a set; again until none do (axes in name order, so the same
    /// confirmations give the same lines). `pseudo-double + narrow-portrait + locale=de` and `… + locale=fr` are
    /// `locale ∈ {de, fr}`, and with the same two for `tall-narrow`, `window ∈ {narrow-portrait, tall-narrow}` too:
    /// a set of confirmations that fills such a box, each of its combinations confirmed on its own. The follow-up
    /// jobs are the members' together, each once; the first member's place is kept.
    public static func merged(_ confirmed: [Self]) -> [Self] {
        var out = confirmed
        var changed = true
        while changed {
            changed = false
            for axis in Set(out.flatMap(\.combination.keys)).sorted() {
                var merged: [Self] = []
                var place: [Frame: Int] = [:]
                for c in out {
                    guard c.combination[axis] != nil else { merged.append(c); continue }
                    var rest = c.combination
                    rest[axis] = nil
                    let frame = Frame(subject: c.subject, intermittent: c.intermittent == true, rest: rest)
                    guard let i = place[frame] else { place[frame] = merged.count; merged.append(c); continue }
                    merged[i].absorb(c, on: axis)
                    changed = true
                }
                out = merged
            }
        }
        return out
    }

    /// Takes in `other`, which differs from this one in `axis`'s values only.
    private mutating func absorb(_ other: Self, on axis: String) {
        combination[axis] = Array(Set(combination[axis] ?? []).union(other.combination[axis] ?? [])).sorted()
        var seen = Set(jobs)
        jobs += other.jobs.filter { seen.insert($0).inserted }
        // A job that decided two members (it cleared a part both share) counts once.
        followUps = jobs.count
    }
}
