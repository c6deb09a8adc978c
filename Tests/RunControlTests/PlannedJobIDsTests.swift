import MatrixPlan
@testable import RunControl
import Testing

@Suite("the history lookup asks the plan's ids without a set of strings")
struct PlannedJobIDsTests {
    @Test("every planned id is found, an id of another job is not, and odd ids are answered too")
    func membership() {
        var rng = SplitMix64(seed: 7)
        let ids = (0..<500).map { _ in
            let hex = String(rng.next(), radix: 16)
            return String(repeating: "0", count: JobIdentity.length - hex.count) + hex
        }
        let planned = PlannedJobIDs(ids.prefix(400) + ["job1"])
        #expect(ids.prefix(400).allSatisfy { planned.contains($0) })
        #expect(!ids.dropFirst(400).contains { planned.contains($0) })
        #expect(planned.contains("job1"), "an id that is not 16 hex digits is still answered")
        #expect(!planned.contains("job2") && !planned.contains("") && !planned.contains("FFFFFFFFFFFFFFFF"))
    }
}
