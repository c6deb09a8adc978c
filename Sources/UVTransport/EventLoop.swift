import CLibUV
import Foundation
import Synchronization

/// One libuv loop on its own thread. Only that thread touches libuv handles; other threads get in through
/// `execute`, a `Mutex`-protected queue drained by one `uv_async_send` wake-up per batch.
///
/// `@unchecked Sendable` is safe because the only state touched from other threads is the `Mutex`-protected
/// inbox and atomics; everything else (`uvLoop`, `registry`, the handles) is used only on the loop thread,
/// which `inLoopThread` checks at runtime on every loop-confined entry point.
public final class EventLoop: @unchecked Sendable {
    struct Inbox {
        var work: [@Sendable () -> Void] = []
        var closed = false
    }

    /// Threads started by `start()` and not yet finished, over the whole process (tests check it for leaks).
    public static var runningThreads: Int { threadCounter.load(ordering: .acquiring) }
    private static let threadCounter = Atomic<Int>(0)

    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let asyncHandle: UnsafeMutablePointer<uv_async_t>
    private let prepareHandle: UnsafeMutablePointer<uv_prepare_t>
    private let inbox = Mutex(Inbox())
    private let loopThreadID = Atomic<UInt>(0)
    private let lifecycle = Mutex(Lifecycle.created)
    private let handleCounter = Atomic<Int>(0)
    private let loopCloseResult = Atomic<Int32>(1)
    /// Loop-confined bookkeeping: every live connection, listener and timer, and connections with output to flush.
    let registry = LoopRegistry()

    enum Lifecycle { case created, running(pthread_t), stopped }

    /// The number of libuv handles initialised and not yet closed (connections, listeners, timers, the loop's own
    /// two). After `shutdown()` it is 0.
    public var liveHandles: Int { handleCounter.load(ordering: .acquiring) }

    /// True once `shutdown()` finished and `uv_loop_close` returned 0 (no handle left open).
    public var closedCleanly: Bool { loopCloseResult.load(ordering: .acquiring) == 0 }

