import Foundation
import Testing

@testable import Journal

@Suite("Journal errors")
struct JournalErrorTests {
    @Test("opening a file that is not a database gives SQLITE_NOTADB with SQLite's message and the path")
    func notADatabase() throws {
        let dir = try TemporaryDirectory()
        let text = String(repeating: "this is a matrix file, not a journal\n", count: 200)
        try text.write(toFile: dir.journalPath, atomically: true, encoding: .utf8)
        let writerError = #expect(throws: JournalError.self) { try JournalWriter(path: dir.journalPath) }
        #expect(writerError?.code == 26)
        #expect(writerError?.message == "file is not a database")
        #expect(writerError?.operation.contains(dir.journalPath) == true)
        #expect(writerError?.description.contains("file is not a database") == true)
        let readerError = #expect(throws: JournalError.self) { try JournalReader(path: dir.journalPath) }
        #expect(readerError?.code == 26)
        // Nothing was overwritten.
        #expect(try String(contentsOfFile: dir.journalPath, encoding: .utf8) == text)
    }

    @Test("a reader on a missing file fails instead of creating one")
    func missingFile() throws {
        let dir = try TemporaryDirectory()
        let error = #expect(throws: JournalError.self) { try JournalReader(path: dir.journalPath) }
        #expect(error?.code == 14)
        #expect(!FileManager.default.fileExists(atPath: dir.journalPath))
    }

    @Test("reopening a journal keeps its rows and does not migrate twice")
    func reopen() async throws {
        let dir = try TemporaryDirectory()
        let first = try JournalWriter(path: dir.journalPath)
        try first.submit(Fixture.run("r1"))
        try first.close()
        let second = try JournalWriter(path: dir.journalPath)
        try second.submit(Fixture.run("r2", at: 5))
        try await second.flush()
        #expect(try JournalReader(path: dir.journalPath).runs().count == 2)
        try second.close()
    }

    @Test("another application's SQLite database is refused and left untouched")
    func foreignDatabase() throws {
        let dir = try TemporaryDirectory()
        let other = try SQLiteConnection(path: dir.journalPath, readOnly: false)
        try other.execute("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');")
        other.close()
        let error = #expect(throws: JournalError.self) { try JournalWriter(path: dir.journalPath) }
        #expect(error?.message.contains("not a FlowMatrix journal") == true)
        let readerError = #expect(throws: JournalError.self) { try JournalReader(path: dir.journalPath) }
        #expect(readerError?.message.contains("not a FlowMatrix journal") == true)
        let check = try SQLiteConnection(path: dir.journalPath, readOnly: true)
        #expect(try check.scalarInt("SELECT COUNT(*) FROM sqlite_master") == 1)
        #expect(try check.scalarInt("SELECT COUNT(*) FROM contacts") == 1)
        #expect(try check.query("PRAGMA journal_mode") { $0.text(0) } == ["delete"])
    }
}
