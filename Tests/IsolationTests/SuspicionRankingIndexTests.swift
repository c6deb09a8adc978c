import Isolation
import MatrixPlan
import Testing

/// The ranking's candidates, counts and per-configuration suspects, found through bitsets of the configurations
/// holding each value and through each configuration's sub-combinations, against the definitions computed the slow way.
@Suite("Isolation: the ranking's indexes")
struct SuspicionRankingIndexTests {
    static func randomConfigurations(_ rng: inout SplitMix64, count: Int, axes: Int, values: Int) -> [[String: String]] {
        (0..<count).map { _ in
            Dictionary(uniqueKeysWithValues: (0..<axes).map { ("a\($0)", "v\(rng.below(values))") })
        }
    }

    @Test("candidates, failing counts and a configuration's suspects match their definitions", arguments: [1, 2, 3])
    func matchesDefinitions(maxSize: Int) {
        var rng = SplitMix64(seed: UInt64(40 + maxSize))
        // 130 passing configurations: more than 64, so the bitsets span several words.
        let passing = Self.randomConfigurations(&rng, count: 130, axes: 7, values: 3)
        // Failing ones may hold v3, which no passing one does, so every size has candidates.
        let failing = Self.randomConfigurations(&rng, count: 12, axes: 7, values: 4)
        let from = Array(failing.prefix(8))
        let ranking = SuspicionRanking(candidatesFrom: from, failing: failing, passing: passing, maxSize: maxSize)

        let seen = Set(passing.flatMap { Combination.subsets(of: $0, maxSize: maxSize) })
        let expected = Set(from.flatMap { Combination.subsets(of: $0, maxSize: maxSize) }).subtracting(seen)
        #expect(ranking.live == expected)
        #expect(!expected.isEmpty)
        // From pairs on, there are more candidates than sub-combinations of a 7-value configuration, so its suspects
        // are found through those (with single values, by filtering the candidates): both ways are checked.
        let subCombinations = [7, 7 + 21, 7 + 21 + 35][maxSize - 1]
        if maxSize >= 2 { #expect(ranking.suspects.count > subCombinations) }
        for c in expected {
            #expect(ranking.failingCount(c) == failing.filter { c.isContained(in: $0) }.count)
        }
        // Whole configurations (fewer sub-combinations than candidates, or more) and parts of one.
        for configuration in failing + passing.prefix(20) + [Dictionary(uniqueKeysWithValues: failing[0].prefix(3).map { ($0.key, $0.value) })] {
            let slow = ranking.suspects.filter { $0.combination.isContained(in: configuration) }
            #expect(ranking.suspects(in: configuration) == slow)
        }
    }
}
