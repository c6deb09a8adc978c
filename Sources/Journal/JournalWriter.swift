import CSQLite
import Dispatch
import Foundation
import Synchronization

/// Tunables of the journal writer.
public struct JournalSettings: Sendable, Hashable {
    /// `false` (default): `PRAGMA synchronous = NORMAL`: a committed transaction survives a crash of the
    /// coordinator process (what resume needs); a power loss may drop the last transactions.
    /// `true`: `synchronous = FULL`, every commit is fsynced.
    public var synchronousFull: Bool
    /// The writer connection's page cache in KiB (default 65,536 = 64 MiB).
    public var cacheKiB: Int

    public init(synchronousFull: Bool = false, cacheKiB: Int = 65_536) {
        self.synchronousFull = synchronousFull
        self.cacheKiB = cacheKiB
    }
}

/// The single writer of a journal: one connection on its own thread, group commit.
///
/// `submit` appends records to a queue from any thread or task and wakes the writer thread, which drains
/// everything queued into **one** transaction. `flush()` / `flushSync()` wait until every record submitted
/// before the call is committed. A record that cannot be applied (unknown job, a constraint violated) is
/// rolled back alone and reported by ``takeRejections()``; the other records of its transaction commit.
public final class JournalWriter: Sendable {
    /// Counters since the writer opened.
    public struct Statistics: Sendable, Hashable {
        /// Records handed to `submit`.
        public var recordsSubmitted: Int = 0
        /// Records applied and committed.
        public var recordsApplied: Int = 0
        /// Records rolled back because they could not be applied (see ``JournalWriter/takeRejections()``).
        public var recordsRejected: Int = 0
        /// Duplicate attempt results that changed nothing (the first result of an attempt wins).
        public var duplicatesIgnored: Int = 0
        /// Transactions committed (one per drained batch).
        public var transactionsCommitted: Int = 0
        /// Transactions that failed to commit as a whole (I/O error, disk full); their records are lost.
        public var transactionsFailed: Int = 0
        /// Records not applied because an earlier transaction failed: after the first failure nothing more is
        /// written, so the journal stays a consistent prefix of the run that `run --resume` can finish.
        public var recordsDroppedAfterFailure: Int = 0
        /// CPU seconds the writer thread spent applying and committing batches (what the journal costs).
        public var writerCPUSeconds: Double = 0
    }

    /// A record the writer could not apply.
    public struct Rejection: Sendable, Hashable {
        /// The kind of the record (`stepRecorded`).
        public var kind: String
        public var error: JournalError
    }

    private let core: WriterCore

    /// Opens (creating if needed) the journal at `path`, applies migrations, and starts the writer thread.
    /// - Parameter onFailure: called once, on the writer thread, when a transaction first fails to commit (disk
    ///   full, I/O error). From then on the writer applies nothing more (see `Statistics.recordsDroppedAfterFailure`)
    ///   and every flush throws that error: the caller should stop the run and say so.
    /// - Throws: ``JournalError`` when the file cannot be opened, is not a database, or has a newer schema.
    public init(
        path: String, settings: JournalSettings = JournalSettings(),
        onFailure: (@Sendable (JournalError) -> Void)? = nil
    ) throws {
        core = WriterCore(onFailure: onFailure)
        let opened = OpenResult()
        let core = self.core
        let thread = Thread {
            core.run(path: path, settings: settings, opened: opened)
        }
        thread.name = "flowmatrix.journal-writer"
        thread.start()
        opened.semaphore.wait()
        if let error = opened.error.withLock({ $0 }) {
            throw error
        }
    }

    deinit {
        core.requestClose()
    }

    /// Queues records for the next transaction; returns at once.
    /// - Throws: ``JournalError`` (`SQLITE_MISUSE`) when the writer is closed.
    public func submit(_ records: [JournalRecord]) throws {
        try core.submit(records)
    }

    /// Queues one record.
    public func submit(_ record: JournalRecord) throws {
        try core.submit([record])
    }

