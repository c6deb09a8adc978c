import Foundation
import Journal
import Testing

/// `forEachJobRow` and `forEachJob`: a run read row by row, as the report writer does, equals what the array reads
/// give, in plan order, with each attempt's steps and artifacts.
@Suite("Journal streaming reads")
struct JournalStreamingTests {
    private func artifact(_ name: String, step: Int, _ fill: Character) -> ArtifactReference {
        ArtifactReference(stepIndex: step, name: name, mediaType: "image/png",
                          sha256: String(repeating: fill, count: 64), compressedSize: 10, rawSize: 20)
    }

    /// Jobs c, a, b (plan order is not id order): c passes; a fails, retries and passes, with artifacts on both
    /// attempts; b never starts. Another run's job d must not show.
    private func journal() throws -> (TemporaryDirectory, JournalReader) {
        let directory = try TemporaryDirectory()
        let writer = try JournalWriter(path: directory.journalPath)
        var records: [JournalRecord] = [
            Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: ["c", "a", "b"].map(Fixture.job)),
            Fixture.run("r2", at: 10), .jobsPlanned(runID: "r2", jobs: [Fixture.job("d")]),
        ]
        records += Fixture.attempt("r1", "c", 1, steps: 2)
        records.append(Fixture.finished("r1", "c", .passed, duration: 1))
        records += Fixture.attempt("r1", "a", 1, outcome: .failed, steps: 3)
        records.append(.artifactStored(runID: "r1", jobID: "a", attempt: 1, artifact: artifact("z.png", step: 2, "b")))
        records.append(.artifactStored(runID: "r1", jobID: "a", attempt: 1, artifact: artifact("a.png", step: 2, "a")))
        records += Fixture.attempt("r1", "a", 2, steps: 4)
        records.append(.artifactStored(runID: "r1", jobID: "a", attempt: 2, artifact: artifact("s.json", step: 0, "c")))
        records.append(Fixture.finished("r1", "a", .flaky, duration: 1, attempts: 2))
        records += Fixture.attempt("r2", "d", 1)
        try writer.submit(records)
        try writer.close()
        #expect(writer.takeRejections().isEmpty)
        return (directory, try JournalReader(path: directory.journalPath))
    }

    @Test("forEachJob hands over every job once, in plan order, with its attempts, steps and artifacts")
    func jobsWithAttempts() throws {
        let (directory, reader) = try journal()
        defer { withExtendedLifetime(directory) {} }
        var seen: [JobDetail] = []
        try reader.forEachJob(run: "r1") { seen.append($0) }
        #expect(seen.map(\.row.job.jobID) == ["c", "a", "b"])
        #expect(seen.map(\.row.ordinal) == [0, 1, 2])
        #expect(seen.map(\.row) == (try reader.jobs(run: "r1")))
        #expect(seen[0].attempts.map(\.steps.count) == [2])
        #expect(seen[0].artifacts.isEmpty)
        #expect(seen[1].attempts.map(\.attempt.attempt) == [1, 2])
        #expect(seen[1].attempts.map(\.steps.count) == [3, 4])
        #expect(seen[1].attempts.map { $0.attempt.result?.outcome } == [.failed, .passed])
        #expect(seen[1].attempts[1].steps == (try reader.steps(run: "r1", job: "a", attempt: 2)))
        // Artifacts by attempt, in step then name order, exactly as `artifacts(run:job:attempt:)` lists them.
        #expect(seen[1].artifacts[1]?.map(\.name) == ["a.png", "z.png"])
        #expect(seen[1].artifacts[1] == (try reader.artifacts(run: "r1", job: "a", attempt: 1)).map(\.artifact))
        #expect(seen[1].artifacts[2] == [artifact("s.json", step: 0, "c")])
        #expect(seen[2].attempts.isEmpty && seen[2].row.result == nil)
    }

    @Test("forEachJobRow streams the rows jobs(run:) returns; attemptTotals counts a run's attempts and workers")
    func rowsAndTotals() throws {
        let (directory, reader) = try journal()
        defer { withExtendedLifetime(directory) {} }
        var rows: [JobRow] = []
        try reader.forEachJobRow(run: "r1") { rows.append($0) }
        #expect(rows == (try reader.jobs(run: "r1")))
        #expect(rows.map(\.job.jobID) == ["c", "a", "b"])
        let totals = try reader.attemptTotals(run: "r1")
        #expect(totals.attempts == 3)
        #expect(totals.workers == ["w1"])
        var none = 0
        try reader.forEachJob(run: "nope") { _ in none += 1 }
        #expect(none == 0)
    }
}
