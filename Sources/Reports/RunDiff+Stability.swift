import Journal

extension RunDiff {
    /// Stability mode: one job (scenario, configuration without the repetition axis, registry) whose flake rate
    /// differs between the runs. A run without repetitions counts each job as one repetition.
    public struct FlakeRateChange: Sendable, Hashable, Codable {
        /// `scenario [k=v,k=v]`, `@registry` added when a run has several.
        public var key: String
        public var baseFailed: Int
        public var baseRepetitions: Int
        public var headFailed: Int
        public var headRepetitions: Int
        public var baseRate: Double
        public var headRate: Double

        /// `checkout [locale=de,network=flaky]  2/20 (10%) -> 9/20 (45%)`.
        var line: String {
            "\(key)  \(baseFailed)/\(baseRepetitions) (\(AxisPivot.percent(baseRate))) -> "
                + "\(headFailed)/\(headRepetitions) (\(AxisPivot.percent(headRate)))"
        }
    }

    /// The jobs whose flake rate rose (most first) and fell, when either run has repetitions; empty otherwise.
    /// Only jobs with a verdict in both runs are compared.
    static func flakeRateChanges(base: [JobRow], head: [JobRow]) -> (rose: [FlakeRateChange], fell: [FlakeRateChange]) {
        let several = Set(base.map(\.job.registry)).union(head.map(\.job.registry)).count > 1
        guard Stability.compute(rows: base, severalRegistries: several) != nil
            || Stability.compute(rows: head, severalRegistries: several) != nil else { return ([], []) }
        // A run without repetitions counts every job as its own single repetition.
        return flakeRateChanges(old: Stability.compute(rows: base, severalRegistries: several, always: true),
                                new: Stability.compute(rows: head, severalRegistries: several, always: true))
    }

    /// The changes between two runs' stability figures (each computed with `always`).
    static func flakeRateChanges(old: Stability?, new: Stability?) -> (rose: [FlakeRateChange], fell: [FlakeRateChange]) {
        let baseJobs = Dictionary((old?.jobs ?? []).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var rose: [FlakeRateChange] = [], fell: [FlakeRateChange] = []
        for h in new?.jobs ?? [] {
            guard let b = baseJobs[h.key], b.repetitions > 0, h.repetitions > 0, b.flakeRate != h.flakeRate else { continue }
            let change = FlakeRateChange(key: h.key, baseFailed: b.failed, baseRepetitions: b.repetitions, headFailed: h.failed,
                                         headRepetitions: h.repetitions, baseRate: b.flakeRate, headRate: h.flakeRate)
            if h.flakeRate > b.flakeRate { rose.append(change) } else { fell.append(change) }
        }
        let byDelta: (FlakeRateChange, FlakeRateChange) -> Bool = {
            let l = abs($0.headRate - $0.baseRate), r = abs($1.headRate - $1.baseRate)
            return l != r ? l > r : $0.key < $1.key
        }
        return (rose.sorted(by: byDelta), fell.sorted(by: byDelta))
    }
}