    public init() {
        cuv_ignore_sigpipe()
        uvLoop = .allocate(capacity: 1)
        asyncHandle = .allocate(capacity: 1)
        prepareHandle = .allocate(capacity: 1)
        // Both fail only when the process is out of file descriptors or memory: nothing to run on.
        uvRequire(uv_loop_init(uvLoop), "uv_loop_init")
        uvRequire(uv_async_init(uvLoop, asyncHandle) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().drainInbox()
        }, "uv_async_init")
        asyncHandle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uvExpect(uv_prepare_init(uvLoop, prepareHandle), "uv_prepare_init")
        prepareHandle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uvExpect(uv_prepare_start(prepareHandle) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().registry.flushDirty()
        }, "uv_prepare_start")
        uv_unref(cuv_prepare_as_handle(prepareHandle))
        handleOpened()
        handleOpened()
    }

    deinit {
        // A loop that never started still owns its two handles: close them on this thread.
        if case .created = lifecycle.withLock({ $0 }) {
            uv_close(cuv_async_as_handle(asyncHandle), nil)
            uv_close(cuv_prepare_as_handle(prepareHandle), nil)
            uv_run(uvLoop, UV_RUN_DEFAULT)
            uv_loop_close(uvLoop)
        }
        asyncHandle.deallocate()
        prepareHandle.deallocate()
        uvLoop.deallocate()
    }

    /// True on the loop's own thread.
    public var inLoopThread: Bool {
        let id = loopThreadID.load(ordering: .relaxed)
        return id != 0 && id == LoopThread.currentID()
    }

    /// Traps when called off the loop thread: the runtime check behind every loop-confined entry point.
    @inline(__always)
    func preconditionInLoop(_ function: StaticString = #function) {
        precondition(inLoopThread, "\(function) must run on the event loop thread")
    }

    /// Starts the loop thread (once).
    public func start() {
        lifecycle.withLock { state in
            guard case .created = state else { return }
            // The thread holds the loop until it returns.
            let thread = LoopThread.start { [self] in runOnThisThread() }
            EventLoop.threadCounter.add(1, ordering: .releasing)
            state = .running(thread)
        }
    }

    private func runOnThisThread() {
        loopThreadID.store(LoopThread.currentID(), ordering: .releasing)
        uv_run(uvLoop, UV_RUN_DEFAULT)
        loopCloseResult.store(uv_loop_close(uvLoop), ordering: .releasing)
        loopThreadID.store(0, ordering: .releasing)
        EventLoop.threadCounter.subtract(1, ordering: .releasing)
    }

    /// Closes every handle (connections abortively, listeners, timers), lets the loop finish and joins its thread.
    /// Work submitted afterwards is refused. Called on the loop thread itself, it starts the shutdown and
    /// returns without joining.
    public func shutdown() {
        start()
        execute { [self] in beginShutdown() }
        if inLoopThread {
            lifecycle.withLock { state in
                if case .running(let thread) = state {
                    pthread_detach(thread)
                    state = .stopped
                }
            }
            return
        }
        let thread: pthread_t? = lifecycle.withLock { state in
            if case .running(let thread) = state {
                state = .stopped
                return thread
            }
            return nil
        }
        if let thread { pthread_join(thread, nil) }
    }

    private func beginShutdown() {
        guard !registry.shuttingDown else { return }
        registry.shuttingDown = true
        registry.closeEverything()
        // Work queued before this point still runs (and finds the loop shutting down).
        let late = inbox.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            let taken = state.work
            state.work = []
            return taken
        }
        for work in late { work() }
        uv_close(cuv_async_as_handle(asyncHandle)) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().handleClosed()
        }
        uv_close(cuv_prepare_as_handle(prepareHandle)) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().handleClosed()
        }
    }

    /// Runs `work` on the loop thread, in submission order. From any thread.
    /// - Returns: false when the loop is shut down and the work will never run.
    @discardableResult
    public func execute(_ work: @Sendable @escaping () -> Void) -> Bool {
        inbox.withLock { state in
            guard !state.closed else { return false }
            let wasEmpty = state.work.isEmpty
            state.work.append(work)
            // Sent inside the lock, so it cannot race the close of the async handle.
            if wasEmpty { uvExpect(uv_async_send(asyncHandle), "uv_async_send") }
            return true
        }
    }

    private func drainInbox() {
        let work = inbox.withLock { state -> [@Sendable () -> Void] in
            let taken = state.work
            state.work = []
            return taken
        }
        for item in work { item() }
    }

    func handleOpened() { handleCounter.add(1, ordering: .relaxed) }
    func handleClosed() { handleCounter.subtract(1, ordering: .releasing) }

    // MARK: Timers

    /// Runs `work` on the loop thread once after `delay`. From any thread.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @Sendable @escaping () -> Void) -> ScheduledTimer {
        makeTimer(delay: delay, repeatEvery: nil, work)
    }

    /// Runs `work` on the loop thread every `interval` until cancelled. From any thread.
    @discardableResult
    public func scheduleRepeating(every interval: Duration, _ work: @Sendable @escaping () -> Void) -> ScheduledTimer {
        makeTimer(delay: interval, repeatEvery: interval, work)
    }

    /// Loop-thread variant of `schedule(after:_:)` whose closure may capture loop-confined state.
    @discardableResult
    public func scheduleInLoop(after delay: Duration, _ work: @escaping () -> Void) -> ScheduledTimer {
        preconditionInLoop()
        return makeTimer(delay: delay, repeatEvery: nil, work)
    }

    /// Loop-thread variant of `scheduleRepeating(every:_:)` whose closure may capture loop-confined state.
    @discardableResult
    public func scheduleRepeatingInLoop(every interval: Duration, _ work: @escaping () -> Void) -> ScheduledTimer {
        preconditionInLoop()
        return makeTimer(delay: interval, repeatEvery: interval, work)
    }

    private func makeTimer(delay: Duration, repeatEvery: Duration?, _ work: @escaping () -> Void) -> ScheduledTimer {
        let box = TimerBox(loop: self, work: work)
        let timer = ScheduledTimer(box: box)
        let delayMillis = delay.milliseconds
        let repeatMillis = repeatEvery.map { max(1, $0.milliseconds) } ?? 0
        if inLoopThread {
            box.start(delay: delayMillis, repeat: repeatMillis)
        } else {
            execute { box.start(delay: delayMillis, repeat: repeatMillis) }
        }
        return timer
    }
}

