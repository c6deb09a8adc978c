import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// Second faults (docs/ISOLATE.md, "The algorithm", step 9): probes that keep an explained failing configuration but
/// a value of its confirmation.
@Suite("Isolation: second faults")
struct IsolationSecondFaultTests {
    typealias Fixture = IsolationSessionTests

    @Test("a probe keeps all of a failing configuration but one axis of each confirmation it holds, the one that keeps the most open candidates")
    func probeShape() {
        let config = ["lang": "ar", "net": "edge", "size": "wide", "theme": "dark"]
        let confirmed = Combination(["lang": "ar", "net": "edge"])
        // Open candidates: two with lang=ar, one with net=edge; moving net keeps the two.
        let open = [Combination(["lang": "ar", "size": "wide"]), Combination(["lang": "ar", "theme": "dark"]),
                    Combination(["net": "edge", "theme": "dark"])]
        let keep = SecondFaults.probe(config, breaking: [confirmed], open: open) { _ in true }
        #expect(keep == Combination(["lang": "ar", "size": "wide", "theme": "dark"]))
        // Once that probe is made, the other axis is next.
        let other = SecondFaults.probe(config, breaking: [confirmed], open: open) { $0 != keep }
        #expect(other == Combination(["net": "edge", "size": "wide", "theme": "dark"]))
        // Two confirmations held: both are broken (moving lang or net keeps one open candidate either way; the tie
        // goes to the first axis).
        let both = SecondFaults.probe(config, breaking: [confirmed, Combination(["size": "wide"])], open: open) { _ in true }
        #expect(both == Combination(["net": "edge", "theme": "dark"]))
        // Nothing open is kept: no probe.
        #expect(SecondFaults.probe(config, breaking: [confirmed], open: []) { _ in true } == nil)
    }

    static let first = Combination(["lang": "ar", "net": "edge"])

    /// Every allowed configuration except those that hold `masked` without ``first``: the source never runs it alone.
    static func masking(_ masked: Combination) throws -> [[String: String]] {
        Fixture.configurations(try Fixture.matrix()).filter { !masked.isContained(in: $0) || first.isContained(in: $0) }
    }

    @Test("a masked fault is found and confirmed, whether it shares a value with the one masking it or not",
          arguments: [Combination(["lang": "ar", "size": "wide"]), Combination(["size": "wide", "theme": "dark"])])
    func maskedFault(second: Combination) throws {
        let session = try Fixture.isolate(try Self.masking(second), faults: [Self.first, second], budget: 20)
        let found = session.confirmed.map(\.combination)
        #expect(found.contains(Self.first) && found.contains(second), "confirmed \(found)")
        for c in found { #expect(c == Self.first || c == second, "wrongly confirmed \(c)") }
        #expect(session.spent <= 20)
        #expect(session.unexplained(Fixture.subject).isEmpty)
    }

    @Test("with no second fault, passing probes clear what the confirmation masked, and nothing more is tried")
    func probesClear() throws {
        let (first, masked) = (Self.first, Combination(["size": "wide", "theme": "dark"]))
        // The source runs size=wide + theme=dark only beside the fault: it stays a live candidate once the fault is
        // confirmed, so the failing configurations holding both are probed.
        let source = try Self.masking(masked)
        let session = try Fixture.isolate(source, faults: [first], budget: 40)
        #expect(session.confirmed.map(\.combination) == [first])
        let followUps = session.observations.filter(\.followUp)
        let probes = followUps.filter { masked.isContained(in: $0.configuration) }
        #expect(!probes.isEmpty && probes.allSatisfy { $0.verdict == .passed && !first.isContained(in: $0.configuration) })
        #expect(!session.ranking(Fixture.subject).live.contains(masked))
        // A probe holds all of a failing configuration's values but one of the confirmation's.
        let failing = source.filter { first.isContained(in: $0) }
        for f in probes {
            #expect(failing.contains { c in c.filter { f.configuration[$0.key] == $0.value }.count == c.count - 1 },
                    "\(f.configuration) is no probe")
        }
        // The session ended before its budget: nothing was left to decide.
        #expect(session.spent < 40)
    }

    @Test("configurations a single value explains are not probed: that value fails every job it is in")
    func singleValueNotProbed() throws {
        let first = Combination(["lang": "ar"])
        let masked = Combination(["size": "wide", "theme": "dark"])
        let source = Fixture.configurations(try Fixture.matrix()).filter { !masked.isContained(in: $0) || first.isContained(in: $0) }
        let session = try Fixture.isolate(source, faults: [first], budget: 40)
        #expect(session.confirmed.map(\.combination) == [first])
        // The masked candidate stays live: no follow-up holds it.
        #expect(session.ranking(Fixture.subject).live.contains(masked))
        #expect(session.observations.filter(\.followUp).allSatisfy { !masked.isContained(in: $0.configuration) })
    }

    @Test("a failing probe the budget leaves unexplained is listed as unresolved, marked as found by probes")
    func unresolvedProbe() throws {
        let (first, second) = (Self.first, Combination(["size": "wide", "theme": "dark"]))
        let source = try Self.masking(second)
        let full = try Fixture.isolate(source, faults: [first, second], budget: 20)
        // The budget that ends right after the first failing follow-up outside the source run (a probe).
        let followUps = full.observations.filter(\.followUp)
        let sourceConfigurations = Set(source)
        let index = try #require(followUps.firstIndex { $0.verdict == .failed && !sourceConfigurations.contains($0.configuration) })
        let session = try Fixture.isolate(source, faults: [first, second], budget: index + 1)
        let record = IsolationRecord(source: "s", session: session, runs: [])
        let unresolved = try #require(record.unresolved.first)
        let probed = try #require(unresolved.foundByProbes)
        #expect(probed.count == 1 && unresolved.configurations.contains(probed[0]))
        #expect(record.lines.contains { $0.contains("(1 of them found by probes, not in the source run); ") }, "\(record.lines)")
        // It is that probe's configuration; the source's unexplained failures (none here) would not be marked.
        let label = Combination(followUps[index].configuration).pairs.map { "\($0.axis)=\($0.value)" }.joined(separator: ",")
        #expect(probed == [label])
    }
}
