import Foundation
import Isolation
import MatrixPlan

/// The synthetic systems of `bench isolate` and the three methods it compares.
extension IsolateBench {
    /// Runs a configuration of a system: fails when it holds a planted fault (a flaky fault fails an attempt with
    /// probability ½; with one retry, a job whose first attempt failed and second passed is flaky).
    struct Oracle {
        let system: System
        var rng: SplitMix64
        var count = 0

        init(system: System, seed: UInt64) {
            self.system = system
            rng = SplitMix64(seed: seed ^ 0xF1A7)
        }

        mutating func verdict(_ c: [String: String]) -> Verdict {
            let held = system.faults.filter { $0.combination.isContained(in: c) }
            if held.contains(where: { !$0.flaky }) { return .failed }
            guard !held.isEmpty, rng.below(2) == 0 else { return .passed }
            return rng.below(2) == 0 ? .failed : .flaky
        }

        mutating func observe(_ c: [String: String], followUp: Bool) -> Observation {
            count += 1
            return Observation(subject: IsolateBench.subject, configuration: c, verdict: verdict(c), jobID: "j\(count)",
                               followUp: followUp)
        }
    }

    static let subject = Subject(scenario: "system", registry: "bench")

    /// A seeded system: 8–12 axes of 2–10 values (fewer in quick mode), an exclude, a constraint, and 2–3 faults of
    /// `faultSize` values the matrix allows, the second sharing a value with the first where it can.
    static func makeSystem(seed: UInt64, faultSize: Int, quick: Bool) -> System {
        var rng = SplitMix64(seed: seed)
        let axisCount = quick ? 6 : 8 + rng.below(5)
        let axes = (0..<axisCount).map { a in
            Axis(name: "a\(a)", values: (0..<(quick ? 2 + rng.below(3) : 2 + rng.below(9))).map { "v\($0)" })
        }
        let exclude = [["a0": "v0", "a1": "v1"]]
        let constraint = Constraint(number: 1, conditions: [Condition(axis: "a2", op: .equals, values: ["v0"])],
                                    consequences: [Condition(axis: "a3", op: .notEquals, values: ["v1"])])
        let matrix = MatrixFile(name: "synthetic", registry: "bench", seed: seed, axes: axes, exclude: exclude,
                                constraints: [constraint])
        let generator = FollowUpGenerator(matrix: matrix)
        var faults: [Fault] = []
        let wanted = 2 + rng.below(2)
        var attempts = 0
        while faults.count < wanted, attempts < 200 {
            attempts += 1
            var values: [String: String] = [:]
            if let first = faults.first, faultSize > 1, faults.count == 1, let shared = first.combination.pairs.first {
                values[shared.axis] = shared.value  // overlapping: shares a value with the first fault
            }
            while values.count < faultSize {
                let axis = axes[rng.below(axes.count)]
                if values[axis.name] == nil { values[axis.name] = axis.values[rng.below(axis.values.count)] }
            }
            let c = Combination(values)
            guard generator.space.canComplete(generator.space.partial(values)),
                  !faults.contains(where: { $0.combination.isSubset(of: c) || c.isSubset(of: $0.combination) }) else { continue }
            faults.append(Fault(combination: c, flaky: rng.below(5) == 0))
        }
        return System(matrix: matrix, faults: faults, generator: generator)
    }

