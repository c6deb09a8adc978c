import Foundation
import Isolation
import Journal

/// `summary.json`: counts, per-job outcome, durations and artifact references (schema in docs/REPORTS.md).
public struct SummaryDocument: Sendable, Hashable, Codable {
    /// Bumped once per release whose `summary.json` differs from the last release's: a member added, removed or
    /// changed in meaning (every member and the version it came with: docs/REPORTS.md, "summary.json fields").
    /// 2: jobs that passed on their only attempt without artifacts moved from `jobs` to the compact `passed` rows.
    /// 3: an artifact is a compact array `[attempt, step, name, mediaType, sha256, rawSize, compressedSize, carried]`;
    /// its `blob` path (derived from the hash) and `file` (a decompressed copy, no longer written) are gone.
    /// 4: `testCases` (junit.xml's counters); the members the other changes of that release add.
    /// 5: `jobs[].tests` (a command job's tests that did not pass), `jobs[].audit`, the pivot's value sets and
    /// per-test pivots, `isolation` — the members this release adds.
    public static let currentSchemaVersion = 5

    /// `junit.xml`'s counters: test cases, not jobs (a command job that reports tests is a case per test, plus a
    /// case of its own when it did not pass). `failures + errors` is 0 exactly when no job failed, timed out or
    /// was quarantined.
    public struct TestCases: Sendable, Hashable, Codable {
        public var tests: Int
        public var failures: Int
        public var errors: Int
        public var skipped: Int
        /// Test cases with flaky elements and no failure (CI counts them passed).
        public var flaky: Int

