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
        // The budget ran out with a failure unexplained: the last line says so, and how to go further.
        let budget = index + 1
        let jobs = budget == 1 ? "1 follow-up job" : "\(budget) follow-up jobs"
        #expect(record.lines.last == "budget spent: all \(jobs) ran with 1 failing configuration still unexplained; "
            + "a larger budget explains more ('flowmatrix isolate s --budget \(budget * 2)' starts a new isolation of the run)",
            "\(record.lines)")
        // With budget left (nothing left to try), or nothing unexplained, no such line.
        #expect(!IsolationRecord(source: "s", session: full, runs: []).lines.contains { $0.hasPrefix("budget spent") })
        // It is that probe's configuration; the source's unexplained failures (none here) would not be marked.
        let label = Combination(followUps[index].configuration).pairs.map { "\($0.axis)=\($0.value)" }.joined(separator: ",")
        #expect(probed == [label])
    }

    @Test("a configuration an intermittent confirmation of two values explains is probed too; beside a single value it is not")
    func intermittentConfirmationProbed() {
        let config = ["lang": "de", "net": "offline", "size": "wide", "theme": "dark"]
        // Only this configuration failed and nothing passed: every combination of it is live.
        let ranking = SuspicionRanking(candidatesFrom: [config], failing: [config], passing: [], maxSize: 3)
        let flakyPair = Combination(["lang": "de", "net": "offline"])
        let next = SecondFaults.next(failing: [config], confirmed: [], intermittent: [flakyPair], ranking: ranking) { _ in true }
        #expect(next.count == 1)
        let probe = next.first
        #expect(probe?.probed == config)
        // The probe keeps all of the configuration but one of the pair's axes.
        #expect(probe.map { $0.keep.count == 3 && !flakyPair.isSubset(of: $0.keep) && $0.keep.isContained(in: config) } == true)
        // Nothing is tried beside an intermittent single value, nor beside a deterministic one with it.
        let flakyValue = Combination(["lang": "de"])
        #expect(SecondFaults.next(failing: [config], confirmed: [], intermittent: [flakyValue], ranking: ranking) { _ in true }.isEmpty)
        let beside = SecondFaults.next(failing: [config], confirmed: [Combination(["theme": "dark"])], intermittent: [flakyPair],
                                       ranking: ranking) { _ in true }
        #expect(beside.allSatisfy { $0.probed == nil })
        // Without the intermittent confirmation the configuration is explained by nothing: no probe.
        #expect(SecondFaults.next(failing: [config], confirmed: [], ranking: ranking) { _ in true }.isEmpty)
    }

    /// A flaky pair (`lang=de + net=offline`: a job holding it fails its first attempt, then passes) and a
    /// deterministic one (`size=wide + theme=dark`) that the source runs only beside it, in a configuration that
    /// happened to fail both attempts.
    static func flakyBesideMasked(budget: Int) throws -> IsolationSession {
        let flaky = Combination(["lang": "de", "net": "offline"])
        let masked = Combination(["size": "wide", "theme": "dark"])
        let source = Fixture.configurations(try Fixture.matrix()).filter { !masked.isContained(in: $0) || flaky.isContained(in: $0) }
        return try Fixture.isolate(source, budget: budget) { c, followUp in
            masked.isContained(in: c) ? .failed
                : !flaky.isContained(in: c) ? .passed
                // In the source, two of its four other jobs are flaky and two passed.
                : followUp || c["size"] == "narrow" ? .flaky : .passed
        }
    }

    @Test("a deterministic fault the source ran only beside a flaky one is found by probing what the flaky one explains")
    func maskedByIntermittent() throws {
        let session = try Self.flakyBesideMasked(budget: 12)
        let found = session.confirmed.map { "\($0.combination)\($0.intermittent ? " (i)" : "")" }
        #expect(Set(found) == ["lang=de + net=offline (i)", "size=wide + theme=dark"], "confirmed \(found)")
        // The probe: the configuration both explain, but a value of the flaky pair.
        let (flaky, masked) = (Combination(["lang": "de", "net": "offline"]), Combination(["size": "wide", "theme": "dark"]))
        #expect(session.observations.contains { o in
            o.followUp && masked.isContained(in: o.configuration) && !flaky.isContained(in: o.configuration)
                && (o.configuration["lang"] == "de" || o.configuration["net"] == "offline")
        })
        #expect(session.spent <= 12)
    }

    /// A pairwise plan of five axes whose first two have two values: `a=0 + b=0` fails a quarter of it, and the second
    /// fault is a pair of `c` and `d` that the plan runs once, beside it: in the first configuration holding the first
    /// fault, or the `last`.
    static func manyExplained(last: Bool) throws -> (matrix: MatrixFile, source: [[String: String]], first: Combination, second: Combination) {
        let json = """
            {"name": "many", "corpus": ".", "registry": "noop",
             "axes": {"a": ["0", "1"], "b": ["0", "1"], "c": ["0", "1", "2", "3", "4"], "d": ["0", "1", "2", "3", "4"],
                      "e": ["0", "1", "2", "3", "4"]},
             "reduction": "pairwise"}
            """
        let (parsed, findings) = MatrixFile.parse(Array(json.utf8), file: "many.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let matrix = try #require(parsed)
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let first = Combination(["a": "0", "b": "0"])
        let cd = { (c: [String: String]) in Combination(["c": c["c"]!, "d": c["d"]!]) }
        let masked = { (c: [String: String]) in first.isContained(in: c) && source.filter { cd($0) == cd(c) }.count == 1 }
        let beside = try #require(last ? source.last(where: masked) : source.first(where: masked))
        return (matrix, source, first, cd(beside))
    }

    @Test("probes take at most half the budget left a round, so a failing one keeps follow-ups to explain it",
          arguments: [9, 10, 12])
    func probesLeaveRoom(budget: Int) throws {
        // All nine probes at once (before 7 December 2026) left a budget of 8 or 10 nothing to explain the failing one.
        // (Since 8 December 2026 `a=0 + b=0` gets a second try first — its follow-up held a larger candidate holding
        // it — and with 8 the probes that are left fit in one round.)
        try Self.probe(try Self.manyExplained(last: false), budget: budget)
    }

    @Test("each failing configuration is probed once before any is probed again", arguments: [12, 16])
    func probesBreadthFirst(budget: Int) throws {
        // With the probes of each round taken in the configurations' order, the first ones' second probes went before
        // the last one's first, and the budget ran out before it.
        try Self.probe(try Self.manyExplained(last: true), budget: budget)
    }

    /// Runs the session on `system`, checks each round's probes against the budget left, and expects both faults.
    static func probe(_ system: (matrix: MatrixFile, source: [[String: String]], first: Combination, second: Combination),
                      budget: Int) throws {
        let faults = [system.first, system.second]
        func observe(_ c: [String: String], id: String, followUp: Bool) -> Observation {
            Observation(subject: Fixture.subject, configuration: c, verdict: faults.contains { $0.isContained(in: c) } ? .failed : .passed,
                        jobID: id, followUp: followUp)
        }
        var session = IsolationSession(source: system.source.enumerated().map { observe($1, id: "s\($0)", followUp: false) },
                                       generator: FollowUpGenerator(matrix: system.matrix),
                                       settings: .init(maxSize: 3, budget: budget, seed: 7))
        var probeRounds = 0
        for round in 0..<30 {
            let before = session.spent
            let asks = session.nextRound()
            if asks.isEmpty { break }
            let probes = asks.filter(\.probe)
            if !probes.isEmpty {
                probeRounds += 1
                #expect(probes.count <= max(1, (budget - before) / 2), "round \(round): \(probes.count) probes of \(budget - before) left")
            }
            session.onResults(asks.enumerated().map { observe($1.configuration, id: "f\(round)-\($0)", followUp: true) })
        }
        #expect(probeRounds > 1)
        #expect(Set(session.confirmed.map(\.combination)) == Set(faults), "confirmed \(session.confirmed.map(\.combination))")
        #expect(session.spent <= budget)
    }
}
