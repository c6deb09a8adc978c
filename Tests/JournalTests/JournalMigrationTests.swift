import Foundation
import Testing

@testable import Journal

@Suite("Journal migrations")
struct JournalMigrationTests {
    /// Writes a schema-1 journal (text keys) the way the first build did.
    private func makeVersion1(_ path: String) throws {
        let c = try SQLiteConnection(path: path, readOnly: false)
        try c.execute("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);")
        try c.execute(JournalSchema.migrations[0])
        try c.execute(
            """
            INSERT INTO runs VALUES ('r1', 'smoke', 'm.json', 7, 100, 200, 'completed', '{}');
            INSERT INTO runs VALUES ('r2', 'smoke', 'm.json', 8, 300, NULL, 'running', '{}');
            INSERT INTO jobs VALUES ('r1', 'b', 0, 's', 'S', 'k=v', '{}', 'catalog', 'done', 'failed', 2, 1.5, 1, 'boom', 200);
            INSERT INTO jobs VALUES ('r1', 'a', 1, 's', 'S', 'k=v', '{}', 'catalog', 'done', 'passed', 1, 0.5, NULL, NULL, 200);
            INSERT INTO jobs VALUES ('r2', 'a', 0, 's', 'S', 'k=v', '{}', 'catalog', 'running', NULL, 1, NULL, NULL, NULL, NULL);
            INSERT INTO attempts VALUES ('r1', 'b', 1, 'w1', 100, 110, 'failed', 1, 'boom', 1.5, 0);
            INSERT INTO attempts VALUES ('r1', 'b', 2, 'w2', 120, 130, 'failed', 1, 'boom', 1.5, 0);
            INSERT INTO attempts VALUES ('r2', 'a', 1, 'w1', 300, NULL, NULL, NULL, NULL, NULL, 0);
            INSERT INTO steps VALUES ('r1', 'b', 2, 0, 'launch', 'passed', 0.1, NULL, NULL);
            INSERT INTO steps VALUES ('r1', 'b', 2, 1, 'tap', 'failed', 0.2, 'boom', 'alert dismissed');
            INSERT INTO artifacts VALUES ('r1', 'b', 2, 1, 'surface.json', 'application/json', '\(String(repeating: "cd", count: 32))', 10, 50);
            INSERT INTO history VALUES ('b', 'r1', 'failed', 1.5, 200);
            INSERT INTO history VALUES ('a', 'r1', 'passed', 0.5, 200);
            """
        )
        c.close()
    }

    @Test("a schema-1 journal is migrated on open and keeps every row")
    func fromVersion1() throws {
        let dir = try TemporaryDirectory()
        try makeVersion1(dir.journalPath)
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.runs().map(\.info.runID) == ["r2", "r1"])
        #expect(try reader.run("r1")?.outcomes == [.failed: 1, .passed: 1])
        #expect(try reader.jobs(run: "r1").map(\.job.jobID) == ["b", "a"])
        #expect(try reader.attempts(run: "r1", job: "b").map(\.worker) == ["w1", "w2"])
        #expect(try reader.steps(run: "r1", job: "b", attempt: 2).map(\.interruptions) == [nil, "alert dismissed"])
        #expect(try reader.artifacts(run: "r1").map(\.artifact.name) == ["surface.json"])
        #expect(try reader.durationEstimates().perJob == ["a": 0.5, "b": 1.5])
        #expect(try reader.resumeState(run: "r2") == ResumeState(done: [:], pending: ["a"], nextAttempt: ["a": 2]))

        // The writer continues on the migrated file.
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([.runResumed(runID: "r2", at: Fixture.t0)] + Fixture.attempt("r2", "a", 2))
        try writer.flushSync()
        #expect(writer.takeRejections().isEmpty)
        #expect(try reader.attempts(run: "r2", job: "a").map(\.result?.superseded) == [true, false])
        try writer.close()
    }

    @Test("a journal from a newer build is refused, not rewritten")
    func newerVersion() throws {
        let dir = try TemporaryDirectory()
        try JournalWriter(path: dir.journalPath).close()
        let c = try SQLiteConnection(path: dir.journalPath, readOnly: false)
        try c.execute("UPDATE schema_version SET version = 99")
        c.close()
        let error = #expect(throws: JournalError.self) { try JournalWriter(path: dir.journalPath) }
        #expect(error?.message.contains("newer") == true)
        #expect(throws: JournalError.self) { try JournalReader(path: dir.journalPath) }
    }
}
