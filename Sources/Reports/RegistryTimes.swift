import Foundation

/// Where a run on several registries (renderers) spent its time, per registry, from the journal's attempts: how many
/// jobs and attempts ran there, the sum of their durations (worker time), and the span from the first attempt's start
/// to the last one's end (wall time, overlapping the other registries' when they ran together).
public struct RegistryTimes: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var registry: String
        public var jobs: Int
        public var attempts: Int
        /// The attempts' durations, summed (seconds).
        public var attemptSeconds: Double
        /// This registry's share of all attempts' seconds (0…1).
        public var share: Double
        /// First attempt started → last attempt finished (seconds); nil when no attempt has both times.
        public var spanSeconds: Double?
    }

    /// One entry per registry, sorted by name.
    public var registries: [Entry]

    /// `catalog 45.8 s of attempts (3.9 %, 270 jobs, over 51 s), web 1130.5 s (96.1 %, 270 jobs, over 11 min 4 s)`.
    public var line: String {
        registries.map { e in
            "\(e.registry) \(Format.seconds(e.attemptSeconds)) of attempts (\(AxisPivot.percent(Self.rounded(e.share))), "
                + "\(e.jobs) job\(e.jobs == 1 ? "" : "s")"
                + (e.spanSeconds.map { ", over \(Format.seconds($0))" } ?? "") + ")"
        }.joined(separator: ", ")
    }

    /// A share rounded to a tenth of a percent.
    static func rounded(_ share: Double) -> Double { (share * 1000).rounded() / 1000 }

    /// Counts jobs as the report's pass streams them.
    struct Tally {
        private var entries: [String: (jobs: Int, attempts: Int, seconds: Double, first: Date?, last: Date?)] = [:]

        mutating func add(_ job: JobReport) {
            var e = entries[job.job.registry] ?? (0, 0, 0, nil, nil)
            e.jobs += 1
            for attempt in job.attempts {
                e.attempts += 1
                guard let result = attempt.row.result else { continue }
                e.seconds += max(0, result.duration)
                if let start = attempt.row.startedAt { e.first = min(e.first ?? start, start) }
                e.last = max(e.last ?? result.finishedAt, result.finishedAt)
            }
            entries[job.job.registry] = e
        }

        /// The figures; nil for a run on fewer than two registries.
        func finish() -> RegistryTimes? {
            guard entries.count > 1 else { return nil }
            let total = entries.values.reduce(0) { $0 + $1.seconds }
            return RegistryTimes(registries: entries.sorted { $0.key < $1.key }.map { name, e in
                let span = e.first.flatMap { first in e.last.map { max(0, $0.timeIntervalSince(first)) } }
                return Entry(registry: name, jobs: e.jobs, attempts: e.attempts, attemptSeconds: e.seconds,
                             share: total > 0 ? e.seconds / total : 0, spanSeconds: span)
            })
        }
    }
}
