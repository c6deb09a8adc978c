import Foundation
import Testing

@testable import Journal

/// Deleting runs: every row of the run goes, other runs stay whole, running runs stay unless forced.
@Suite("Journal pruner")
struct JournalPrunerTests {
    static let hashA = String(repeating: "a1", count: 32)
    static let hashB = String(repeating: "b2", count: 32)

    static func artifact(_ run: String, _ hash: String) -> JournalRecord {
        .artifactStored(
            runID: run, jobID: "a", attempt: 1,
            artifact: ArtifactReference(stepIndex: 0, name: "shot.png", mediaType: "image/png", sha256: hash,
                                        compressedSize: 8, rawSize: 10))
    }

    @Test("a deleted run takes its jobs, attempts, results and artifact references along; the other run is untouched")
    func deleteCascades() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("old"), Fixture.run("new", at: 60),
                           .jobsPlanned(runID: "old", jobs: [Fixture.job("a")]), .jobsPlanned(runID: "new", jobs: [Fixture.job("a")])]
                          + Fixture.attempt("old", "a", 1) + [Self.artifact("old", Self.hashA), Fixture.finished("old", "a", .passed, duration: 1)]
                          + Fixture.attempt("new", "a", 1) + [Self.artifact("new", Self.hashB), Fixture.finished("new", "a", .passed, duration: 1)]
                          + [.runFinished(runID: "old", status: .completed, at: Fixture.t0),
                             .runFinished(runID: "new", status: .completed, at: Fixture.t0)])
        try writer.flushSync()
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.referencedBlobs() == [Self.hashA, Self.hashB])

        let result = try JournalPruner(path: dir.journalPath).deleteRuns(["old", "nope"])
        #expect(result.deleted == ["old"] && result.unknown == ["nope"] && result.skippedRunning.isEmpty)
        #expect(try reader.runs().map(\.info.runID) == ["new"])
        #expect(try reader.referencedBlobs() == [Self.hashB])
        #expect(try reader.jobs(run: "old").isEmpty)
        #expect(try reader.attempts(run: "old", job: "a").isEmpty)
        #expect(try reader.jobs(run: "new").first?.result?.outcome == .passed)
        #expect(try reader.attempts(run: "new", job: "a").count == 1)
        // The writer keeps working on the same journal afterwards.
        try writer.submit([Fixture.run("later", at: 120)])
        try writer.flushSync()
        #expect(try reader.runs().map(\.info.runID) == ["later", "new"])
        try writer.close()
    }

    @Test("a run still marked running is kept unless the caller includes running runs")
    func runningRunsKept() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("live"), .jobsPlanned(runID: "live", jobs: [Fixture.job("a")])])
        try writer.flushSync()
        try writer.close()
        let pruner = try JournalPruner(path: dir.journalPath)
        #expect(try pruner.deleteRuns(["live"]).skippedRunning == ["live"])
        #expect(try JournalReader(path: dir.journalPath).run("live") != nil)
        #expect(try pruner.deleteRuns(["live"], includingRunning: true).deleted == ["live"])
        #expect(try JournalReader(path: dir.journalPath).run("live") == nil)
    }

    @Test("a file that is not a journal is refused, and nothing is created")
    func notAJournal() throws {
        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("other.sqlite").path
        #expect(throws: JournalError.self) { try JournalPruner(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
