import Foundation
import Journal

/// `summary.json`: counts, per-job outcome, durations and artifact references (schema in docs/REPORTS.md).
public struct SummaryDocument: Sendable, Hashable, Codable {
    /// Bumped when a member changes meaning or disappears (members may be added without a bump).
    /// 2: jobs that passed on their only attempt without artifacts moved from `jobs` to the compact `passed` rows.
    /// 3: an artifact is a compact array `[attempt, step, name, mediaType, sha256, rawSize, compressedSize, carried]`;
    /// its `blob` path (derived from the hash) and `file` (a decompressed copy, no longer written) are gone.
    public static let currentSchemaVersion = 3

    public struct Run: Sendable, Hashable, Codable {
        public var id: String
        public var matrix: String
        public var matrixPath: String
        /// Decimal text: a 64-bit seed does not fit a JSON number that every reader parses exactly.
        public var seed: String
        public var status: String
        public var startedAt: String
        public var finishedAt: String?
        public var durationSeconds: Double?
        public var jobsPerSecond: Double?
        public var attempts: Int
        public var workers: [String]
        public var registries: [String]
        public var axes: [String]
        /// The run's settings as stored in the journal (a JSON object, or null when it does not parse).
        public var settings: JSONValue?
    }

    /// An artifact as one compact JSON array (a nightly run has tens of thousands):
    /// `[attempt, step, name, mediaType, sha256, rawSize, compressedSize, carried]`.
    public struct Artifact: Sendable, Hashable, Codable {
        public var attempt: Int
        public var step: Int
        public var name: String
        public var mediaType: String
        public var sha256: String
        public var rawSize: Int
        public var compressedSize: Int
        /// Whether the report folder carries the blob (in one of its `blobs/pack-NNN.js`).
        public var carried: Bool

        /// The blob in the store, relative to the store directory (`blobs/ab/ab….gz`).
        public var blob: String { "blobs/\(sha256.prefix(2))/\(sha256).gz" }

        init(attempt: Int, step: Int, name: String, mediaType: String, sha256: String, rawSize: Int, compressedSize: Int,
             carried: Bool) {
            self.attempt = attempt
            self.step = step
            self.name = name
            self.mediaType = mediaType
            self.sha256 = sha256
            self.rawSize = rawSize
            self.compressedSize = compressedSize
            self.carried = carried
        }

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            attempt = try c.decode(Int.self)
            step = try c.decode(Int.self)
            name = try c.decode(String.self)
            mediaType = try c.decode(String.self)
            sha256 = try c.decode(String.self)
            rawSize = try c.decode(Int.self)
            compressedSize = try c.decode(Int.self)
            carried = try c.decode(Bool.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(attempt)
            try c.encode(step)
            try c.encode(name)
            try c.encode(mediaType)
            try c.encode(sha256)
            try c.encode(rawSize)
            try c.encode(compressedSize)
            try c.encode(carried)
        }
    }

    public struct Attempt: Sendable, Hashable, Codable {
        public var attempt: Int
        public var worker: String
        public var outcome: String?
        public var durationSeconds: Double?
        public var failureStep: Int?
        public var message: String?
        public var superseded: Bool
        public var steps: Int
        /// Steps during which interruptions were handled.
        public var interruptedSteps: Int
    }

    public struct Job: Sendable, Hashable, Codable {
        public var id: String
        public var scenarioID: String
        public var scenarioTitle: String
        public var configuration: [String: String]
        public var registry: String
        /// A heat-map status: passed, failed, flaky, timedOut, quarantined, notRun.
        public var status: String
        /// The journal's outcome (adds `cancelled`); nil while the job has none.
        public var outcome: String?
        public var attempts: Int
        public var durationSeconds: Double?
        public var failureStep: Int?
        public var failureMessage: String?
        public var attemptDetails: [Attempt]
        public var artifacts: [Artifact]
    }

    public struct Baseline: Sendable, Hashable, Codable {
        public var runID: String
        public var hasRegressions: Bool
        /// Category → job ids (categories as in ``RunDiff``).
        public var categories: [String: [String]]
        public var unchanged: Int
    }

