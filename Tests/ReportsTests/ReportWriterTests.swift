import Artifacts
import Foundation
import Gzip
import Journal
@testable import Reports
import Testing

/// The base sweep written and reported once per test.
struct WrittenReport {
    let fixture: StoreFixture
    let files: ReportFiles
    let html: String
    let run: FixtureRun

    init(settings: ReportSettings = ReportSettings(), baseline: String? = nil, runs: [FixtureRun] = [Nightly.base],
         report runID: String = Nightly.base.runID) throws {
        fixture = try StoreFixture()
        try fixture.write(runs)
        run = try #require(runs.first { $0.runID == runID })
        files = try ReportWriter.write(runID: runID, reader: try fixture.reader(), blobsRoot: fixture.directory,
                                       into: fixture.runFolder(runID), baseline: baseline, settings: settings)
        html = try String(contentsOf: files.html, encoding: .utf8)
    }

    func job(_ scenario: String, _ locale: String, _ direction: String, _ orientation: String) throws -> FixtureJob {
        try #require(Sweep.job(run, scenario, locale, direction, orientation))
    }

    /// Every job's panel data, from all the chunk files (`data/jobs-NNN.js`), by job id.
    func chunkJobs() throws -> [String: [Any]] {
        var jobs: [String: [Any]] = [:]
        for url in files.chunks {
            let json = try ReportScript.payload(of: url)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: [Any]])
            jobs.merge(object) { a, _ in a }
        }
        return jobs
    }

    /// One job's panel data.
    func jobData(_ id: String) throws -> [Any] {
        try #require(try chunkJobs()[id])
    }

    /// The decompressed content of a blob the folder carries, by hash (found through the chunks' `[pack, index]`).
    func blob(_ sha256: String) throws -> [UInt8] {
        try #require(try carried()[sha256])
    }

    /// Every blob the chunks reference in the folder's packs, decompressed, by hash.
    func carried() throws -> [String: [UInt8]] {
        let packs = try files.blobs.map { url in
            let text = try String(contentsOf: url, encoding: .utf8)
            let open = try #require(text.range(of: ",[\n"))
            let close = try #require(text.range(of: "\n]);", options: .backwards))
            return text[open.upperBound..<close.lowerBound].split(separator: ",\n").map { String($0.dropFirst().dropLast()) }
        }
        var blobs: [String: [UInt8]] = [:]
        for job in try chunkJobs().values {
            for attempt in job[8] as? [[Any]] ?? [] {
                for ref in attempt[9] as? [[Any]] ?? [] {
                    guard let place = ref[5] as? [Int], let sha = ref[4] as? String else { continue }
                    blobs[sha] = try ReportScript.gunzip(z85: packs[place[0]][place[1]])
                }
            }
        }
        #expect(blobs.count == packs.reduce(0) { $0 + $1.count })
        return blobs
    }
}

/// The scripts of a report folder: `FM.chunk(n,"<base64>")` / `FM.blob("<sha>","<base64>")`, gzip inside.
enum ReportScript {
    /// The decompressed payload of a chunk file.
    static func payload(of url: URL) throws -> [UInt8] {
        try payload(of: try String(contentsOf: url, encoding: .utf8))
    }

    /// The decompressed payload of one `FM.chunk(n,"<base64>");` call.
    static func payload(of text: String) throws -> [UInt8] {
        let open = try #require(text.range(of: ",\""))
        let close = try #require(text.range(of: "\");", options: .backwards))
        return try gunzip(String(text[open.upperBound..<close.lowerBound]))
    }