    /// Returns when every record submitted before the call is committed (or rejected).
    /// - Throws: the ``JournalError`` of a transaction that failed to commit while waiting.
    public func flush() async throws {
        let target = core.submittedCount
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            core.wait(for: target, .continuation(continuation))
        }
    }

    /// Blocks the calling thread until every record submitted before the call is committed (or rejected).
    /// Do not call it from a Swift concurrency task that must not block; use ``flush()`` there.
    public func flushSync() throws {
        let waiter = SyncWaiter()
        core.wait(for: core.submittedCount, .sync(waiter))
        waiter.semaphore.wait()
        if let error = waiter.error.withLock({ $0 }) { throw error }
    }

    /// Commits everything submitted, stops the writer thread and closes the connection. Idempotent.
    public func close() throws {
        try flushSync()
        core.requestClose()
        core.waitUntilStopped()
    }

    /// The counters so far.
    public var statistics: Statistics { core.state.withLock { $0.statistics } }

    /// Returns and forgets the records rejected so far.
    public func takeRejections() -> [Rejection] {
        core.state.withLock { state in
            defer { state.rejections.removeAll() }
            return state.rejections
        }
    }
}

/// The result of opening the connection on the writer thread.
private final class OpenResult: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let error = Mutex<JournalError?>(nil)
}

/// A blocked `flushSync` caller.
private final class SyncWaiter: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let error = Mutex<JournalError?>(nil)
}

private enum FlushWaiter {
    case continuation(CheckedContinuation<Void, any Error>)
    case sync(SyncWaiter)

    func resume(_ error: JournalError?) {
        switch self {
        case .continuation(let c):
            if let error { c.resume(throwing: error) } else { c.resume() }
        case .sync(let s):
            s.error.withLock { $0 = error }
            s.semaphore.signal()
        }
    }
}

/// Shared between the façade and the writer thread; everything mutable is behind `state`.
private final class WriterCore: Sendable {
    struct State {
        var queue: [JournalRecord] = []
        /// Records submitted so far (a sequence number).
        var submitted = 0
        /// Records processed so far (committed, rejected, or lost with a failed transaction).
        var processed = 0
        var waiters: [(target: Int, waiter: FlushWaiter)] = []
        var closing = false
        var stopped = false
        var statistics = JournalWriter.Statistics()
        /// The most recent rejections (at most `maximumRejectionsKept`; the statistics count them all).
        var rejections: [JournalWriter.Rejection] = []
        /// The first failed commit; nothing is applied after it.
        var failure: JournalError?
    }

    /// Rejections kept for `takeRejections`: a peer that provokes rejected records cannot grow the writer.
    static let maximumRejectionsKept = 1000

    let state = Mutex(State())
    let onFailure: (@Sendable (JournalError) -> Void)?

    init(onFailure: (@Sendable (JournalError) -> Void)?) { self.onFailure = onFailure }
    /// Signalled when the queue goes from empty to non-empty, and on close.
    let wake = DispatchSemaphore(value: 0)
    let stoppedSignal = DispatchSemaphore(value: 0)

    var submittedCount: Int { state.withLock { $0.submitted } }

    func submit(_ records: [JournalRecord]) throws {
        guard !records.isEmpty else { return }
        let shouldWake = try state.withLock { state throws(JournalError) -> Bool in
            guard !state.closing else {
                throw JournalError(
                    code: JournalError.misuse, message: "the journal writer is closed", operation: "submit")
            }
            let wasEmpty = state.queue.isEmpty
            state.queue.append(contentsOf: records)
            state.submitted += records.count
            state.statistics.recordsSubmitted += records.count
            return wasEmpty
        }
        if shouldWake { wake.signal() }
    }

    func wait(for target: Int, _ waiter: FlushWaiter) {
        let immediate: JournalError?? = state.withLock { state in
            if let failure = state.failure { return .some(failure) }
            if state.processed >= target { return .some(nil) }
            if state.stopped {
                return .some(
                    JournalError(
                        code: JournalError.misuse,
                        message: "the journal writer stopped before the records were written", operation: "flush"))
            }
            state.waiters.append((target, waiter))
            return .none
        }
        if let immediate { waiter.resume(immediate) }
    }

    func requestClose() {
        let first = state.withLock { state in
            defer { state.closing = true }
            return !state.closing
        }
        if first { wake.signal() }
    }

    func waitUntilStopped() {
        guard !state.withLock({ $0.stopped }) else { return }
        stoppedSignal.wait()
        // Let any other caller of close() through as well.
        stoppedSignal.signal()
    }

    // MARK: - The writer thread

