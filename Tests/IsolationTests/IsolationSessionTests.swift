import Foundation
import Isolation
import MatrixPlan
import Testing

/// The pure core driven with a simulated system: a configuration fails when it holds a planted combination.
@Suite("Isolation: ranking, generation, session")
struct IsolationSessionTests {
    /// Four axes with a constraint and an exclude; pairwise plan.
    static let matrixJSON = """
        {"name": "iso", "corpus": ".", "registry": "noop",
         "axes": {"lang": ["en", "de", "ar", "ja"], "size": ["narrow", "wide", "tall"],
                  "net": ["wifi", "edge", "offline"], "theme": ["light", "dark"]},
         "exclude": [{"lang": "ja", "net": "offline"}],
         "constraints": [{"if": {"size": "tall"}, "then": {"theme": "light"}}],
         "reduction": "pairwise"}
        """

    static func matrix() throws -> MatrixFile {
        let (matrix, findings) = MatrixFile.parse(Array(matrixJSON.utf8), file: "iso.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        return try #require(matrix)
    }

    static let subject = Subject(scenario: "search", registry: "noop")

    /// Every valid configuration of the matrix (full), through MatrixPlan's own constraint evaluation.
    static func configurations(_ matrix: MatrixFile) -> [[String: String]] {
        let generator = FollowUpGenerator(matrix: matrix)
        var out: [[String: String]] = [[:]]
        for axis in matrix.axes {
            out = out.flatMap { c in axis.values.map { c.merging([axis.name: $0]) { $1 } } }
        }
        return out.filter(generator.allows)
    }

    /// Runs a session to its end against `faults`; `flaky` configurations are flaky in the source run.
    static func isolate(_ source: [[String: String]], faults: [Combination], budget: Int, seed: UInt64 = 7,
                        flaky: Set<[String: String]> = []) throws -> IsolationSession {
        try isolate(source, budget: budget, seed: seed) { c, followUp in
            let verdict: Verdict = faults.contains { $0.isContained(in: c) } ? .failed : .passed
            return flaky.contains(c) && !followUp ? .flaky : verdict
        }
    }

    /// Runs a session on this matrix (or `generator`'s) to its end (20 rounds at most), each job's verdict given by
    /// `verdict` (of its configuration, and whether it is a follow-up).
    static func isolate(_ source: [[String: String]], budget: Int, seed: UInt64 = 7, generator: FollowUpGenerator? = nil,
                        verdict: ([String: String], Bool) -> Verdict) throws -> IsolationSession {
        func observe(_ c: [String: String], followUp: Bool, id: String) -> Observation {
            Observation(subject: subject, configuration: c, verdict: verdict(c, followUp), jobID: id, followUp: followUp)
        }
        var session = IsolationSession(
            source: source.enumerated().map { observe($1, followUp: false, id: "s\($0)") },
            generator: try generator ?? FollowUpGenerator(matrix: matrix()), settings: .init(maxSize: 3, budget: budget, seed: seed))
        for round in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.enumerated().map { observe($1.configuration, followUp: true, id: "f\(round)-\($0)") })
        }
        return session
    }

    @Test("a planted pair in a pairwise plan is confirmed, and every follow-up is a configuration the matrix allows")
    func plantedPair() throws {
        let matrix = try Self.matrix()
        let plan = matrix.plan(scenarios: [])
        let source = plan.configurations.map(\.values)
        let fault = Combination(["lang": "ar", "net": "edge"])
        let session = try Self.isolate(source, faults: [fault], budget: source.count)
        #expect(session.confirmed.map(\.combination) == [fault])
        #expect(session.confirmed.first?.jobs.isEmpty == false)
        #expect(session.unexplained(Self.subject).isEmpty)
        let generator = FollowUpGenerator(matrix: matrix)
        // Constraints respected: every follow-up obeys the excludes and constraints.
        let followUps = session.observations.filter(\.followUp)
        #expect(!followUps.isEmpty && followUps.count <= source.count)
        for o in followUps { #expect(generator.allows(o.configuration)) }
        #expect(Self.configurations(matrix).count == 72 - 6 - 12 + 1)
        #expect(!generator.allows(["lang": "ja", "net": "offline", "size": "wide", "theme": "light"]))
        #expect(!generator.allows(["lang": "en", "net": "wifi", "size": "tall", "theme": "dark"]))
    }

    @Test("generation keeps the combination and moves the rest to allowed, least suspicious values")
    func generationRespectsConstraints() throws {
        let matrix = try Self.matrix()
        let generator = FollowUpGenerator(matrix: matrix)
        let failing = [["lang": "ar", "size": "tall", "net": "edge", "theme": "light"]]
        let passing = [["lang": "en", "size": "wide", "net": "wifi", "theme": "dark"]]
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: 2)
        let keep = Combination(["size": "tall"])
        let config = try #require(generator.configuration(keeping: keep, ranking: ranking, maxSize: 2, seed: 1))
        #expect(config["size"] == "tall")
        // window=tall forces theme=light (a constraint), though dark is the safer value.
        #expect(config["theme"] == "light")
        #expect(config["lang"] == "en" && config["net"] == "wifi")
        #expect(generator.allows(config))
        // A combination the matrix excludes yields no follow-up.
        #expect(generator.configuration(keeping: Combination(["lang": "ja", "net": "offline"]), ranking: ranking,
                                        maxSize: 2, seed: 1) == nil)
    }

    @Test("a candidate's last try, asked for one failing configuration, decides for the others that hold it this round")
    func lastTryDecidesForAll() throws {
        let matrix = try Self.matrix()
        let fault = Combination(["lang": "ar"])
        let source = matrix.plan(scenarios: []).configurations.map(\.values).enumerated().map { i, c in
            Observation(subject: Self.subject, configuration: c, verdict: fault.isContained(in: c) ? .failed : .passed,
                        jobID: "s\(i)", followUp: false)
        }
        #expect(source.filter { $0.verdict == .failed }.count > 1)
        var settings = IsolationSettings(maxSize: 3, budget: 20, seed: 7)
        settings.triesPerCandidate = 1
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix), settings: settings)
        // Every failing configuration's best candidate is lang=ar: one follow-up keeps it, and none of them moves on to
        // lang=ar's pairs in the same round (until 7 December 2026 each did, once the first had used up its one try).
        let asks = session.nextRound()
        #expect(asks.map(\.target) == [fault], "\(asks.map(\.target))")
    }

    @Test("the budget is never exceeded, and the same seed gives the same follow-ups")
    func budgetAndDeterminism() throws {
        let matrix = try Self.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let faults = [Combination(["lang": "ar", "net": "edge", "theme": "dark"]), Combination(["size": "narrow", "lang": "de"])]
        for budget in [0, 1, 3, 5] {
            let session = try Self.isolate(source, faults: faults, budget: budget)
            #expect(session.spent <= budget)
        }
        let a = try Self.isolate(source, faults: faults, budget: 30, seed: 42)
        let b = try Self.isolate(source, faults: faults, budget: 30, seed: 42)
        #expect(a.confirmed == b.confirmed)
        #expect(a.spent == b.spent)
        #expect(a.observations.filter(\.followUp).map(\.configuration) == b.observations.filter(\.followUp).map(\.configuration))
        // Precision: whatever is confirmed is a planted combination, not a part or a larger one holding it.
        let full = try Self.isolate(Self.configurations(matrix), faults: faults, budget: 40, seed: 42)
        #expect(!full.confirmed.isEmpty)
        for c in full.confirmed { #expect(faults.contains(c.combination), "confirmed \(c.combination)") }
    }

    @Test("narrowing: many tied candidates get one follow-up that keeps part of the configuration, never an axis they all hold")
    func narrowingHalvesTies() throws {
        let failing = ["a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1"]
        let passing = [["a": "2", "b": "2", "c": "2", "d": "2", "e": "2", "f": "2"]]
        let ranking = SuspicionRanking(candidatesFrom: [failing], failing: [failing], passing: passing, maxSize: 2)
        // Six values tie (one failing configuration each): one follow-up keeps part of them.
        let keep = try #require(TieNarrowing.keep(failing, ranking.suspects))
        #expect(keep.count > 0 && keep.count < failing.count)
        #expect(keep.isContained(in: failing))
        // Every tied pair holds a=1: a stays.
        let pairs = ranking.suspects.filter { $0.combination.count == 2 && $0.combination[axis: "a"] == "1" }
        #expect(pairs.count == 5)
        #expect(TieNarrowing.keep(failing, pairs)?[axis: "a"] == "1")
        // Few tied candidates in a configuration of six values: no narrowing, they are tried one by one.
        #expect(TieNarrowing.keep(failing, Array(ranking.suspects.prefix(3))) == nil)
        // In one of eight values, three tied candidates are narrowed (one follow-up decides for one or two of them);
        // two are tried one by one.
        let large = failing.merging(["g": "1", "h": "1"]) { a, _ in a }
        let ranked = SuspicionRanking(candidatesFrom: [large], failing: [large], passing: passing, maxSize: 2)
        #expect(large.count == TieNarrowing.manyValues)
        #expect(TieNarrowing.keep(large, Array(ranked.suspects.prefix(3))) != nil)
        #expect(TieNarrowing.keep(large, Array(ranked.suspects.prefix(2))) == nil)
    }

    @Test("ranking: a combination seen passing is no candidate; more failing configurations rank first")
    func ranking() {
        let failing = [["a": "1", "b": "1"], ["a": "1", "b": "2"]]
        let passing = [["a": "2", "b": "1"], ["a": "2", "b": "2"]]
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: 2)
        #expect(ranking.suspects.first?.combination == Combination(["a": "1"]))
        #expect(!ranking.live.contains(Combination(["b": "1"])))
        #expect(ranking.suspects.map(\.combination.description) == ["a=1", "a=1 + b=1", "a=1 + b=2"])
    }

    @Test("a flaky source job is repeated before it counts; a failure seen only there is then explained")
    func flakyRepeated() throws {
        let matrix = try Self.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let fault = Combination(["lang": "de", "theme": "dark"])
        let flakySource = Set(source.filter { fault.isContained(in: $0) }.prefix(1))
        let session = try Self.isolate(source, faults: [fault], budget: source.count, flaky: flakySource)
        let repeats = session.observations.filter { $0.followUp && flakySource.contains($0.configuration) }
        #expect(!repeats.isEmpty)
        #expect(session.confirmed.map(\.combination) == [fault])
    }

    @Test("an intermittent fault (its jobs pass half the time) is tried first and confirmed by a failing repeat in half the seeded systems")
    func intermittentFaultConfirmed() throws {
        let matrix = try Self.matrix()
        let generator = FollowUpGenerator(matrix: matrix)
        let deterministic = Combination(["size": "narrow", "net": "offline"])
        let intermittent = Combination(["lang": "ar"])
        var foundIntermittent = 0, wrong: [String] = []
        let seeds: [UInt64] = Array(1...8)
        for seed in seeds {
            // Seeded: a job holding the intermittent fault passes (½), fails one attempt then passes the retry (¼) or
            // fails both (¼).
            var rng = SplitMix64(seed: seed)
            var count = 0
            func observe(_ c: [String: String], followUp: Bool) -> Observation {
                count += 1
                var verdict: Verdict = deterministic.isContained(in: c) ? .failed : .passed
                if verdict == .passed, intermittent.isContained(in: c), rng.below(2) == 0 {
                    verdict = rng.below(2) == 0 ? .failed : .flaky
                }
                return Observation(subject: Self.subject, configuration: c, verdict: verdict, jobID: "j\(count)", followUp: followUp)
            }
            let source = Self.configurations(matrix).map { observe($0, followUp: false) }
            var session = IsolationSession(source: source, generator: generator, settings: .init(maxSize: 2, budget: 12, seed: seed))
            for _ in 0..<20 {
                let asks = session.nextRound()
                if asks.isEmpty { break }
                session.onResults(asks.map { observe($0.configuration, followUp: true) })
            }
            #expect(session.spent <= 12)
            let found = session.confirmed.map(\.combination)
            #expect(found.contains(deterministic), "seed \(seed): confirmed \(found)")
            if let c = session.confirmed.first(where: { $0.combination == intermittent }) {
                foundIntermittent += 1
                #expect(c.intermittent)
            }
            wrong += found.filter { $0 != intermittent && $0 != deterministic }.map { "seed \(seed): \($0)" }
        }
        // Measured level (docs/ISOLATE.md): the previous algorithm confirmed no flaky fault; this one confirms it in
        // half the seeded systems, and a pair holding it is wrongly confirmed in two.
        #expect(foundIntermittent >= 4, "intermittent fault confirmed in \(foundIntermittent) of \(seeds.count) systems")
        #expect(wrong.count <= 2, "wrongly confirmed: \(wrong)")
    }

    @Test("a three-value fault's failing follow-ups do not make its parts intermittent suspects: it is confirmed without trying them")
    func threeValueFaultPartsNotSuspected() throws {
        let matrix = try Self.matrix()
        let generator = FollowUpGenerator(matrix: matrix)
        let fault = Combination(["lang": "ar", "size": "wide", "net": "edge"])
        var source = matrix.plan(scenarios: []).configurations.map(\.values)
        if !source.contains(where: fault.isContained) { source.append(["lang": "ar", "size": "wide", "net": "edge", "theme": "dark"]) }
        func observe(_ c: [String: String], followUp: Bool, id: String) -> Observation {
            Observation(subject: Self.subject, configuration: c, verdict: fault.isContained(in: c) ? .failed : .passed, jobID: id,
                        followUp: followUp)
        }
        var session = IsolationSession(
            source: source.enumerated().map { observe($1, followUp: false, id: "s\($0)") },
            generator: generator, settings: .init(maxSize: 3, budget: 12, seed: 3))
        var asked: [IsolationSession.FollowUp] = []
        for round in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            asked += asks
            session.onResults(asks.enumerated().map { observe($1.configuration, followUp: true, id: "f\(round)-\($0)") })
        }
        #expect(session.confirmed.map(\.combination) == [fault])
        // No follow-up spent on a part of the fault as an intermittent suspect (each would pass: the part alone is
        // harmless).
        let parts = asked.filter { $0.intermittent }.compactMap(\.target)
        #expect(parts.isEmpty, "intermittent trials: \(parts)")
    }

    @Test("a full plan decides a deterministic pair by itself: no follow-up runs, and the record says so")
    func fullPlanDecides() throws {
        let matrix = try Self.matrix()
        let fault = Combination(["lang": "ar", "net": "edge"])
        let session = try Self.isolate(Self.configurations(matrix), faults: [fault], budget: 10)
        #expect(session.confirmed.map(\.combination) == [fault])
        #expect(session.spent == 0)
        let record = IsolationRecord(source: "s", session: session, runs: [])
        #expect(record.lines == ["confirmed: search fails with lang=ar + net=edge (decided by the run's own jobs, no follow-up needed)"])
        #expect(IsolationRecord.evidence(followUps: 1) == "confirmed by 1 follow-up job")
    }

    @Test("a passing follow-up that holds a confirmed combination retracts it")
    func contradictionRetracts() throws {
        let matrix = try Self.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let fault = Combination(["lang": "ar", "net": "edge"])
        var session = try Self.isolate(source, faults: [fault], budget: source.count)
        #expect(session.confirmed.map(\.combination) == [fault])
        let contradiction = ["lang": "ar", "net": "edge", "size": "wide", "theme": "dark"]
        session.onResults([Observation(subject: Self.subject, configuration: contradiction, verdict: .passed, jobID: "x",
                                       followUp: true)])
        #expect(session.confirmed.isEmpty)
        #expect(session.retracted.map(\.combination) == [fault])
    }

    @Test("an unresolved entry's suspects are what its own configurations still hold: never a confirmed combination")
    func unresolvedSuspects() throws {
        let matrix = try Self.matrix()
        let source = matrix.plan(scenarios: []).configurations.map(\.values)
        let offline = Combination(["net": "offline"])
        // A second fault, a pair the plan runs away from `net=offline`.
        let away = try #require(source.first { $0["net"] == "wifi" })
        let pair = Combination(["lang": away["lang"] ?? "", "size": away["size"] ?? ""])
        let session = try Self.isolate(source, faults: [offline, pair], budget: 1)
        #expect(session.confirmed.map(\.combination) == [offline])
        let record = IsolationRecord(source: "s", session: session, runs: [])
        let unresolved = try #require(record.unresolved.first)
        #expect(!unresolved.suspects.isEmpty)
        // The terminal's line names the best one.
        #expect(record.lines.contains { $0.hasPrefix("unresolved: search") && $0.hasSuffix("; best suspect: \(unresolved.suspects[0])") },
                "\(record.lines)")
        for label in unresolved.suspects {
            // Back from "lang=de + size=wide" to the combination, to check it against the configurations.
            let pairs = label.replacingOccurrences(of: " (intermittent)", with: "").components(separatedBy: " + ")
                .map { $0.split(separator: "=").map(String.init) }
            let c = Combination(Dictionary(uniqueKeysWithValues: pairs.map { ($0[0], $0[1]) }))
            #expect(c != offline, "\(unresolved.suspects)")
            #expect(unresolved.configurations.contains { config in
                c.pairs.allSatisfy { config.split(separator: ",").contains(Substring("\($0.axis)=\($0.value)")) }
            }, "\(label) is in none of \(unresolved.configurations)")
        }
    }

    @Test("an unresolved scenario that fails now and then wherever it runs says how often, when no suspect is left")
    func unresolvedWithoutSuspects() throws {
        let matrix = try Self.matrix()
        let plan = matrix.plan(scenarios: []).configurations.map(\.values)
        // Every configuration runs twice (as a stability run's repetitions); one in four failed once and passed once:
        // intermittent failures, spread so thin that no value or combination fails in a third of its jobs.
        var source: [Observation] = []
        for (i, c) in plan.enumerated() {
            for r in 0..<2 {
                source.append(Observation(subject: Self.subject, configuration: c, verdict: i % 4 == 0 && r == 0 ? .failed : .passed,
                                          jobID: "s\(i)-\(r)", followUp: false))
            }
        }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 3, budget: 6, seed: 1))
        for round in 0..<10 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.enumerated().map {
                Observation(subject: Self.subject, configuration: $1.configuration, verdict: .passed, jobID: "f\(round)-\($0)",
                            followUp: true)
            })
        }
        let record = IsolationRecord(source: "s", session: session, runs: [])
        let unresolved = try #require(record.unresolved.first)
        #expect(unresolved.suspects.isEmpty && record.confirmed.isEmpty)
        let failing = (plan.count + 3) / 4
        #expect(unresolved.failingJobs == failing && unresolved.jobs == 2 * plan.count + session.spent)
        #expect(record.lines.contains {
            $0.hasSuffix("; no suspect left (\(failing) of its \(2 * plan.count + session.spent) jobs that no confirmation explains failed an attempt)")
        }, "\(record.lines)")
    }

    @Test("a failure none of whose follow-ups fails again is said to be so (fixed since the run, or intermittent)")
    func didNotFailAgain() throws {
        let matrix = try Self.matrix()
        let plan = matrix.plan(scenarios: []).configurations.map(\.values)
        let fault = Combination(["lang": "ar"])
        func isolate(fixed: Bool) -> IsolationRecord {
            let source = plan.enumerated().map { i, c in
                Observation(subject: Self.subject, configuration: c, verdict: fault.isContained(in: c) ? .failed : .passed,
                            jobID: "s\(i)", followUp: false)
            }
            var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                           settings: .init(maxSize: 3, budget: 8, seed: 1))
            for round in 0..<10 {
                let asks = session.nextRound()
                if asks.isEmpty { break }
                session.onResults(asks.enumerated().map { n, ask in
                    Observation(subject: Self.subject, configuration: ask.configuration,
                                verdict: !fixed && fault.isContained(in: ask.configuration) ? .failed : .passed,
                                jobID: "f\(round)-\(n)", followUp: true)
                })
            }
            return IsolationRecord(source: "s", session: session, runs: [])
        }
        // Fixed since the run: every follow-up passes, the run's failures stay unexplained, and the line says why.
        let fixed = isolate(fixed: true)
        let unresolved = try #require(fixed.unresolved.first)
        let n = try #require(unresolved.followUps)
        #expect(n >= 2 && unresolved.failingFollowUps == 0 && fixed.confirmed.isEmpty)
        #expect(fixed.lines.contains {
            $0.contains("; none of its \(n) follow-up jobs failed: it did not fail again (fixed since the run, or intermittent)")
        }, "\(fixed.lines)")
        // Still failing: confirmed, and no such words.
        let live = isolate(fixed: false)
        #expect(live.confirmed.map(\.label) == ["lang=ar"], "\(live.lines)")
        #expect(!live.lines.contains { $0.contains("did not fail again") })
    }

    @Test("a run on two registries names each scenario with its registry: a renderer's defect is not said for both")
    func namedWithRegistry() throws {
        let matrix = try Self.matrix()
        let plan = matrix.plan(scenarios: []).configurations.map(\.values)
        let (catalog, web) = (Subject(scenario: "search", registry: "catalog"), Subject(scenario: "search", registry: "web"))
        let fault = Combination(["lang": "ar"])
        func observe(_ subject: Subject, _ c: [String: String], id: String, followUp: Bool) -> Observation {
            Observation(subject: subject, configuration: c, verdict: subject == web && fault.isContained(in: c) ? .failed : .passed,
                        jobID: id, followUp: followUp)
        }
        let source = plan.enumerated().flatMap { i, c in
            [observe(catalog, c, id: "c\(i)", followUp: false), observe(web, c, id: "w\(i)", followUp: false)]
        }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 3, budget: 8, seed: 1))
        for round in 0..<10 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.enumerated().map { n, a in observe(a.subject, a.configuration, id: "f\(round)-\(n)", followUp: true) })
        }
        let record = IsolationRecord(source: "s", session: session, runs: [])
        #expect(record.registries == ["catalog", "web"])
        #expect(record.lines.first == "confirmed: search (web) fails with lang=ar (confirmed by \(record.confirmed.first?.followUps ?? 0) "
            + "follow-up job\(record.confirmed.first?.followUps == 1 ? "" : "s"))", "\(record.lines)")
    }

    @Test("a subject whose every job failed every attempt fails everywhere: no follow-up, no combination, its own line")
    func failsEverywhere() throws {
        let matrix = try Self.matrix()
        let plan = matrix.plan(scenarios: []).configurations.map(\.values)
        let broken = Subject(scenario: "broken", registry: "noop")
        let fault = Combination(["lang": "ar", "net": "edge"])
        func observe(_ subject: Subject, _ c: [String: String], id: String, followUp: Bool) -> Observation {
            let fails = subject == broken || fault.isContained(in: c)
            return Observation(subject: subject, configuration: c, verdict: fails ? .failed : .passed, jobID: id, followUp: followUp)
        }
        let source = plan.enumerated().flatMap { i, c in
            [observe(Self.subject, c, id: "s\(i)", followUp: false), observe(broken, c, id: "b\(i)", followUp: false)]
        }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 3, budget: 20, seed: 1))
        #expect(session.failingEverywhere == [broken: plan.count])
        for round in 0..<10 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            #expect(!asks.contains { $0.subject == broken })
            session.onResults(asks.enumerated().map { observe($1.subject, $1.configuration, id: "f\(round)-\($0)", followUp: true) })
        }
        #expect(session.confirmed.map(\.combination) == [fault] && session.confirmed.allSatisfy { $0.subject == Self.subject })
        let record = IsolationRecord(source: "s", session: session, runs: [])
        #expect(record.unresolved.isEmpty)
        #expect(record.failsEverywhere?.map(\.subject) == [broken])
        #expect(record.lines.contains("everywhere: broken fails in every configuration it ran (\(plan.count) of \(plan.count) jobs failed"
            + " every attempt): no value is needed for it to fail"), "\(record.lines)")
    }
}