    /// FlowMatrix's session with a budget of `budget` % of the plan's jobs (the CLI's default is 20), rounded down as
    /// the CLI rounds it, or of `jobs` follow-ups when given.
    static func isolate(_ system: System, source: [Observation], strength: Int, budget: Int, jobs: Int? = nil,
                        oracle: inout Oracle, seed: UInt64) -> (found: [Combination], spent: Int, diagnosis: Diagnosis)
    {
        let settings = IsolationSession.Settings(maxSize: strength + 1, budget: jobs ?? max(1, source.count * budget / 100),
                                                 seed: seed)
        var session = IsolationSession(source: source, generator: system.generator, settings: settings)
        var kinds = (repeats: 0, samples: 0, intermittent: 0, deterministic: 0, probes: 0)
        var intermittentTries: [Combination: Int] = [:]
        // FLOWMATRIX_BENCH_ISOLATE_TRACE=<system seed> prints that system's source failures, follow-ups and confirmations.
        let trace = UInt64(ProcessInfo.processInfo.environment["FLOWMATRIX_BENCH_ISOLATE_TRACE"] ?? "")
        if trace == seed {
            print("  trace: faults \(system.faults.map { "\($0.combination)\($0.flaky ? " (flaky)" : "")" }); source: "
                + source.map { "\($0.verdict)" }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }.description)
            // The source jobs that failed an attempt, and the passing ones that held a (flaky) fault.
            for o in source where o.verdict != .passed || system.faults.contains(where: { $0.combination.isContained(in: o.configuration) }) {
                print("  trace: source \(o.verdict) in \(Combination(o.configuration))")
            }
        }
        while true {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            for a in asks {
                if a.sample { kinds.samples += 1 } else if a.target == nil { kinds.repeats += 1 } else if a.intermittent { kinds.intermittent += 1 }
                else if a.probe { kinds.probes += 1 } else { kinds.deterministic += 1 }
                if let target = a.target, a.intermittent { intermittentTries[target, default: 0] += 1 }
            }
            let results = asks.map { oracle.observe($0.configuration, followUp: true) }
            if trace == seed {
                for (a, r) in zip(asks, results) {
                    let kind = a.sample ? "sample" : a.target == nil ? "repeat" : a.intermittent ? "intermittent \(a.target!)"
                        : a.probe ? "probe \(a.target!)" : "deterministic \(a.target!)"
                    print("  trace: \(kind) → \(r.verdict) in \(Combination(a.configuration))")
                }
            }
            session.onResults(results)
            if trace == seed {
                print("  trace: confirmed \(session.confirmed.map { "\($0.combination)\($0.intermittent ? " (i)" : "")" })")
                // What keeps a failing follow-up of a deterministic candidate from confirming it: the other live
                // candidates it holds.
                let ranking = session.ranking(subject)
                for (a, r) in zip(asks, results) where r.verdict == .failed && !a.intermittent {
                    guard let target = a.target, !session.confirmed.contains(where: { $0.combination == target }) else { continue }
                    let others = ranking.suspects(in: a.configuration).map(\.combination).filter { !target.isSubset(of: $0) }
                    print("  trace:   \(target) unconfirmed; its follow-up also holds \(others.prefix(8).map(\.description))")
                }
            }
        }
        let diagnosis = Diagnosis(tried: session.tried, intermittentTries: intermittentTries, spending: kinds,
                                  retracted: Set(session.retracted.map(\.combination)),
                                  budgetSpent: session.spent >= settings.budget)
        return (session.confirmed.map(\.combination), session.spent, diagnosis)
    }

    /// One factor at a time (coffee4j's simplest characterization): for each failing configuration not yet explained,
    /// change one axis at a time to another allowed value; the axes whose change makes it pass are the fault. Not
    /// flaky-aware, no budget.
    static func oneFactorAtATime(_ system: System, source: [Observation], oracle: inout Oracle)
        -> (found: [Combination], spent: Int)
    {
        var found: [Combination] = []
        var spent = 0
        for o in source where o.verdict != .passed && !found.contains(where: { $0.isContained(in: o.configuration) }) {
            var relevant: [String: String] = [:]
            for axis in system.matrix.axes {
                guard let value = o.configuration[axis.name],
                      let other = axis.values.first(where: { v in
                          v != value && system.generator.allows(o.configuration.merging([axis.name: v]) { $1 })
                      }) else { continue }
                spent += 1
                if oracle.verdict(o.configuration.merging([axis.name: other]) { $1 }) == .passed { relevant[axis.name] = value }
            }
            if !relevant.isEmpty { found.append(Combination(relevant)) }
        }
        return (found, spent)
    }

    /// Exhaustive testing: every configuration the matrix allows, once; the faults are the minimal combinations of at
    /// most `maxSize` values that only failing configurations hold. Nil when the space has more than `limit`.
    static func exhaustiveFaults(_ system: System, maxSize: Int, oracle: inout Oracle, limit: Int)
        -> (found: [Combination], jobs: Int)?
    {
        var all: [[String: String]] = [[:]]
        for axis in system.matrix.axes {
            all = all.flatMap { c in axis.values.map { c.merging([axis.name: $0]) { $1 } } }
            if all.count > limit * 4 { return nil }
        }
        all = all.filter(system.generator.allows)
        guard all.count <= limit else { return nil }
        var failing: [[String: String]] = [], passing: [[String: String]] = []
        for c in all { if oracle.verdict(c) == .passed { passing.append(c) } else { failing.append(c) } }
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: maxSize)
        let minimal = ranking.live.filter { c in
            !ranking.live.contains { $0.count < c.count && $0.isSubset(of: c) }
        }
        return (Array(minimal), all.count)
    }
}

extension IsolateBench.System {
    /// The planted faults no experiment can identify: when the deterministic faults hold every configuration the matrix
    /// allows, every job fails every attempt and all of them are (the scenario fails everywhere); otherwise, when all
    /// the faults do, the flaky ones are (every configuration no deterministic fault holds fails half the time, as a
    /// scenario flaky everywhere would: `a8=v0` and `a8=v1` both flaky on a two-valued axis).
    var unidentifiable: Set<Combination> {
        var deterministic = self
        deterministic.faults = faults.filter { !$0.flaky }
        if deterministic.failsEverywhere(Combination([:])) { return Set(faults.map(\.combination)) }
        return failsEverywhere(Combination([:])) ? Set(faults.filter(\.flaky).map(\.combination)) : []
    }

    /// Whether every configuration the matrix allows that holds `c` holds a planted fault, so that `c` fails wherever
    /// it can run: a part of a planted fault can, when a constraint forces the fault's other values or other faults
    /// cover the rest of an axis (`a0=v0` where `a0=v0 + a2=v0` and `a0=v0 + a2=v1` are planted and `a2` has two
    /// values). Searches for an allowed configuration holding `c` and no fault (axes of the faults first).
    func failsEverywhere(_ c: Combination) -> Bool {
        let space = generator.space
        var values = c.values
        guard space.canComplete(space.partial(values)) else { return false }
        let faultAxes = Set(faults.flatMap { $0.combination.pairs.map(\.axis) })
        let free = matrix.axes.filter { c[axis: $0.name] == nil }
        let axes = free.filter { faultAxes.contains($0.name) } + free.filter { !faultAxes.contains($0.name) }
        func witness(_ i: Int) -> Bool {
            if faults.contains(where: { $0.combination.isContained(in: values) }) { return false }
            if i == axes.count { return true }
            for v in axes[i].values {
                values[axes[i].name] = v
                if space.canComplete(space.partial(values)), witness(i + 1) { return true }
            }
            values[axes[i].name] = nil
            return false
        }
        return !witness(0)
    }
}
