import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// A flaky pair confirmed as two triples (``SharedParts``, docs/ISOLATE.md, "The algorithm", step 11), and what an
/// intermittent suspect's follow-ups move (``FollowUpGenerator``).
@Suite("Isolation: the part two intermittent confirmations share")
struct IsolationSharedPartsTests {
    static func c(_ text: String) -> Combination {
        Combination(Dictionary(uniqueKeysWithValues: text.split(separator: " ").map { pair in
            let kv = pair.split(separator: "=").map(String.init)
            return (kv[0], kv[1])
        }))
    }

    static func intermittent(_ cs: [Combination]) -> [(combination: Combination, intermittent: Bool)] {
        cs.map { ($0, true) }
    }

    @Test("two triples that share a pair give the pair; triples of another size, a part confirmed or tried out do not")
    func parts() {
        let triples = [Self.c("a1=v0 a6=v5 a7=v1"), Self.c("a0=v1 a6=v5 a7=v1")]
        #expect(SharedParts.next(Self.intermittent(triples)) { _ in true } == [Self.c("a6=v5 a7=v1")])
        // Tried out already, or confirmed already.
        #expect(SharedParts.next(Self.intermittent(triples)) { _ in false }.isEmpty)
        #expect(SharedParts.next(Self.intermittent(triples + [Self.c("a6=v5 a7=v1")])) { _ in true }.isEmpty)
        // A triple and a pair, triples that share one value only, single values: nothing.
        #expect(SharedParts.next(Self.intermittent([Self.c("a1=v0 a6=v5 a7=v1"), Self.c("a6=v5 a2=v3")])) { _ in true }.isEmpty)
        #expect(SharedParts.next(Self.intermittent([Self.c("a1=v0 a6=v5 a7=v1"), Self.c("a0=v1 a6=v5 a7=v2")])) { _ in true }.isEmpty)
        #expect(SharedParts.next(Self.intermittent([Self.c("a1=v0"), Self.c("a1=v1")])) { _ in true }.isEmpty)
        // Three triples on one pair: the pair once.
        #expect(SharedParts.next(Self.intermittent(triples + [Self.c("a2=v2 a6=v5 a7=v1")])) { _ in true } == [Self.c("a6=v5 a7=v1")])
        // Two pairs that share a value: the value.
        #expect(SharedParts.next(Self.intermittent([Self.c("d=pd w=w1"), Self.c("d=pd n=lte")])) { _ in true } == [Self.c("d=pd")])
        // One of them deterministic (a flaky value whose follow-ups failed both attempts): the value still; both
        // deterministic (two overlapping faults): nothing.
        #expect(SharedParts.next([(Self.c("d=pd w=w1"), false), (Self.c("d=pd n=lte"), true)]) { _ in true } == [Self.c("d=pd")])
        #expect(SharedParts.next([(Self.c("d=pd w=w1"), false), (Self.c("d=pd n=lte"), false)]) { _ in true }.isEmpty)
    }

    @Test("an intermittent confirmation's part that was tried as a suspect and has tries left is tried again")
    func begunParts() {
        let pair = Self.c("a2=v2 a5=v0")
        let begun: Set<Combination> = [Self.c("a2=v2")]
        #expect(SharedParts.next([(pair, true)], untried: { _ in true }, begun: begun.contains) == [Self.c("a2=v2")])
        // Not when its tries are used up, when it was never tried, or when the confirmation is deterministic.
        #expect(SharedParts.next([(pair, true)], untried: { _ in false }, begun: begun.contains).isEmpty)
        #expect(SharedParts.next([(pair, true)], untried: { _ in true }, begun: { _ in false }).isEmpty)
        #expect(SharedParts.next([(pair, false)], untried: { _ in true }, begun: begun.contains).isEmpty)
        // A shared part comes first, and each part once.
        let shared = SharedParts.next([(pair, true), (Self.c("a2=v2 a7=v1"), true)], untried: { _ in true }, begun: begun.contains)
        #expect(shared == [Self.c("a2=v2")])
        let both = SharedParts.next([(Self.c("a1=v0 a6=v5 a7=v1"), true), (Self.c("a0=v1 a6=v5 a7=v1"), true)], untried: { _ in true },
                                    begun: { $0 == Self.c("a1=v0 a6=v5") })
        #expect(both == [Self.c("a6=v5 a7=v1"), Self.c("a1=v0 a6=v5")])
    }

    @Test("a confirmation that holds a smaller intermittent one is superseded; one that holds none is not")
    func superseded() {
        let pair = Self.c("a6=v5 a7=v1")
        #expect(SharedParts.superseded(Self.c("a1=v0 a6=v5 a7=v1"), by: [pair, Self.c("a1=v0 a6=v5 a7=v1")]))
        #expect(!SharedParts.superseded(pair, by: [pair, Self.c("a1=v0 a6=v5 a7=v1")]))
        #expect(!SharedParts.superseded(Self.c("a1=v0 a6=v5 a7=v2"), by: [pair]))
    }

    @Test("an intermittent suspect's follow-up moves a confounding value an undecided follow-up held after the other confounding ones")
    func confoundingHeldBeforeComesLast() throws {
        let matrix = try IsolationSessionTests.matrix()
        let generator = FollowUpGenerator(matrix: matrix)
        let ranking = SuspicionRanking(candidatesFrom: [], failing: [], passing: [], maxSize: 2)
        let keep = Combination(["net": "edge"])
        // Every language but ja is confounding; de was held by the earlier follow-up, which failed and decided nothing.
        let confounding = ["en", "de", "ar"].map { ["lang": $0, "net": "edge"] }
        let earlier = [["lang": "de", "net": "edge", "size": "wide", "theme": "dark"]]
        for seed in 1...8 as ClosedRange<UInt64> {
            let free = try #require(generator.configuration(keeping: keep, ranking: ranking, maxSize: 2, seed: seed,
                                                            avoiding: earlier, confounding: confounding))
            #expect(free["lang"] == "ja")
            let all = confounding + [["lang": "ja", "net": "edge"]]
            let next = try #require(generator.configuration(keeping: keep, ranking: ranking, maxSize: 2, seed: seed,
                                                            avoiding: earlier, confounding: all, undecided: earlier))
            #expect(next["lang"] != "de", "seed \(seed): \(next)")
        }
    }
}
