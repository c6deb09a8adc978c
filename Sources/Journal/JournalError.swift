import CSQLite

/// A journal failure: an SQLite result code, SQLite's own message, and what the journal was doing.
///
/// Every SQLite return code in this module goes through one funnel (``SQLiteConnection/check(_:_:)``),
/// so a failure always carries `sqlite3_errmsg` of the connection it happened on.
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLite (extended) result code, e.g. 26 (`SQLITE_NOTADB`), 19 (`SQLITE_CONSTRAINT`), or 21
    /// (`SQLITE_MISUSE`) for misuse of the journal API itself (such as submitting to a closed writer).
    public var code: Int32
    /// SQLite's message (`sqlite3_errmsg`) or the journal's own sentence.
    public var message: String
    /// What the journal was doing, e.g. `open /path/journal.sqlite` or `apply attemptFinished`.
    public var operation: String

    public init(code: Int32, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    /// The symbolic name of the primary result code (`SQLITE_NOTADB`), from `sqlite3_errstr`.
    public var codeName: String { String(cString: sqlite3_errstr(code)) }

    public var description: String { "journal: \(operation): \(message) (SQLite code \(code): \(codeName))" }

    /// True when the journal could not be written because its file, its folder or the file system is read-only
    /// (`SQLITE_READONLY` and its extended codes).
    public var isReadOnly: Bool { code & 0xff == SQLITE_READONLY }

    /// True when the journal's file is damaged or is not a journal at all (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    public var isDamaged: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }

    /// What a person reads: for a damaged journal what is wrong and what to do, not the query that met the damage;
    /// otherwise ``description``.
    public var userText: String {
        guard isDamaged else { return description }
        return "the store's journal (journal.sqlite) is damaged: \(message). flowmatrix does not repair a journal: keep a "
            + "copy, then recover what it holds with the sqlite3 tool ('sqlite3 journal.sqlite .recover'), or use another "
            + "store (--store)"
    }

    /// The code used for misuse of the journal API (not an SQLite failure).
    static let misuse = SQLITE_MISUSE
}
