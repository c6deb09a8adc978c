import MatrixPlan
@testable import Reports
import Testing

@Suite("Pivot group counts")
struct PivotGroupCountsTests {
    @Test("the table holds what a Dictionary would: adds, lookups, growth, keys, iteration and filter", arguments: [1, 2, 3])
    func sameAsDictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = PivotGroupCounts(capacity: 4)
        var reference: [AxisPivot.Key: AxisPivot.Tally] = [:]
        // Keys of one, two and three ids from a small range, so most are added to many times; negative tallies too
        // (a pass that takes jobs out adds them).
        for _ in 0..<20_000 {
            let a = Int32(random.next() % 40), b = Int32(random.next() % 41) - 1, c = b < 0 ? -1 : Int32(random.next() % 41) - 1
            let key = AxisPivot.Key(a: a, b: b, c: c)
            let sign = random.next() % 5 == 0 ? -1 : 1
            let t = AxisPivot.Tally(jobs: sign, failures: sign * Int(random.next() % 2), flaky: sign * Int(random.next() % 2))
            table.add(t, to: key)
            reference[key, default: AxisPivot.Tally()].add(t)
        }
        #expect(table.count == reference.count)
        for (key, t) in reference {
            #expect(table[key].map { [$0.jobs, $0.failures, $0.flaky] } == [t.jobs, t.failures, t.flaky])
        }
        #expect(table[AxisPivot.Key(a: 1_000)] == nil)
        #expect(Set(table.keys) == Set(reference.keys))
        var seen = 0
        for (key, t) in table {
            seen += 1
            #expect(reference[key]?.jobs == t.jobs)
        }
        #expect(seen == reference.count)
        let failing = table.filter { $0.value.failures > 0 }
        #expect(Set(failing.map(\.key)) == Set(reference.filter { $0.value.failures > 0 }.keys))
    }

    @Test("an empty table has no groups")
    func empty() {
        let table = PivotGroupCounts()
        #expect(table.count == 0)
        #expect(table.keys.isEmpty)
        #expect(table[AxisPivot.Key(a: 0)] == nil)
        #expect(Array(table).isEmpty)
    }
}