/// A loop-confined value that may be captured by `@Sendable` closures (like swift-nio's `NIOLoopBound`).
///
/// `@unchecked Sendable` is safe because `value` can only be read on the loop thread; the getter checks it at
/// runtime and traps otherwise.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let wrapped: Value

    /// Wraps `value`; must be called on `loop`'s thread.
    public init(_ value: Value, loop: EventLoop) {
        loop.preconditionInLoop()
        self.loop = loop
        wrapped = value
    }

    /// The value; traps off the loop thread.
    public var value: Value {
        loop.preconditionInLoop()
        return wrapped
    }
}

/// A timer started by `EventLoop.schedule…`; `cancel()` from any thread. A timer cancelled on the loop thread
/// never fires afterwards.
public struct ScheduledTimer: Sendable {
    let box: TimerBox

    public func cancel() { box.cancel() }
}

/// The libuv timer behind a `ScheduledTimer`.
///
/// `@unchecked Sendable` is safe because `handle` and `work` are touched only on the loop thread (`start`,
/// the callback and `close` all run there; `cancel` from other threads only sets the atomic flag and hops).
final class TimerBox: @unchecked Sendable {
    private let loop: EventLoop
    private var work: (() -> Void)?
    private var handle: UnsafeMutablePointer<uv_timer_t>?
    private let cancelled = Atomic<Bool>(false)

    init(loop: EventLoop, work: @escaping () -> Void) {
        self.loop = loop
        self.work = work
    }

    func start(delay: UInt64, repeat interval: UInt64) {
        loop.preconditionInLoop()
        guard !cancelled.load(ordering: .acquiring), !loop.registry.shuttingDown else {
            work = nil
            return
        }
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        uvExpect(uv_timer_init(loop.uvLoop, timer), "uv_timer_init")
        loop.handleOpened()
        timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
        handle = timer
        loop.registry.timers[ObjectIdentifier(self)] = self
        uvExpect(uv_timer_start(timer, { t in
            guard let data = t?.pointee.data else { return }
            Unmanaged<TimerBox>.fromOpaque(data).takeUnretainedValue().fire()
        }, delay, interval), "uv_timer_start")
        isRepeating = interval > 0
    }

    private var isRepeating = false

    private func fire() {
        guard !cancelled.load(ordering: .acquiring) else { return close() }
        if !isRepeating {
            let work = self.work
            close()
            work?()
        } else {
            work?()
        }
    }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
        if loop.inLoopThread {
            close()
        } else {
            loop.execute { self.close() }
        }
    }

    /// Stops and closes the handle; the memory is freed in the close callback.
    func close() {
        loop.preconditionInLoop()
        work = nil
        guard let timer = handle else { return }
        handle = nil
        loop.registry.timers[ObjectIdentifier(self)] = nil
        uvExpect(uv_timer_stop(timer), "uv_timer_stop")
        uv_close(cuv_timer_as_handle(timer)) { h in
            guard let h, let data = h.pointee.data else { return }
            let box = Unmanaged<TimerBox>.fromOpaque(data).takeRetainedValue()
            box.loop.handleClosed()
            h.withMemoryRebound(to: uv_timer_t.self, capacity: 1) { $0.deallocate() }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a positive duration never becomes 0.
    var milliseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let millis = UInt64(seconds) * 1000 + UInt64(attoseconds / 1_000_000_000_000_000)
        let rest = attoseconds % 1_000_000_000_000_000
        return rest > 0 ? millis + 1 : millis
    }
}

/// Loop-confined bookkeeping of one `EventLoop`: what is open, and what has output waiting.
final class LoopRegistry {
    var connections: [ConnectionID: FramedConnection] = [:]
    var listeners: [ObjectIdentifier: Listener] = [:]
    var timers: [ObjectIdentifier: TimerBox] = [:]
    var dirty: [FramedConnection] = []
    var shuttingDown = false
    private var nextConnectionID: UInt64 = 0

    func makeConnectionID() -> ConnectionID {
        nextConnectionID += 1
        return ConnectionID(rawValue: nextConnectionID)
    }

    /// Flushes every connection that queued output during this loop iteration (runs before the loop polls).
    func flushDirty() {
        guard !dirty.isEmpty else { return }
        let batch = dirty
        dirty.removeAll(keepingCapacity: true)
        for connection in batch { connection.flushFromLoop() }
    }

    func closeEverything() {
        for listener in Array(listeners.values) { listener.close() }
        for connection in Array(connections.values) { connection.abort(.loopShutdown) }
        for timer in Array(timers.values) { timer.close() }
    }
}
