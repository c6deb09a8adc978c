import CSQLite
import Foundation

/// Deletes whole runs from a journal, so `flowmatrix gc` can then free the blobs only they referenced.
///
/// Journal-safe: each call is one `BEGIN IMMEDIATE` transaction (a concurrent writer waits on SQLite's busy
/// timeout, and a reader sees the runs either all there or all gone); rows go by the schema's `ON DELETE CASCADE`
/// (jobs, attempts with their steps, results, artifact references), and `foreign_key_check` must come back clean
/// before it commits. A run still marked `running` is left alone unless the caller insists: its coordinator may
/// be writing to it (or died, and `run --resume` can still finish it).
public final class JournalPruner {
    private let connection: SQLiteConnection

    /// Opens the journal at `path` for deleting runs.
    /// - Throws: ``JournalError`` when the file is not a journal, is newer than this build, or cannot be opened.
    public init(path: String) throws {
        // A reader validates (and, for an older journal, migrates) the file first; it never creates one.
        _ = try JournalReader(path: path)
        connection = try SQLiteConnection(path: path, readOnly: false)
    }

    deinit { connection.close() }

    /// What `deleteRuns` did.
    public struct Deletion: Sendable, Hashable {
        /// Runs deleted with every row that belonged to them.
        public var deleted: [String]
        /// Runs left alone because they are still marked `running`.
        public var skippedRunning: [String]
        /// Run ids the journal does not have.
        public var unknown: [String]
    }

    /// Deletes `runIDs` in one transaction.
    /// - Parameter includingRunning: also delete runs still marked `running`.
    /// - Throws: ``JournalError``; nothing is deleted then.
    public func deleteRuns(_ runIDs: [String], includingRunning: Bool = false) throws -> Deletion {
        var result = Deletion(deleted: [], skippedRunning: [], unknown: [])
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for runID in runIDs {
                let status = try connection.query("SELECT status FROM runs WHERE run_id = ?", [.text(runID)]) { $0.text(0) }
                guard let status = status.first else {
                    result.unknown.append(runID)
                    continue
                }
                if status == RunStatus.running.rawValue && !includingRunning {
                    result.skippedRunning.append(runID)
                    continue
                }
                try connection.run("DELETE FROM runs WHERE run_id = ?", [.text(runID)])
                result.deleted.append(runID)
            }
            let violations = try connection.query("PRAGMA foreign_key_check") { $0.text(0) }
            guard violations.isEmpty else {
                throw JournalError(
                    code: SQLITE_CONSTRAINT,
                    message: "deleting runs would leave rows without their run in \(Set(violations).sorted().joined(separator: ", "))",
                    operation: "delete runs")
            }
            try connection.execute("COMMIT")
        } catch {
            do { try connection.execute("ROLLBACK") } catch {
                // The failed statement may already have ended the transaction; the original error is reported.
                _ = error
            }
            throw error
        }
        return result
    }
}
