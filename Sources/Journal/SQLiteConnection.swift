import CSQLite
import Foundation

/// A value bound to a statement parameter.
enum SQLValue {
    case int(Int64)
    case double(Double)
    case text(String)
    /// UTF-8 text already in bytes (no String to build first).
    case utf8([UInt8])
    case null

    static func int(_ v: Int) -> SQLValue { .int(Int64(v)) }
    static func optionalInt(_ v: Int?) -> SQLValue { v.map { .int(Int64($0)) } ?? .null }
    static func optionalDouble(_ v: Double?) -> SQLValue { v.map { .double($0) } ?? .null }
    static func optionalText(_ v: String?) -> SQLValue { v.map { .text($0) } ?? .null }
}

/// One row of a query result; valid only inside the row closure.
struct SQLRow {
    fileprivate let statement: OpaquePointer
    /// Added to every column number: a row that holds two records side by side reads the second through a shifted copy.
    private var base: Int32 = 0

    fileprivate init(statement: OpaquePointer) { self.statement = statement }

    /// The same row with column `offset` read as column 0.
    func shifted(by offset: Int32) -> SQLRow {
        var row = self
        row.base += offset
        return row
    }

    func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(statement, base + i)) }
    func double(_ i: Int32) -> Double { sqlite3_column_double(statement, base + i) }
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, base + i) == SQLITE_NULL }
    /// The column's text, all of it: its byte count comes from SQLite, so an embedded NUL (a failure message
    /// that contains one) does not cut it, as `String(cString:)` would.
    func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(statement, base + i) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, base + i))
        return String(decoding: UnsafeRawBufferPointer(start: p, count: count), as: UTF8.self)
    }
    /// The column's text as UTF-8 bytes, valid until the row is stepped past (no `String` is made); empty for NULL.
    func withBytes<T>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        guard let p = sqlite3_column_text(statement, base + i) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(statement, base + i))))
    }
    func optionalInt(_ i: Int32) -> Int? { isNull(i) ? nil : int(i) }
    func optionalDouble(_ i: Int32) -> Double? { isNull(i) ? nil : double(i) }
    func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
}

/// A statement of a ``SQLiteConnection``'s cache; valid while the connection is open.
struct PreparedStatement {
    fileprivate let handle: OpaquePointer
    let sql: String
}

/// One SQLite connection with a cache of prepared statements.
///
/// Confined to one thread at a time (the writer thread, or a reader behind its mutex); never shared.
final class SQLiteConnection {
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    let path: String

    /// Turns off SQLite's allocation statistics once per process, before the first connection opens.
    private static let configured: Int32 = csqlite_disable_memstatus()

