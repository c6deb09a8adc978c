import Foundation
import Testing

@testable import Journal

@Suite("SQL binder")
struct SQLBinderTests {
    private static func connection() throws -> SQLiteConnection {
        let c = try SQLiteConnection(path: ":memory:", readOnly: false)
        try c.execute("CREATE TABLE t (a, b, c, d)")
        return c
    }

    private static func rows(_ c: SQLiteConnection) throws -> [[String]] {
        try c.query("SELECT typeof(a), quote(a), typeof(b), quote(b), quote(c), quote(d) FROM t ORDER BY rowid") {
            row in (0..<6).map { row.text(Int32($0)) }
        }
    }

    @Test("values are bound in order with their types; empty text is '' and not NULL")
    func types() throws {
        let c = try Self.connection()
        let insert = try c.statement("INSERT INTO t VALUES (?, ?, ?, ?)")
        try c.run(insert) { b in
            try b.int(-7)
            try b.text("")
            try b.double(1.5)
            try b.time(Date(timeIntervalSince1970: 2))
        }
        try c.run(insert) { b in
            try b.text("it's é 😀, long enough not to be a small string")
            try b.optionalText(nil)
            try b.optionalInt(3)
            try Array("{\"i\":0}".utf8).withUnsafeBytes { try b.utf8($0) }
        }
        try c.run(insert) { b in
            try b.utf8(UnsafeRawBufferPointer(start: nil, count: 0))
            try b.optionalDouble(nil)
            try b.null()
            try b.value(.int(9))
        }
        #expect(
            try Self.rows(c) == [
                ["integer", "-7", "text", "''", "1.5", "2.0"],
                ["text", "'it''s é 😀, long enough not to be a small string'", "null", "NULL", "3", "'{\"i\":0}'"],
                ["text", "''", "null", "NULL", "NULL", "9"],
            ])
    }

    @Test("parameters left out are NULL, not the previous run's values")
    func leftOut() throws {
        let c = try Self.connection()
        let insert = try c.statement("INSERT INTO t VALUES (?, ?, ?, ?)")
        try c.run(insert) { b in
            for v in 1...4 { try b.int(v) }
        }
        try c.run(insert) { b in try b.int(5) }
        try c.run("INSERT INTO t VALUES (?, ?, ?, ?)", [.int(6)])
        #expect(try Self.rows(c).map { $0[1] } == ["1", "5", "6"])
        #expect(try c.query("SELECT quote(d) FROM t ORDER BY rowid") { $0.text(0) } == ["4", "NULL", "NULL"])
    }

    @Test("binding past the last parameter is a JournalError naming the parameter and the statement")
    func tooMany() throws {
        let c = try Self.connection()
        let insert = try c.statement("INSERT INTO t (a) VALUES (?)")
        let error = #expect(throws: JournalError.self) {
            try c.run(insert) { b in
                try b.text("kept?")
                try b.text("one too many")
            }
        }
        #expect(error?.code == 25)  // SQLITE_RANGE
        #expect(error?.operation == "bind parameter 2 of INSERT INTO t (a) VALUES (?)")
        #expect(try c.scalarInt("SELECT COUNT(*) FROM t") == 0)
        // The statement is reset and usable again.
        try c.run(insert) { b in try b.int(1) }
        #expect(try c.scalarInt("SELECT COUNT(*) FROM t") == 1)
    }
}
