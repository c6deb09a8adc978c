import Foundation
import Isolation
import Testing

/// `isolation.json`'s confirmations with a set of values on an axis (``IsolationRecord/Confirmed/merged(_:)``).
@Suite("Isolation: confirmations that differ in one axis's value are one, with a set")
struct IsolationConfirmedSetsTests {
    typealias Confirmed = IsolationRecord.Confirmed

    static func confirmed(_ combination: [String: String], scenario: String = "settings", jobs: [String] = [],
                          intermittent: Bool = false) -> Confirmed {
        Confirmed(scenario: scenario, registry: "catalog", test: nil, combination: combination.mapValues { [$0] },
                  followUps: jobs.count, jobs: jobs, intermittent: intermittent ? true : nil)
    }

    /// Each combination a confirmation stands for: the product of its axes' values.
    static func cells(_ c: Confirmed) -> Set<[String: String]> {
        c.combination.keys.sorted().reduce(Set([[String: String]()])) { cells, axis in
            Set(cells.flatMap { cell in (c.combination[axis] ?? []).map { cell.merging([axis: $0]) { $1 } } })
        }
    }

    @Test("a box of four confirmed triples is one line with two sets; its jobs count once")
    func box() {
        let members = [("de", "narrow", ["j1", "j2"]), ("fr", "narrow", ["j2", "j3"]), ("de", "tall", ["j4"]),
                       ("fr", "tall", ["j5"])].map { locale, window, jobs in
            Self.confirmed(["direction": "pseudo-double", "locale": locale, "window": window], jobs: jobs)
        }
        let merged = Confirmed.merged(members)
        #expect(merged.count == 1)
        #expect(merged.first?.combination == ["direction": ["pseudo-double"], "locale": ["de", "fr"], "window": ["narrow", "tall"]])
        #expect(merged.first?.label == "direction=pseudo-double + locale ∈ {de, fr} + window ∈ {narrow, tall}")
        #expect(merged.first?.jobs == ["j1", "j2", "j3", "j4", "j5"] && merged.first?.followUps == 5)
    }

    @Test("never across scenarios, kinds or axes; three of a box's four cells claim no fourth")
    func onlyWhatWasConfirmed() {
        let members = [
            Self.confirmed(["locale": "de", "window": "narrow"]),
            Self.confirmed(["locale": "fr", "window": "narrow"]),
            Self.confirmed(["locale": "de", "window": "tall"]),
            Self.confirmed(["locale": "ja", "window": "narrow"], scenario: "cart"),
            Self.confirmed(["locale": "ar", "window": "narrow"], intermittent: true),
            Self.confirmed(["locale": "he"]),
        ]
        let merged = Confirmed.merged(members)
        #expect(merged.map(\.label) == ["locale ∈ {de, fr} + window=narrow", "locale=de + window=tall",
                                        "locale=ja + window=narrow", "locale=ar + window=narrow", "locale=he"])
        #expect(merged[3].intermittent == true && merged[2].scenario == "cart")
    }

    @Test("merged confirmations stand for exactly the combinations confirmed (seeded random sets)")
    func exactlyTheCells() {
        var seed: UInt64 = 11
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<200 {
            var members: [Confirmed] = []
            var seen = Set<[String: String]>()
            for _ in 0..<(1 + next(20)) {
                var c = ["a": "a\(next(3))", "b": "b\(next(3))"]
                if next(2) == 0 { c["c"] = "c\(next(2))" }
                if seen.insert(c).inserted { members.append(Self.confirmed(c, scenario: next(4) == 0 ? "other" : "settings")) }
            }
            let merged = Confirmed.merged(members)
            for scenario in ["settings", "other"] {
                let before = Set(members.filter { $0.scenario == scenario }.flatMap(Self.cells))
                let after = merged.filter { $0.scenario == scenario }.map(Self.cells)
                #expect(Set(after.flatMap { $0 }) == before)
                // No combination is in two lines.
                #expect(after.reduce(0) { $0 + $1.count } == before.count)
            }
            #expect(merged.count <= members.count)
        }
    }

    @Test("isolation.json merges what the session confirmed: a pair fault on two languages is one line")
    func throughTheSession() throws {
        let matrix = try IsolationSessionTests.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let faults = [Combination(["lang": "ar", "net": "edge"]), Combination(["lang": "de", "net": "edge"])]
        let session = try IsolationSessionTests.isolate(source, faults: faults, budget: source.count)
        #expect(Set(session.confirmed.map(\.combination)) == Set(faults))
        let record = IsolationRecord(source: "s", session: session, runs: [])
        #expect(record.confirmed.map(\.combination) == [["lang": ["ar", "de"], "net": ["edge"]]])
        #expect(record.lines.first?.hasPrefix("confirmed: search fails with lang ∈ {ar, de} + net=edge (") == true, "\(record.lines)")
        let jobs = Set(session.confirmed.flatMap(\.jobs))
        #expect(record.confirmed.first?.followUps == jobs.count)
    }

    @Test("a set of nearly all of an axis's values is written as those it leaves out; the record keeps the matrix's axes")
    func allBut() throws {
        let axes = ["locale": ["ar", "de", "en", "fr", "he", "ja"], "window": ["narrow", "wide", "tall"]]
        let most = Confirmed(scenario: "s", registry: "catalog", test: nil,
                             combination: ["locale": ["ar", "de", "en", "fr"], "window": ["narrow", "tall"]],
                             followUps: 0, jobs: [], intermittent: nil)
        #expect(most.label(axes: axes) == "locale ∉ {he, ja} + window ∉ {wide}")
        // Leaving out more than half as many values as it holds (three locales of six): the set as it is.
        var some = most
        some.combination["locale"] = ["ar", "de", "en"]
        #expect(some.label(axes: axes) == "locale ∈ {ar, de, en} + window ∉ {wide}")
        #expect(most.label == "locale ∈ {ar, de, en, fr} + window ∈ {narrow, tall}")
        // A value the axes do not list, an axis they do not name: the set as it is.
        var half = most
        half.combination = ["locale": ["ar", "de", "en"], "window": ["narrow", "wide", "tall", "xl"], "n": ["a", "b"]]
        #expect(half.label(axes: axes) == "locale ∈ {ar, de, en} + n ∈ {a, b} + window ∈ {narrow, wide, tall, xl}")

        let matrix = try IsolationSessionTests.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let faults = ["ar", "de", "en"].map { Combination(["lang": $0, "net": "edge"]) }
        let session = try IsolationSessionTests.isolate(source, faults: faults, budget: source.count)
        #expect(Set(session.confirmed.map(\.combination)) == Set(faults))
        let record = IsolationRecord(source: "s", session: session, runs: [])
        #expect(record.axes?["lang"] == ["en", "de", "ar", "ja"] && record.axes?.count == 4)
        #expect(record.lines.first?.hasPrefix("confirmed: search fails with lang ∉ {ja} + net=edge (") == true, "\(record.lines)")
        // Written and read back; a record written before the field existed reads, and writes the set as it is.
        let data = try JSONEncoder().encode(record)
        #expect(try JSONDecoder().decode(IsolationRecord.self, from: data) == record)
        var older = record
        older.axes = nil
        #expect(older.lines.first?.hasPrefix("confirmed: search fails with lang ∈ {ar, de, en} + net=edge (") == true, "\(older.lines)")
    }
}