    /// A job that passed on its only attempt and stored no artifact, as one compact JSON array
    /// `[id, scenarioID, configuration, registry, durationSeconds]` (`configuration` is the canonical `k=v,k=v`).
    public struct PassedJob: Sendable, Hashable, Codable {
        public var id: String
        public var scenarioID: String
        public var configuration: String
        public var registry: String
        public var durationSeconds: Double?

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            id = try c.decode(String.self)
            scenarioID = try c.decode(String.self)
            configuration = try c.decode(String.self)
            registry = try c.decode(String.self)
            durationSeconds = try c.decodeIfPresent(Double.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(id)
            try c.encode(scenarioID)
            try c.encode(configuration)
            try c.encode(registry)
            try c.encode(durationSeconds)
        }

        /// The row of a job of the index as JSON text, written by hand straight into `out`: a run has up to 100,000.
        static func write(_ job: RunIndex.Job, _ index: RunIndex, to out: ReportOutput) {
            out += "["
            out.writeJSON(job.id, page: false)
            out += ","
            out.writeJSON(index.scenarioID(job), page: false)
            out += ","
            out.writeJSON(index.configuration(job).text, page: false)
            out += ","
            out.writeJSON(index.registry(job), page: false)
            out += "," + JSONText.number(job.duration) + "]"
        }

        /// A job summed up by a row: passed on its only attempt, no artifact.
        static func fits(_ job: JobReport) -> Bool {
            job.status == .passed && job.attempts.count <= 1 && job.attempts.allSatisfy { $0.artifacts.isEmpty && !$0.superseded }
        }
    }

    public var schemaVersion: Int
    public var run: Run
    /// Jobs per status (every status present).
    public var counts: [String: Int]
    public var total: Int
    /// The pivot's sentence, the patterns that explain the failures, and the best groups (at most 10).
    public var headline: String
    public var patterns: [AxisPivot.Explanation]
    public var topGroups: [AxisPivot.Group]
    /// Every job that is not a ``PassedJob`` (failed, flaky, timed out, quarantined, not run, and passed jobs with
    /// retries or artifacts), with attempts and artifacts.
    public var jobs: [Job]
    /// Jobs that passed on their only attempt without artifacts, in plan order.
    public var passed: [PassedJob]
    /// Scenario id → title, for the scenarios of the run.
    public var scenarios: [String: String]
    public var baseline: Baseline?
    /// Stability mode's figures (`run --repeat N`) with the 1,000 least stable jobs (all of them in
    /// `stability.json`); absent when the run has no repetitions.
    public var stability: Stability?