    func run(path: String, settings: JournalSettings, opened: OpenResult) {
        let connection: SQLiteConnection
        let applier: RecordApplier
        do {
            connection = try SQLiteConnection(path: path, readOnly: false)
            try JournalSchema.checkIsJournalOrEmpty(connection)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = \(settings.synchronousFull ? "FULL" : "NORMAL")")
            // 64 MiB of page cache: a run's jobs and attempts stay in memory while results update them.
            try connection.execute("PRAGMA cache_size = -\(settings.cacheKiB)")
            // Debian builds SQLite with SECURE_DELETE, which zeroes every freed cell and page as rows are rewritten;
            // a run journal holds nothing that must not linger in free pages, and the zeroing costs the writer.
            try connection.execute("PRAGMA secure_delete = OFF")
            try JournalSchema.migrate(connection)
            applier = try RecordApplier(connection: connection)
        } catch {
            opened.error.withLock {
                $0 =
                    error as? JournalError
                    ?? JournalError(code: SQLITE_ERROR, message: "\(error)", operation: "open \(path)")
            }
            state.withLock {
                $0.stopped = true; $0.closing = true
            }
            stoppedSignal.signal()
            opened.semaphore.signal()
            return
        }
        opened.semaphore.signal()
        while true {
            wake.wait()
            let (batch, closing) = state.withLock { state in
                defer { state.queue.removeAll(keepingCapacity: true) }
                return (state.queue, state.closing)
            }
            if !batch.isEmpty, state.withLock({ $0.failure != nil }) {
                dropAfterFailure(batch.count)
            } else if !batch.isEmpty {
                let cpuBefore = Self.threadCPUSeconds()
                let outcome = applier.apply(batch)
                finish(batchCount: batch.count, outcome, cpuSeconds: Self.threadCPUSeconds() - cpuBefore)
            }
            if closing, state.withLock({ $0.queue.isEmpty }) { break }
        }
        connection.close()
        let leftover = state.withLock { state in
            state.stopped = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for (_, waiter) in leftover {
            waiter.resume(
                JournalError(code: JournalError.misuse, message: "the journal writer stopped", operation: "flush"))
        }
        stoppedSignal.signal()
    }

    /// CPU time of the calling thread.
    private static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// A batch that arrived after the first failed commit: counted, not written; waiters hear the failure.
    private func dropAfterFailure(_ count: Int) {
        let ready = state.withLock { state -> [(FlushWaiter, JournalError?)] in
            state.processed += count
            state.statistics.recordsDroppedAfterFailure += count
            defer { state.waiters.removeAll() }
            return state.waiters.map { ($0.waiter, state.failure) }
        }
        for (waiter, error) in ready { waiter.resume(error) }
    }

    private func finish(batchCount: Int, _ outcome: RecordApplier.BatchOutcome, cpuSeconds: Double) {
        var firstFailure: JournalError?
        let ready: [(FlushWaiter, JournalError?)] = state.withLock { state in
            state.processed += batchCount
            state.statistics.writerCPUSeconds += cpuSeconds
            state.statistics.recordsApplied += outcome.applied
            state.statistics.recordsRejected += outcome.rejections.count
            state.statistics.duplicatesIgnored += outcome.duplicates
            state.rejections.append(contentsOf: outcome.rejections)
            if state.rejections.count > Self.maximumRejectionsKept {
                state.rejections.removeFirst(state.rejections.count - Self.maximumRejectionsKept)
            }
            if outcome.failure == nil {
                state.statistics.transactionsCommitted += 1
            } else {
                state.statistics.transactionsFailed += 1
                if state.failure == nil {
                    state.failure = outcome.failure
                    firstFailure = outcome.failure
                }
            }
            var ready: [(FlushWaiter, JournalError?)] = []
            var waiting: [(target: Int, waiter: FlushWaiter)] = []
            for entry in state.waiters {
                if let failure = outcome.failure {
                    ready.append((entry.waiter, failure))
                } else if entry.target <= state.processed {
                    ready.append((entry.waiter, nil))
                } else {
                    waiting.append(entry)
                }
            }
            state.waiters = waiting
            return ready
        }
        if let firstFailure { onFailure?(firstFailure) }
        for (waiter, error) in ready { waiter.resume(error) }
    }
}
