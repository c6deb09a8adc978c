import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// Values that fail intermittently across a run's subjects (``RunNoise``; docs/ISOLATE.md, step 4, "Noise across the
/// run"): the shape of the web shop under a pairwise plan with a flaky network (7 December 2026), where scenarios whose
/// one failure on that network failed both attempts were confirmed with pairs like `locale=en + network=flaky`.
@Suite("Isolation: noise across the run")
struct IsolationRunNoiseTests {
    static let json = #"""
        {"name": "shop", "corpus": ".", "registry": "web", "reduction": "full",
         "axes": {"locale": ["en", "de", "ar"], "network": ["lte", "flaky"], "panel": ["wide", "narrow"]}}
        """#

    static func matrix() throws -> MatrixFile {
        let (matrix, findings) = MatrixFile.parse(Array(json.utf8), file: "shop.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        return try #require(matrix)
    }

    static func subject(_ name: String) -> Subject { Subject(scenario: name, registry: "web") }

    /// Every configuration of the matrix for each subject, with the verdict `verdict` gives (by subject, configuration
    /// and the configuration's index).
    static func jobs(_ subjects: [String], _ verdict: (String, [String: String], Int) -> Verdict) throws -> [Observation] {
        let configurations = IsolationSessionTests.configurations(try matrix())
        return subjects.flatMap { s in
            configurations.enumerated().map { i, c in
                Observation(subject: subject(s), configuration: c, verdict: verdict(s, c, i), jobID: "\(s)-\(i)", followUp: false)
            }
        }
    }

    /// Four scenarios that load over the network fail now and then on the flaky one (a flaky job, a failure, a pass, …),
    /// `status` also fails in every `ar` job (a right-to-left defect, so its flaky jobs hold `ar` too), and `banner`
    /// is flaky in narrow windows, alone.
    static func shopRun() throws -> [Observation] {
        try jobs(["catalog", "cart", "search", "status", "banner"]) { s, c, i in
            if s == "status" && c["locale"] == "ar" { return c["network"] == "flaky" && i % 2 == 0 ? .flaky : .failed }
            if s == "banner" { return c["panel"] == "narrow" && i % 3 == 0 ? .flaky : .passed }
            guard c["network"] == "flaky" else { return .passed }
            return [Verdict.flaky, .failed, .passed][(i + s.count) % 3]
        }
    }

    @Test("a value flaky in several scenarios is noise; a value whose flaky jobs it holds is not, nor one flaky in one scenario")
    func noisyValues() throws {
        let noise = RunNoise(try Self.shopRun()) { $0.verdict == .flaky }
        #expect(noise.values == [Combination(["network": "flaky"])])
        #expect(noise.value(in: ["locale": "ar", "network": "flaky", "panel": "narrow"]) == Combination(["network": "flaky"]))
        #expect(noise.value(in: ["locale": "ar", "network": "lte", "panel": "narrow"]) == nil)
        // One scenario's flaky jobs alone are its own evidence, not the run's.
        let alone = RunNoise(try Self.shopRun().filter { $0.subject.scenario == "banner" }) { $0.verdict == .flaky }
        #expect(alone.values.isEmpty)
    }

    @Test("a scenario's one failure on the noisy network, every attempt failed, is tried as that network's noise first and confirmed as it")
    func triedAsNoiseFirst() throws {
        // `checkout` failed once, both attempts, on the flaky network (en, narrow); its other jobs passed.
        let failing = ["locale": "en", "network": "flaky", "panel": "narrow"]
        let checkout = try Self.jobs(["checkout"]) { _, c, _ in c == failing ? .failed : .passed }
        let settings = IsolationSession.Settings(maxSize: 3, budget: 10, seed: 1)
        let generator = FollowUpGenerator(matrix: try Self.matrix())

        // Alone, nothing says the network is noisy: the configuration itself, the one combination no passing job
        // holds, is confirmed by the run's own jobs — what the shop's run said of `checkout-order`.
        var alone = IsolationSession(source: checkout, generator: generator, settings: settings)
        #expect(alone.nextRound().isEmpty)
        #expect(alone.confirmed.map(\.combination) == [Combination(failing)])
        #expect(alone.confirmed.allSatisfy { !$0.intermittent })

        // Beside the other scenarios' flaky network, no combination holding the network is confirmed as deterministic,
        // and the network is tried first, as an intermittent suspect.
        var session = IsolationSession(source: try Self.shopRun() + checkout, generator: generator, settings: settings)
        #expect(!session.confirmed.contains { $0.subject == Self.subject("checkout") })
        let asks = session.nextRound().filter { $0.subject == Self.subject("checkout") }
        let ask = try #require(asks.first)
        #expect(ask.intermittent)
        #expect(ask.target == Combination(["network": "flaky"]))
        #expect(ask.configuration["network"] == "flaky")
        // Its follow-up fails: `checkout` fails intermittently with the network, not with `locale=en + network=flaky`.
        session.onResults([Observation(subject: ask.subject, configuration: ask.configuration, verdict: .failed,
                                       jobID: "f1", followUp: true)])
        let confirmed = session.confirmed.filter { $0.subject == Self.subject("checkout") }
        #expect(confirmed.map(\.combination) == [Combination(["network": "flaky"])])
        #expect(confirmed.allSatisfy { $0.intermittent })
    }

    @Test("a scenario whose noise follow-ups all passed is left unresolved with the noisy value as its best suspect, not a pair holding it")
    func unresolvedNamesTheNoise() throws {
        let failing = ["locale": "en", "network": "flaky", "panel": "narrow"]
        let checkout = try Self.jobs(["checkout"]) { _, c, _ in c == failing ? .failed : .passed }
        var session = IsolationSession(source: try Self.shopRun() + checkout, generator: FollowUpGenerator(matrix: try Self.matrix()),
                                       settings: .init(maxSize: 3, budget: 40, seed: 1))
        var n = 0
        while true {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            // The network's noise shows again in the other scenarios (every other follow-up on it is flaky), never in
            // `checkout`.
            session.onResults(asks.map { ask in
                n += 1
                let noisy = ask.subject.scenario != "checkout" && ask.configuration["network"] == "flaky" && n % 2 == 0
                return Observation(subject: ask.subject, configuration: ask.configuration, verdict: noisy ? .flaky : .passed,
                                   jobID: "f\(n)", followUp: true)
            })
        }
        let record = IsolationRecord(source: "r1", session: session, runs: ["r2"])
        let unresolved = try #require(record.unresolved.first { $0.scenario == "checkout" }, "\(record.lines)")
        #expect(unresolved.suspects.first == "network=flaky (intermittent)", "\(unresolved.suspects)")
        #expect(!unresolved.suspects.contains { $0.contains("network=flaky +") || $0.contains("+ network=flaky") }, "\(unresolved.suspects)")
    }
}