    /// Opens (or creates, unless `readOnly`: then it only reads) the database at `path` and applies the journal's pragmas.
    ///
    /// A reader of a journal in a folder nobody may write (a read-only mount, an immutable or another user's folder)
    /// cannot create the WAL index beside it: SQLite says "unable to open database file". Such a journal is then
    /// opened immutable (`file:…?immutable=1`), which reads the file as it stands — unless a non-empty `-wal` holds
    /// commits not yet folded into it, which an immutable open would not see: that is said in plain words.
    init(path: String, readOnly: Bool) throws {
        self.path = path
        // SQLITE_MISUSE here only means SQLite was initialised earlier by other code: statistics stay on,
        // which costs a little speed and nothing else.
        _ = Self.configured
        // A reader opens read-write without CREATE and then sets `query_only`: a read-only connection cannot
        // recover the WAL index (-shm) of a journal whose writer is gone, a query-only one can.
        let flags = SQLITE_OPEN_READWRITE | (readOnly ? 0 : SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        do {
            db = try Self.open(path, flags: flags, queryOnly: readOnly, operation: "open \(path)")
        } catch let error as JournalError where !readOnly && Self.isUnwritableStore(path, error) {
            throw JournalError(code: SQLITE_READONLY, message: "its file or folder cannot be written (\(error.message))",
                               operation: "open \(path)")
        } catch let error as JournalError where readOnly && Self.isUnwritableStore(path, error)
                    && FileManager.default.fileExists(atPath: path) {
            if let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int, size > 0 {
                throw JournalError(
                    code: error.code,
                    message: "the store is read-only and its journal has commits not yet folded in (\(path)-wal); "
                        + "open it once where it can be written (any 'flowmatrix runs' there folds them in)",
                    operation: "open \(path)")
            }
            let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
            db = try Self.open(uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, queryOnly: true,
                               operation: "open \(path) read-only")
        }
    }

    /// True when opening `path` failed because its folder or file cannot be written (access(2) says so; it also
    /// holds for root on a read-only mount or an immutable folder).
    private static func isUnwritableStore(_ path: String, _ error: JournalError) -> Bool {
        let primary = error.code & 0xff
        guard primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR else { return false }
        let folder = (path as NSString).deletingLastPathComponent
        return access(folder.isEmpty ? "." : folder, W_OK) != 0 || access(path, W_OK) != 0
    }

    /// One opened handle with the journal's settings; closed again when any of them fails.
    private static func open(_ name: String, flags: Int32, queryOnly: Bool, operation: String) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(name, &handle, flags, nil)
        guard let handle else {
            throw JournalError(code: rc, message: String(cString: sqlite3_errstr(rc)), operation: operation)
        }
        sqlite3_extended_result_codes(handle, 1)
        // Readers and the writer share the file; a checkpoint may hold a lock for a moment.
        sqlite3_busy_timeout(handle, 5_000)
        // The first statement reads the header: a file that is not a database fails here (SQLITE_NOTADB).
        var sql = "PRAGMA schema_version;"
        if queryOnly { sql += " PRAGMA query_only = ON;" }
        sql += " PRAGMA foreign_keys = ON;"
        var code = rc
        if code == SQLITE_OK { code = sqlite3_exec(handle, sql, nil, nil, nil) }
        guard code == SQLITE_OK else {
            let error = JournalError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
                                     operation: operation)
            sqlite3_close_v2(handle)
            throw error
        }
        return handle
    }

    deinit { close() }

    private var closed = false

    /// Finalizes every cached statement and closes the connection (idempotent).
    func close() {
        guard !closed else { return }
        closed = true
        for (_, statement) in statements { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(db)
    }

    /// The error funnel: any result code other than OK / ROW / DONE becomes a ``JournalError``.
    @discardableResult
    func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        switch rc {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return rc
        default:
            throw JournalError(code: rc, message: String(cString: sqlite3_errmsg(db)), operation: operation())
        }
    }

    /// Runs one or more statements without parameters.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(db, sql, nil, nil, nil), sql)
    }

    /// The rowid of the last row inserted.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// The number of rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(db)) }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), "prepare \(sql)")
        guard let statement else {
            throw JournalError(code: SQLITE_MISUSE, message: "empty statement", operation: "prepare \(sql)")
        }
        statements[sql] = statement
        return statement
    }

    /// Binds `values` to the first parameters; any parameter after them is NULL.
    private func bind(_ statement: OpaquePointer, _ values: [SQLValue], _ sql: String) throws {
        var binder = SQLBinder(statement, of: self, sql: sql)
        for value in values { try binder.value(value) }
        try binder.finish()
    }

    /// Runs a cached statement that returns no rows.
    func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try run(prepared(sql), values, sql)
    }

    /// Runs a statement prepared with ``statement(_:)`` (no lookup by SQL text: the writer's hot path).
    func run(_ statement: PreparedStatement, _ values: [SQLValue]) throws {
        try run(statement.handle, values, statement.sql)
    }

    /// Runs a statement prepared with ``statement(_:)``, its parameters bound in order by `bind` (the writer's hot
    /// path: no array of values); parameters `bind` leaves out are NULL.
    func run(_ statement: PreparedStatement, binding bind: (inout SQLBinder) throws -> Void) throws {
        let handle = statement.handle
        defer { sqlite3_reset(handle) }
        var binder = SQLBinder(handle, of: self, sql: statement.sql)
        try bind(&binder)
        try binder.finish()
        try step(handle, statement.sql)
    }

    private func run(_ statement: OpaquePointer, _ values: [SQLValue], _ sql: String) throws {
        defer { sqlite3_reset(statement) }
        try bind(statement, values, sql)
        try step(statement, sql)
    }

    /// Steps a bound statement to its end, ignoring any rows.
    private func step(_ statement: OpaquePointer, _ sql: String) throws {
        while try check(sqlite3_step(statement), sql) == SQLITE_ROW {}
    }

    /// A statement prepared (and cached, finalized with the connection) once, to run many times.
    func statement(_ sql: String) throws -> PreparedStatement {
        PreparedStatement(handle: try prepared(sql), sql: sql)
    }

    /// Runs a cached query and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (SQLRow) throws -> T) throws -> [T] {
        var out: [T] = []
        try forEachRow(sql, values) { out.append(try row($0)) }
        return out
    }

    /// Runs a cached query and hands each row to `body` as SQLite steps to it: nothing is collected, so memory does
    /// not grow with the number of rows.
    func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (SQLRow) throws -> Void) throws {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        try bind(statement, values, sql)
        while try check(sqlite3_step(statement), sql) == SQLITE_ROW {
            try body(SQLRow(statement: statement))
        }
    }

    /// Runs a cached query whose rows are taken one at a time by `body` through ``SQLCursor/next()``, alongside
    /// another query of this connection (a merge join of two ordered queries in one read transaction).
    func withCursor<T>(_ sql: String, _ values: [SQLValue] = [], _ body: (inout SQLCursor) throws -> T) throws -> T {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        try bind(statement, values, sql)
        var cursor = SQLCursor(connection: self, statement: statement, sql: sql)
        return try body(&cursor)
    }

    /// The first column of the first row as an Int64, or nil when there is no row.
    func scalarInt64(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        try query(sql, values) { $0.isNull(0) ? nil : Int64($0.int(0)) }.first ?? nil
    }

    /// The first column of the first row, or nil when there is no row.
    func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws -> Int? {
        try query(sql, values) { $0.optionalInt(0) }.first ?? nil
    }
}

/// A query stepped by its caller (see ``SQLiteConnection/withCursor(_:_:_:)``).
struct SQLCursor {
    fileprivate let connection: SQLiteConnection
    fileprivate let statement: OpaquePointer
    fileprivate let sql: String
    private var done = false

    fileprivate init(connection: SQLiteConnection, statement: OpaquePointer, sql: String) {
        self.connection = connection
        self.statement = statement
        self.sql = sql
    }

    /// Steps to the next row: nil at the end (and after it).
    mutating func next() throws -> SQLRow? {
        guard !done else { return nil }
        if try connection.check(sqlite3_step(statement), sql) == SQLITE_ROW { return SQLRow(statement: statement) }
        done = true
        return nil
    }
}
