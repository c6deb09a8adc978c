import CSQLite
import Foundation

/// Binds the parameters of one run of a prepared statement, first to last, straight from the caller's values.
///
/// The writer's hot statements bind through a binder instead of an array of ``SQLValue``s: no array and no enum
/// values to build and destroy per run, and text reaches SQLite from the string's own UTF-8 storage (SQLite copies
/// it, `SQLITE_TRANSIENT`) instead of through a temporary C string. Every result code goes through the connection's
/// error funnel, ``SQLiteConnection/check(_:_:)``. Obtained from ``SQLiteConnection/run(_:binding:)``; valid only
/// inside its closure.
struct SQLBinder: ~Copyable {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String
    /// The next parameter to bind (SQLite counts from 1).
    private var next: Int32 = 1

    init(_ statement: OpaquePointer, of connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    mutating func int(_ value: Int64) throws {
        try advance(sqlite3_bind_int64(statement, next, value))
    }

    mutating func int(_ value: Int) throws {
        try int(Int64(value))
    }

    mutating func double(_ value: Double) throws {
        try advance(sqlite3_bind_double(statement, next, value))
    }

    /// A time as the journal stores it: seconds since 1970.
    mutating func time(_ value: Date) throws {
        try double(value.timeIntervalSince1970)
    }

    mutating func null() throws {
        try advance(sqlite3_bind_null(statement, next))
    }

    mutating func text(_ value: String) throws {
        var value = value
        let (statement, index) = (self.statement, next)
        try advance(value.withUTF8 { Self.bindText(statement, index, UnsafeRawBufferPointer($0)) })
    }

    /// Text already encoded as UTF-8 (not checked).
    mutating func utf8(_ bytes: UnsafeRawBufferPointer) throws {
        try advance(Self.bindText(statement, next, bytes))
    }

    mutating func optionalInt(_ value: Int?) throws {
        if let value { try int(value) } else { try null() }
    }

    mutating func optionalDouble(_ value: Double?) throws {
        if let value { try double(value) } else { try null() }
    }

    mutating func optionalText(_ value: String?) throws {
        if let value { try text(value) } else { try null() }
    }

    mutating func value(_ value: SQLValue) throws {
        switch value {
        case .int(let v): try int(v)
        case .double(let v): try double(v)
        case .text(let v): try text(v)
        case .utf8(let bytes): try bytes.withUnsafeBytes { try utf8($0) }
        case .null: try null()
        }
    }

    /// Binds NULL to every parameter not bound yet: bindings persist across runs of a cached statement, so a
    /// parameter left out must not keep the previous run's value.
    mutating func finish() throws {
        let count = sqlite3_bind_parameter_count(statement)
        while next <= count { try null() }
    }

    private mutating func advance(_ rc: Int32) throws {
        try connection.check(rc, "bind parameter \(next) of \(sql)")
        next += 1
    }

    private static func bindText(_ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else {
            // An empty buffer may have no address, and SQLite takes a NULL pointer for SQL NULL: empty text is ''.
            return sqlite3_bind_text(statement, index, "", 0, csqlite_transient())
        }
        return sqlite3_bind_text(
            statement, index, base.assumingMemoryBound(to: CChar.self), Int32(clamping: bytes.count),
            csqlite_transient())
    }
}
