import Artifacts
import FlowVocabulary
import Foundation
import Journal
import Reports

/// A temporary `.flowmatrix` store with a real journal and blob store, filled by `JournalWriter`.
final class StoreFixture {
    let directory: URL
    var journalPath: String { directory.appendingPathComponent("journal.sqlite").path }
    let store: BlobStore

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("flowmatrix-reports-\(UUID().uuidString)")
            .appendingPathComponent(".flowmatrix")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try BlobStore(root: directory, syncToDisk: false)
    }

    deinit {
        // FLOWMATRIX_KEEP_FIXTURES=1 keeps the stores (and their reports) for a look in a browser.
        if ProcessInfo.processInfo.environment["FLOWMATRIX_KEEP_FIXTURES"] == "1" { return }
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    func reader() throws -> JournalReader { try JournalReader(path: journalPath) }

    /// A report folder under the fixture (`runs/<id>`).
    func runFolder(_ runID: String) -> URL {
        directory.appendingPathComponent("runs").appendingPathComponent(runID)
    }

    /// Writes runs into the journal (and their artifacts into the store).
    func write(_ runs: [FixtureRun]) throws {
        let writer = try JournalWriter(path: journalPath)
        for run in runs { try writer.submit(try run.records(store: store)) }
        try writer.close()
        let rejected = writer.takeRejections()
        if !rejected.isEmpty { throw FixtureError("journal rejected \(rejected)") }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

/// What a fixture job does.
enum Plan: Sendable, Hashable {
    case pass
    /// Every attempt fails at step 2 (with a retry).
    case fail
    /// Attempt 1 fails at step 1 on worker-a, attempt 2 passes on worker-b.
    case flaky
    case timeout
    /// Two attempts lose their worker; the job is quarantined.
    case quarantine
    /// Never started; the run ends with it cancelled.
    case cancelled
}

struct FixtureJob: Sendable {
    var scenarioID: String
    var title: String
    /// Scenario content version: changing it changes the job id (as a changed scenario does).
    var version: Int = 1
    var configuration: [(String, String)]
    var registry = "catalog"
    var plan: Plan
    var duration: Double = 1.0
    /// Failure message of failing steps.
    var message = "expected 'Total' to be visible; it is clipped at the trailing edge"

    var canonical: String { configuration.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: ",") }
    var json: String {
        "{" + configuration.sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
    }
    /// A stable 16-hex id from scenario, version, configuration and registry (FNV-1a, 64 bits).
    var jobID: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(scenarioID)|\(version)|\(canonical)|\(registry)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
    var planned: PlannedJob {
        PlannedJob(jobID: jobID, scenarioID: scenarioID, scenarioTitle: title, configuration: canonical,
                   configurationJSON: json, registry: registry)
    }
}

struct FixtureRun: Sendable {
    var runID: String
    var startedAt: Date
    var matrixName = "locale-rtl-sweep"
    var seed: UInt64 = 0xfeed_beef_1234_5678
    var jobs: [FixtureJob]

    static let steps = ["launch app", "tap 'Checkout'", "expect 'Total' visible", "tap 'Pay'"]

    func records(store: BlobStore) throws -> [JournalRecord] {
        var records: [JournalRecord] = [
            .runStarted(RunInfo(runID: runID, matrixName: matrixName, matrixPath: "Matrices/\(matrixName).json", seed: seed,
                                startedAt: startedAt, settingsJSON: #"{"retries":1,"workers":2}"#)),
            .jobsPlanned(runID: runID, jobs: jobs.map(\.planned)),
        ]
        var clock = startedAt
        func tick(_ seconds: Double) -> Date {
            clock = clock.addingTimeInterval(seconds)
            return clock
        }
        for job in jobs {
            let id = job.jobID
            func attempt(_ n: Int, worker: String, outcome: JobOutcome, failAt: Int?, stepOutcome: StepOutcome = .failed,
                         interruptions: Bool = false) throws {
                records.append(.attemptStarted(runID: runID, jobID: id, attempt: n, worker: worker, at: tick(0.01)))
                let lastStep = failAt ?? (Self.steps.count - 1)
                for (i, key) in Self.steps.enumerated() where i <= lastStep {
                    let failing = i == failAt
                    records.append(.stepRecorded(runID: runID, jobID: id, attempt: n, step: StepResult(
                        index: i, key: key, outcome: failing ? stepOutcome : .passed,
                        duration: job.duration / Double(Self.steps.count),
                        message: failing ? job.message : nil,
                        interruptions: interruptions && i == 0 ? "alert 'Allow notifications?' dismissed" : nil)))
                    if failing {
                        for artifact in try Self.artifacts(job: job, attempt: n, step: i) {
                            try store.store(artifact)
                            records.append(.artifactStored(runID: runID, jobID: id, attempt: n, artifact: ArtifactReference(
                                stepIndex: i, name: artifact.name, mediaType: artifact.mediaType, sha256: artifact.sha256,
                                compressedSize: artifact.compressedSize, rawSize: artifact.rawSize)))
                        }
                    }
                }
                records.append(.attemptFinished(runID: runID, jobID: id, attempt: n, result: AttemptResult(
                    outcome: outcome, finishedAt: tick(job.duration), duration: job.duration, failureStep: failAt,
                    message: failAt == nil ? nil : job.message)))
            }
            func finish(_ outcome: JobOutcome, attempts: Int, failAt: Int? = nil, message: String? = nil) {
                records.append(.jobFinished(runID: runID, jobID: id, result: JobResult(
                    outcome: outcome, attempts: attempts, duration: attempts == 0 ? nil : job.duration, failureStep: failAt,
                    failureMessage: message ?? (failAt == nil ? nil : job.message), finishedAt: clock)))
            }
            switch job.plan {
            case .pass:
                try attempt(1, worker: "worker-a", outcome: .passed, failAt: nil, interruptions: job.scenarioID == "checkout")
                finish(.passed, attempts: 1)
            case .fail:
                try attempt(1, worker: "worker-a", outcome: .failed, failAt: 2, interruptions: true)
                try attempt(2, worker: "worker-b", outcome: .failed, failAt: 2, interruptions: true)
                finish(.failed, attempts: 2, failAt: 2)
            case .flaky:
                try attempt(1, worker: "worker-a", outcome: .failed, failAt: 1)
                try attempt(2, worker: "worker-b", outcome: .passed, failAt: nil)
                finish(.flaky, attempts: 2)
            case .timeout:
                try attempt(1, worker: "worker-b", outcome: .timedOut, failAt: 3, stepOutcome: .timedOut)
                finish(.timedOut, attempts: 1, failAt: 3)
            case .quarantine:
                for n in 1...2 {
                    records.append(.attemptStarted(runID: runID, jobID: id, attempt: n, worker: "worker-\(n)", at: tick(0.01)))
                    records.append(.attemptFinished(runID: runID, jobID: id, attempt: n, result: AttemptResult(
                        outcome: .cancelled, finishedAt: tick(0.5), duration: 0.5,
                        message: "the worker was lost while running this attempt")))
                }
                finish(.quarantined, attempts: 2, message: "killed 2 workers in a row")
            case .cancelled:
                finish(.cancelled, attempts: 0, message: "the run was interrupted")
            }
        }
        records.append(.runFinished(runID: runID, status: .completed, at: tick(0.1)))
        return records
    }

    /// A wireframe PNG, a JSON surface snapshot and a log for a failing step.
    static func artifacts(job: FixtureJob, attempt: Int, step: Int) throws -> [CompressedArtifact] {
        let sink = ArtifactSink()
        let snapshot = #"{"screen":"checkout","nodes":[{"id":"total","label":"Total","frame":[300,20,120,24],"clipped":true}],"# +
            #""direction":"\#(job.configuration.first { $0.0 == "direction" }?.1 ?? "ltr")"}"#
        return [
            try sink.attach(name: "wireframe.png", mediaType: "image/png", bytes: PNG.checkerboard(width: 24, height: 16), step: step),
            try sink.attach(name: "surface.json", mediaType: "application/json", bytes: Array(snapshot.utf8), step: step),
            try sink.attach(name: "log.txt", mediaType: "text/plain",
                            bytes: Array("attempt \(attempt) step \(step): \(job.message)\n<b>not bold</b>\n".utf8), step: step),
        ]
    }
}

/// The locale / RTL sweep of the Catalog sample: three scenarios × locale × direction × orientation.
///
/// In the base run `checkout` fails exactly with direction=rtl + orientation=landscape; one job is flaky, one
/// timed out, one quarantined, one cancelled. The `xss` scenario's title is a script tag.
enum Sweep {
    static let locales = ["en-US", "ar", "de-DE"]
    static let directions = ["ltr", "rtl"]
    static let orientations = ["portrait", "landscape"]
    static let xssTitle = "<script>alert(1)</script>"

    static func jobs(_ plan: (String, String, String, String) -> Plan, version: (String) -> Int = { _ in 1 },
                     duration: (String, String, String, String) -> Double = { _, _, _, _ in 1.0 }) -> [FixtureJob] {
        var jobs: [FixtureJob] = []
        for (scenario, title) in [("browse", "Browse the catalog"), ("checkout", "Check out"), ("xss", xssTitle)] {
            for locale in locales {
                for direction in directions {
                    for orientation in orientations {
                        jobs.append(FixtureJob(
                            scenarioID: scenario, title: title, version: version(scenario),
                            configuration: [("locale", locale), ("direction", direction), ("orientation", orientation)],
                            plan: plan(scenario, locale, direction, orientation),
                            duration: duration(scenario, locale, direction, orientation)))
                    }
                }
            }
        }
        return jobs
    }

    static func basePlan(_ s: String, _ l: String, _ d: String, _ o: String) -> Plan {
        switch (s, l, d, o) {
        case ("checkout", _, "rtl", "landscape"): .fail
        case ("browse", "en-US", "ltr", "portrait"): .flaky
        case ("xss", "de-DE", "ltr", "portrait"): .timeout
        case ("xss", "de-DE", "ltr", "landscape"): .quarantine
        case ("xss", "de-DE", "rtl", "portrait"): .cancelled
        default: .pass
        }
    }

    static func base(runID: String = "20261129-0100-aaaa", at start: Date = Date(timeIntervalSince1970: 1_795_900_000)) -> FixtureRun {
        FixtureRun(runID: runID, startedAt: start, jobs: jobs(basePlan))
    }

    static func job(_ run: FixtureRun, _ scenario: String, _ locale: String, _ direction: String, _ orientation: String) -> FixtureJob? {
        run.jobs.first {
            $0.scenarioID == scenario && $0.canonical == "direction=\(direction),locale=\(locale),orientation=\(orientation)"
        }
    }
}

/// A run of 2,000 jobs: 20 scenarios × 10 locales × 2 directions × 5 window sizes. `s3` fails with rtl at the
/// largest window (10 jobs); `s7` is flaky in locale `l2` with ltr (5 jobs); everything else passes.
enum LargeSweep {
    /// 100 jobs per scenario (20 scenarios: 2,000 jobs); the failures are in scenario 3, and in 803 with 1,000 scenarios.
    static func run(runID: String = "20261201-0100-cccc", scenarios: Int = 20) -> FixtureRun {
        var jobs: [FixtureJob] = []
        for s in 0..<scenarios {
            for l in 0..<10 {
                for direction in ["ltr", "rtl"] {
                    for w in 0..<5 {
                        let plan: Plan = s % 800 == 3 && direction == "rtl" && w == 4 ? .fail
                            : s == 7 && l == 2 && direction == "ltr" ? .flaky : .pass
                        jobs.append(FixtureJob(scenarioID: "s\(s)", title: "Scenario \(s)",
                                               configuration: [("locale", "l\(l)"), ("direction", direction), ("window", "w\(w)")],
                                               plan: plan))
                    }
                }
            }
        }
        return FixtureRun(runID: runID, startedAt: Date(timeIntervalSince1970: 1_796_000_000), matrixName: "large", jobs: jobs)
    }
}

/// A minimal valid PNG (8-bit RGB, one stored-deflate zlib stream), built by hand.
enum PNG {
    static func checkerboard(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                let dark = (x / 4 + y / 4) % 2 == 0
                raw += dark ? [0xd6, 0x3b, 0x3b] : [0xff, 0xff, 0xff]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65_535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            zlib += [final, UInt8(n & 0xff), UInt8(n >> 8), UInt8(~n & 0xff), UInt8((~n >> 8) & 0xff)]
            zlib += raw[offset..<offset + n]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += be32((b << 16) | a)
        var png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
