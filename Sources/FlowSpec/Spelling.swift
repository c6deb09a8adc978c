/// "Did you mean" for findings: edit distances between short names and the nearest known one.
public enum Spelling {
    /// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions; short strings only).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The known word nearest to `word` (ignoring case) when it is at most `maximumDistance` edits away and is not
    /// `word` itself; ties go to the earlier word of `known`.
    public static func suggestion(for word: String, among known: some Sequence<String>, maximumDistance: Int = 2) -> String? {
        let lowered = word.lowercased()
        var best: (word: String, distance: Int)?
        for candidate in known where candidate != word {
            let d = distance(lowered, candidate.lowercased())
            if d <= maximumDistance, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.word
    }
}