        init(_ tally: JUnitReport.Tally) {
            (tests, failures, errors, skipped, flaky) = (tally.tests, tally.failures, tally.errors, tally.skipped, tally.flaky)
        }
    }

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
        /// The accessibility audit's findings in the failure, when it is an audit's (`SummaryDocument+Audit.swift`).
        public var audit: [AuditEntry]?
        public var attemptDetails: [Attempt]
        public var artifacts: [Artifact]
        /// A command job's tests that did not pass in some attempt (``TestRecord``); nil when none.
        public var tests: [TestRecord]?
        /// Steps whose picture changed against its visual baseline (docs/VISUAL.md); nil when none did.
        public var visualChanges: Int?
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
        static func write(_ job: RunIndex.Job, _ index: RunIndex, reader: inout JobRecords.Reader, to out: ReportOutput) throws {
            out += "["
            out.writeJSON(try reader.id(job), page: false)
            out += ","
            out.writeJSON(index.scenarioID(job), page: false)
            out += ","
            out.writeJSON(try reader.text(job), page: false)
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
    /// `junit.xml`'s counters, in test cases (``counts`` and ``total`` count jobs).
    public var testCases: TestCases
    /// Command jobs' tests pivoted one by one (the tests that failed), with their sentence; absent without any.
    public var testPatterns: [TestPivot]?
    public var testHeadline: String?
    /// What `flowmatrix isolate` confirmed (`isolation.json` of the report folder); absent without one.
    public var isolation: IsolationRecord?
    /// Where the registries disagree (``Parity``), absent on one registry; sorts after `passed` (see `finish`).
    public var registryParity: Parity?
    /// New and fixed disagreements since the baseline run (``ParityDiff``); absent without a baseline or when
    /// neither run has several registries.
    public var registryParityChanges: ParityDiff?
    /// Where the time went per registry (``RegistryTimes``), absent on one registry; sorts after `passed`.
    public var registryTimes: RegistryTimes?
    /// The comparison with the visual baselines (`SummaryDocument+Visual.swift`); nil when no picture was compared.
    public var visual: VisualSummary?

    /// The document's members other than `jobs` and `passed` (left empty), from the run's index.
    init(index: RunIndex, pivot: AxisPivot, diff: RunDiff?, stability: Stability? = nil,
         testCases: TestCases = TestCases(JUnitReport.Tally())) {
        self.testCases = testCases
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
        total = index.jobCount
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
    /// - Parameter carried: whether the folder carries an artifact, by its attempt's and its own position in `job`.
    static func job(_ job: JobReport, carried: (Int, Int) -> Bool) -> Job {
        Job(
            id: job.id, scenarioID: job.job.scenarioID, scenarioTitle: job.job.scenarioTitle,
            configuration: Dictionary(job.axes.map { ($0.axis, $0.value) }, uniquingKeysWith: { a, _ in a }),
            registry: job.job.registry, status: job.status.rawValue, outcome: job.row.result?.outcome.rawValue,
            attempts: job.row.result?.attempts ?? job.attempts.count, durationSeconds: job.row.result?.duration,
            failureStep: job.row.result?.failureStep, failureMessage: job.row.result?.failureMessage,
            audit: AuditEntry.entries(job.row.result?.failureMessage),
            attemptDetails: job.attempts.map { at in
                Attempt(attempt: at.attempt, worker: at.row.worker, outcome: at.outcome?.rawValue,
                        durationSeconds: at.row.result?.duration, failureStep: at.row.result?.failureStep,
                        message: at.row.result?.message, superseded: at.superseded, steps: at.steps.count,
                        interruptedSteps: at.steps.filter { !($0.interruptions ?? "").isEmpty }.count)
            },
            artifacts: job.attempts.enumerated().flatMap { a, at in
                at.artifacts.enumerated().map { k, ref in
                    Artifact(attempt: at.attempt, step: ref.stepIndex, name: ref.name, mediaType: ref.mediaType,
                             sha256: ref.sha256, rawSize: ref.rawSize, compressedSize: ref.compressedSize,
                             carried: carried(a, k))
                }
            },
            tests: testRecords(job)
        )
    }

    /// Writes `summary.json` as the jobs stream by: each full job entry, as it comes (``add(_:carried:)``), into a
    /// scratch file; then (``finish(into:index:pivot:diff:stability:)``, once the pivot is known) the members before
    /// `jobs`, the entries, the compact passed rows from the index and the remaining members. The entries are
    /// written by hand (``JobEntry``), byte for byte what `JSONEncoder` writes for ``SummaryDocument/job(_:carried:)``.
    final class Writer {
        private let scratch: ReportOutput
        private let scratchURL: URL
        private let index: RunIndex
        private var reader: JobRecords.Reader
        private var entry = JobEntry()
        /// The plan positions of the jobs summed up by a compact row, in plan order.
        private let fits: ScratchFile.Writer
        private var fitCount = 0
        private var first = true
        /// Set before ``finish(into:index:pivot:diff:stability:testCases:)``: the document's per-test patterns and
        /// isolation record.
        var testPivots: [TestPivot] = []
        var isolation: IsolationRecord?
        /// Set before finishing: the registries' disagreements and their changes since the baseline.
        var parity: Parity?
        var parityChanges: ParityDiff?
        var registryTimes: RegistryTimes?
        var visualChanges: [String: Int] = [:]  // job id → steps changed against their visual baselines
        var visual: VisualSummary?  // the run's visual figures (both set before the jobs are added)

        /// - Parameter folder: where the scratch files go (removed when the writer is released).
        init(index: RunIndex, folder: URL) throws {
            self.index = index
            reader = index.reader()
            scratchURL = ReportOutput.temporaryURL(for: folder.appendingPathComponent("summary-jobs"))
            scratch = try ReportOutput(file: scratchURL)
            fits = try ScratchFile.Writer(in: folder)
        }

        deinit { try? FileManager.default.removeItem(at: scratchURL) }

        /// One job, in plan order.
        /// - Parameter carried: whether the folder carries an artifact, by its attempt's and its own position.
        func add(_ job: JobReport, carried: (Int, Int) -> Bool) throws {
            let ordinal = job.row.ordinal
            let record = ordinal < index.jobCount ? try reader.job(ordinal) : nil
            // A job planned after the index was read (a resume) has no compact row: it goes in full.
            let known = try record.map { try reader.matches($0, job.id) } ?? false
            let visualChanged = visualChanges[job.id] ?? 0  // visual changes need the full entry
            if PassedJob.fits(job) && known && visualChanged == 0 {
                try fits.append(Int64(ordinal))
                fitCount += 1
                return
            }
            scratch += first ? "\n" : ",\n"
            try entry.write(job, configuration: known ? record?.configuration : nil, carried: carried,
                            visualChanges: visualChanged, to: scratch)
            first = false
        }

        /// Writes the document into `out`: the members before `jobs`, the full entries, the passed rows, the rest.
        /// - Parameter index: the run's index with its attempt count and workers (the writer's own copy was taken
        ///   before the pass counted them).
        func finish(into out: ReportOutput, index: RunIndex, pivot: AxisPivot, diff: RunDiff?, stability: Stability?,
                    testCases: TestCases) throws {
            try scratch.finish()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var document = SummaryDocument(index: index, pivot: pivot, diff: diff, stability: stability, testCases: testCases)
            let failingTests = testPivots.filter { $0.failures > 0 }
            document.testPatterns = failingTests.isEmpty ? nil : failingTests
            document.testHeadline = TestPivot.headline(testPivots)
            document.isolation = isolation
            document.registryParity = parity
            document.registryParityChanges = parityChanges
            document.registryTimes = registryTimes
            document.visual = visual
            let text = String(decoding: try encoder.encode(document), as: UTF8.self)
            // `"jobs":[],"passed":[]` occurs once (sorted keys, adjacent): inside a JSON string its quotes would be
            // escaped.
            guard let slot = text.range(of: "\"jobs\":[],\"passed\":[]") else {
                throw ReportError(code: .output, message: "summary.json: the encoder wrote no jobs and passed members")
            }
            out += String(text[..<slot.lowerBound]) + "\"jobs\":["
            try out.append(contentsOf: scratchURL)
            try? FileManager.default.removeItem(at: scratchURL)  // read: nothing of it is needed any more
            out += (first ? "]" : "\n]") + ",\"passed\":["
            var any = false
            let positions = try fits.finish()
            var fitReader = ScratchFile.Reader(positions, slots: 1)
            var rows = index.reader()
            for i in 0..<fitCount {
                out += any ? ",\n" : "\n"
                let position = Int(try fitReader.load(Int64.self, at: i * 8))
                try PassedJob.write(try rows.job(position), index, reader: &rows, to: out)
                any = true
            }
            out += (any ? "\n]" : "]") + String(text[slot.upperBound...]) + "\n"
        }
    }

    /// Writes a job's full entry as `JSONEncoder` (sorted keys, slashes unescaped) writes ``SummaryDocument/Job``,
    /// without building the value: members in key order, optional members left out when nil. Strings that need an
    /// escape and numbers that are not finite go through the encoder itself, so the bytes are the same.
    struct JobEntry {
        private let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()
        /// The encoded `configuration` object of the configurations met lately (emptied when it holds 4,096).
        private var configurations: [Int64: [UInt8]] = [:]

        mutating func write(_ job: JobReport, configuration: Int64?, carried: (Int, Int) -> Bool,
                            visualChanges: Int = 0, to o: ReportOutput) throws {
            let result = job.row.result
            o += "{\"artifacts\":["
            var firstArtifact = true
            for (a, at) in job.attempts.enumerated() {
                for (k, ref) in at.artifacts.enumerated() {
                    o += firstArtifact ? "[" : ",["
                    firstArtifact = false
                    o.write(int: at.attempt); o += ","; o.write(int: ref.stepIndex); o += ","
                    try string(ref.name, o); o += ","; try string(ref.mediaType, o); o += ","; try string(ref.sha256, o)
                    o += ","; o.write(int: ref.rawSize); o += ","; o.write(int: ref.compressedSize)
                    o += carried(a, k) ? ",true]" : ",false]"
                }
            }
            o += "],\"attemptDetails\":["
            for (i, at) in job.attempts.enumerated() {
                if i > 0 { o += "," }
                try attempt(at, o)
            }
            o += "],\"attempts\":"; o.write(int: result?.attempts ?? job.attempts.count)
            if let audit = AuditEntry.entries(result?.failureMessage) { try writeAudit(audit, o) }
            o += ",\"configuration\":"; o.write(bytes: try configurationObject(job, configuration))
            if let d = result?.duration { o += ",\"durationSeconds\":"; try number(d, o) }
            if let m = result?.failureMessage { o += ",\"failureMessage\":"; try string(m, o) }
            if let f = result?.failureStep { o += ",\"failureStep\":"; o.write(int: f) }
            o += ",\"id\":"; try string(job.id, o)
            if let outcome = result?.outcome { o += ",\"outcome\":"; try string(outcome.rawValue, o) }
            o += ",\"registry\":"; try string(job.job.registry, o)
            o += ",\"scenarioID\":"; try string(job.job.scenarioID, o)
            o += ",\"scenarioTitle\":"; try string(job.job.scenarioTitle, o)
            o += ",\"status\":"; try string(job.status.rawValue, o)
            if let tests = SummaryDocument.testRecords(job) { o += ",\"tests\":"; try encoded(tests, o) }
            if visualChanges > 0 { o += ",\"visualChanges\":"; o.write(int: visualChanges) }
            o += "}"
        }

        private func attempt(_ at: AttemptReport, _ o: ReportOutput) throws {
            let result = at.row.result
            o += "{\"attempt\":"; o.write(int: at.attempt)
            if let d = result?.duration { o += ",\"durationSeconds\":"; try number(d, o) }
            if let f = result?.failureStep { o += ",\"failureStep\":"; o.write(int: f) }
            var interrupted = 0
            for step in at.steps where !(step.interruptions ?? "").isEmpty { interrupted += 1 }
            o += ",\"interruptedSteps\":"; o.write(int: interrupted)
            if let m = result?.message { o += ",\"message\":"; try string(m, o) }
            if let outcome = at.outcome { o += ",\"outcome\":"; try string(outcome.rawValue, o) }
            o += ",\"steps\":"; o.write(int: at.steps.count)
            o += at.superseded ? ",\"superseded\":true" : ",\"superseded\":false"
            o += ",\"worker\":"; try string(at.row.worker, o)
            o += "}"
        }

        private mutating func configurationObject(_ job: JobReport, _ configuration: Int64?) throws -> [UInt8] {
            if let configuration, let known = configurations[configuration] { return known }
            let object = Dictionary(job.axes.map { ($0.axis, $0.value) }, uniquingKeysWith: { a, _ in a })
            let bytes = [UInt8](try encoder.encode(object))
            if configurations.count >= 4_096 { configurations.removeAll(keepingCapacity: true) }
            if let configuration { configurations[configuration] = bytes }
            return bytes
        }

        /// A string as the encoder writes it: as is between quotes unless it holds `"`, `\\` or a control character.
        func string(_ text: String, _ o: ReportOutput) throws {
            var text = text
            let plain = text.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } }
            guard plain else { return try encoded(text, o) }
            o.write(quoted: text)
        }

        /// A number as the encoder writes it: Swift's shortest form without a trailing `.0`.
        private func number(_ value: Double, _ o: ReportOutput) throws {
            guard value.isFinite else { return try encoded(value, o) }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            o += text
        }

        /// One value through the encoder (as the only element of an array, whose brackets are dropped).
        private func encoded(_ value: some Encodable, _ o: ReportOutput) throws {
            let bytes = try encoder.encode([value])
            o.write(bytes: bytes.dropFirst().dropLast())
        }
    }
}