    /// Base64 of gzip, decoded and decompressed.
    static func gunzip(_ base64: String) throws -> [UInt8] {
        try inflate(try #require(Data(base64Encoded: base64)))
    }

    /// A pack's entry: Z85 of gzip after the pad digit (`Z85.swift`), decoded and decompressed.
    static func gunzip(z85 text: String) throws -> [UInt8] {
        try inflate(Data(try #require(Z85.decode(Array(text.utf8)))))
    }

    static func inflate(_ compressed: Data) throws -> [UInt8] {
        let decompressor = try GzipDecompressor(maxOutputSize: 1 << 30)
        var out: [UInt8] = []
        try compressed.withUnsafeBytes { try decompressor.decompress($0) { out.append(contentsOf: $0) } }
        try decompressor.finish()
        return out
    }
}

func occurrences(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

@Suite("Report writer")
struct ReportWriterTests {
    @Test("writes report.html, junit.xml, summary.json into the run folder")
    func files() throws {
        let written = try WrittenReport()
        for url in [written.files.html, written.files.junit, written.files.summary] {
            #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
        }
        #expect(written.files.folder.lastPathComponent == Nightly.base.runID)
        #expect(written.files.warnings.isEmpty)
        #expect(written.files.diff == nil)
    }

    /// Distinct blobs referenced by the jobs `include` accepts.
    private func blobs(_ written: WrittenReport, _ include: (Plan) -> Bool) throws -> Set<String> {
        let reader = try written.fixture.reader()
        let plans = Dictionary(uniqueKeysWithValues: written.run.jobs.map { ($0.jobID, $0.plan) })
        return Set(try reader.artifacts(run: written.run.runID).filter { include(plans[$0.jobID] ?? .pass) }.map(\.artifact.sha256))
    }

    @Test("by default the folder carries the blobs of jobs that did not pass: once each, still compressed")
    func artifactsOfFailures() throws {
        let written = try WrittenReport()
        // Failed jobs: 3 × 2 attempts × 3 artifacts; flaky: 1 failed attempt × 3; timed out: 1 × 3 — 24 references
        // to 7 distinct blobs (one PNG, two snapshots, four logs: identical content is one blob).
        let expected = try blobs(written) { $0 != .pass }
        #expect(expected.count == 7)
        #expect(Set(try written.carried().keys) == expected)
        #expect(written.files.carriedBlobs == 7)
        #expect(written.files.blobs.map(\.lastPathComponent) == ["pack-000.js"])
        #expect(!FileManager.default.fileExists(atPath: written.files.folder.appendingPathComponent("artifacts").path))
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let attempts = try #require(try written.jobData(failed.jobID)[8] as? [[Any]])
        let refs = try #require(attempts[0][9] as? [[Any]])
        let png = try #require(refs.first { $0[1] as? String == "wireframe.png" })
        #expect((png[5] as? [Int])?.first == 0)
        #expect(try written.blob(try #require(png[4] as? String)) == PNG.checkerboard(width: 24, height: 16))
        let log = try #require((attempts[1][9] as? [[Any]])?.first { $0[1] as? String == "log.txt" })
        #expect(String(decoding: try written.blob(try #require(log[4] as? String)), as: UTF8.self)
            .hasPrefix("attempt 2 step 2: expected 'Total'"))
        // The carried blobs are Z85 of the store's .gz bytes: a quarter more, plus a few bytes of wrapper each.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: written.files.blobs[0].path)[.size] as? Int)
        #expect(size <= written.files.blobBytes * 5 / 4 + 10 * written.files.carriedBlobs + 20)
    }

    @Test("--artifacts all carries every blob; none carries nothing and the panel data lists them by hash")
    func artifactSelection() throws {
        let none = try WrittenReport(settings: ReportSettings(artifacts: .none))
        #expect(none.files.blobs.isEmpty)
        let failed = try none.job("checkout", "ar", "rtl", "landscape")
        let refs = try #require((try none.jobData(failed.jobID)[8] as? [[Any]])?.first?[9] as? [[Any]])
        #expect(refs.count == 3)
        #expect(refs.allSatisfy { $0[5] is NSNull && $0[6] as? String == "not carried" })
        let all = try WrittenReport(settings: ReportSettings(artifacts: .all))
        #expect(Set(try all.carried().keys) == (try blobs(all) { _ in true }))
    }

    @Test("a blob missing from the store is a warning in the report, not a failure")
    func missingBlob() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let reader = try fixture.reader()
        let failed = try #require(Sweep.job(Nightly.base, "checkout", "ar", "rtl", "landscape"))
        let row = try #require(try reader.artifacts(run: Nightly.base.runID, job: failed.jobID, attempt: 1)
            .first { $0.artifact.name == "surface.json" })
        try FileManager.default.removeItem(at: try fixture.store.url(for: row.artifact.sha256))
        let files = try ReportWriter.write(runID: Nightly.base.runID, reader: reader, blobsRoot: fixture.directory,
                                           into: fixture.runFolder("r"))
        // The same snapshot content is shared by every failing rtl attempt: it warns once.
        #expect(files.warnings.count == 1)
        #expect(files.warnings.allSatisfy { $0.contains("surface.json") && $0.contains("no blob") })
        #expect(files.carriedBlobs == 6)
        let html = try String(contentsOf: files.html, encoding: .utf8)
        #expect(html.contains("warning(s) while writing this report"))
    }

    @Test("a report killed mid-write leaves nothing in the run folder after the next report; none writes temporaries there")
    func killedWriteLeavesNothing() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let folder = fixture.runFolder("killed")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".partial"), withIntermediateDirectories: true)
        // What a write killed by an older version (in the folder) and by this one (in .partial) left: 0-byte files.
        let stale = [".report.html.\(UUID().uuidString).tmp", ".summary-jobs-\(UUID().uuidString).tmp",
                     ".partial/junit.xml.\(UUID().uuidString).tmp"]
        for name in stale {
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: nil))
        }
        // While a file is being written, its temporary is not among the report's files.
        let output = try ReportOutput(file: folder.appendingPathComponent("report.html"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }.count == 2)
        output.write("half")
        try ReportWriter.write(runID: Nightly.base.runID, reader: try fixture.reader(), blobsRoot: fixture.directory,
                               into: folder)
        let left = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        #expect(left.filter { $0.hasSuffix(".tmp") || $0.hasPrefix(".partial") }.isEmpty, "\(left)")
        for name in left {
            let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int
            let isFolder = (try? folder.appendingPathComponent(name).resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            #expect(isFolder || size != 0, "a 0-byte \(name) in the run folder")
        }
    }

    @Test("the blob root may be the store directory or its blobs folder")
    func blobRoot() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let files = try ReportWriter.write(runID: Nightly.base.runID, reader: try fixture.reader(),
                                           blobsRoot: fixture.directory.appendingPathComponent("blobs"),
                                           into: fixture.runFolder("b"))
        #expect(files.carriedBlobs == 7)
        #expect(files.warnings.isEmpty)
    }

    @Test("an unknown run or baseline is a ReportError; --baseline last takes the run before")
    func baselines() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base, Nightly.head])
        let reader = try fixture.reader()
        #expect(try ReportWriter.resolveBaseline("last", for: Nightly.headID, reader: reader) == Nightly.base.runID)
        #expect(throws: ReportError.self) { try ReportWriter.resolveBaseline("last", for: Nightly.base.runID, reader: reader) }
        #expect(throws: ReportError.self) { try ReportWriter.resolveBaseline("nope", for: Nightly.headID, reader: reader) }
        #expect(throws: ReportError.self) {
            try ReportWriter.write(runID: "nope", reader: reader, blobsRoot: fixture.directory, into: fixture.runFolder("x"))
        }
        let files = try ReportWriter.write(runID: Nightly.headID, reader: reader, blobsRoot: fixture.directory,
                                           into: fixture.runFolder(Nightly.headID), baseline: "last")
        #expect(files.baselineRunID == Nightly.base.runID)
        #expect(files.diff?.newFailures.count == 4)
    }
}