    /// The document's members other than `jobs` and `passed` (left empty), from the run's index.
    init(index: RunIndex, pivot: AxisPivot, diff: RunDiff?, stability: Stability? = nil) {
        let info = index.run.info
        schemaVersion = Self.currentSchemaVersion
        run = Run(
            id: info.runID, matrix: info.matrixName, matrixPath: info.matrixPath, seed: String(info.seed),
            status: index.run.status.rawValue, startedAt: Format.timestamp(info.startedAt),
            finishedAt: index.run.finishedAt.map(Format.timestamp), durationSeconds: index.duration,
            jobsPerSecond: index.jobsPerSecond, attempts: index.attemptCount, workers: index.workers,
            registries: index.registries, axes: index.axisNames,
            settings: (try? JSONDecoder().decode(JSONValue.self, from: Data(info.settingsJSON.utf8)))
        )
        counts = Dictionary(uniqueKeysWithValues: index.counts.map { ($0.key.rawValue, $0.value) })
        total = index.jobs.count
        headline = pivot.headline
        patterns = pivot.explanations
        topGroups = Array(pivot.ranked.prefix(10))
        jobs = []
        passed = []
        scenarios = Dictionary(index.scenarios.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        baseline = diff.map { d in
            Baseline(runID: d.base, hasRegressions: d.hasRegressions,
                     categories: Dictionary(uniqueKeysWithValues: d.sections.map { ($0.key, $0.entries.map(\.jobID)) }),
                     unchanged: d.unchanged)
        }
        self.stability = stability?.truncated(jobs: 1000)
    }

    /// The full entry of a job that is not a compact passed row.
    static func job(_ job: JobReport, carried: (ArtifactReference) -> Bool) -> Job {
        Job(
            id: job.id, scenarioID: job.job.scenarioID, scenarioTitle: job.job.scenarioTitle,
            configuration: Dictionary(job.axes.map { ($0.axis, $0.value) }, uniquingKeysWith: { a, _ in a }),
            registry: job.job.registry, status: job.status.rawValue, outcome: job.row.result?.outcome.rawValue,
            attempts: job.row.result?.attempts ?? job.attempts.count, durationSeconds: job.row.result?.duration,
            failureStep: job.row.result?.failureStep, failureMessage: job.row.result?.failureMessage,
            attemptDetails: job.attempts.map { at in
                Attempt(attempt: at.attempt, worker: at.row.worker, outcome: at.outcome?.rawValue,
                        durationSeconds: at.row.result?.duration, failureStep: at.row.result?.failureStep,
                        message: at.row.result?.message, superseded: at.superseded, steps: at.steps.count,
                        interruptedSteps: at.steps.filter { !($0.interruptions ?? "").isEmpty }.count)
            },
            artifacts: job.attempts.flatMap { at in
                at.artifacts.map { ref in
                    Artifact(attempt: at.attempt, step: ref.stepIndex, name: ref.name, mediaType: ref.mediaType,
                             sha256: ref.sha256, rawSize: ref.rawSize, compressedSize: ref.compressedSize,
                             carried: carried(ref))
                }
            }
        )
    }

    /// Writes `summary.json` as the jobs stream by: the members before `jobs` first, each full job as it comes
    /// (``add(_:carried:)``), then the compact passed rows from the index and the remaining members.
    final class Writer {
        private let out: ReportOutput
        private let index: RunIndex
        private let tail: String
        private let encoder = JSONEncoder()
        private var fits: [Bool]
        private var first = true

        init(out: ReportOutput, index: RunIndex, pivot: AxisPivot, diff: RunDiff?, stability: Stability?) throws {
            self.out = out
            self.index = index
            fits = Array(repeating: false, count: index.jobs.count)
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let text = String(decoding: try encoder.encode(SummaryDocument(index: index, pivot: pivot, diff: diff, stability: stability)),
                              as: UTF8.self)
            // `"jobs":[],"passed":[]` occurs once (sorted keys, adjacent): inside a JSON string its quotes would be
            // escaped.
            guard let slot = text.range(of: "\"jobs\":[],\"passed\":[]") else {
                throw ReportError(code: .output, message: "summary.json: the encoder wrote no jobs and passed members")
            }
            out += String(text[..<slot.lowerBound]) + "\"jobs\":["
            tail = String(text[slot.upperBound...])
        }

        /// One job, in plan order.
        func add(_ job: JobReport, carried: (ArtifactReference) -> Bool) throws {
            if PassedJob.fits(job) {
                // A job planned after the index was read (a resume) has no compact row: it goes in full.
                if job.row.ordinal < fits.count, index.jobs[job.row.ordinal].id == job.id {
                    fits[job.row.ordinal] = true
                    return
                }
            }
            out += (first ? "\n" : ",\n") + String(decoding: try encoder.encode(SummaryDocument.job(job, carried: carried)),
                                                      as: UTF8.self)
            first = false
        }

        /// The passed rows and the rest of the document.
        func finish() {
            out += (first ? "]" : "\n]") + ",\"passed\":["
            var any = false
            for (i, job) in index.jobs.enumerated() where fits[i] {
                out += any ? ",\n" : "\n"
                PassedJob.write(job, index, to: out)
                any = true
            }
            out += (any ? "\n]" : "]") + tail + "\n"
        }
    }
}

extension SummaryDocument {
    /// Any JSON value (to carry the run's settings through verbatim).
    public enum JSONValue: Sendable, Hashable, Codable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let n = try? c.decode(Double.self) { self = .number(n) }
            else if let s = try? c.decode(String.self) { self = .string(s) }
            else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
            else { self = .object(try c.decode([String: JSONValue].self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .null: try c.encodeNil()
            case .bool(let b): try c.encode(b)
            case .number(let n): try c.encode(n)
            case .string(let s): try c.encode(s)
            case .array(let a): try c.encode(a)
            case .object(let o): try c.encode(o)
            }
        }
    }
}
