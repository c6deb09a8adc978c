import Foundation
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A run's local worker processes: children of this process started from a ``WorkerLaunch`` (`flowmatrix worker`,
/// `test-worker`, any executable built on `WorkerMain`) to connect to `127.0.0.1:<port>`, restarted when one dies
/// while the run goes on (a crashing job must not starve the run), and stopped at the end.
///
/// They run `niceness` steps below the coordinator's scheduling priority: the coordinator's event loop and its
/// journal writer are one thread each, and on a machine where N worker processes keep every core busy, a fair
/// share per thread would starve them (results journaled late, heartbeats answered late). Workers then use what
/// the coordinator leaves, which is all the CPU it does not need.
public final class LocalWorkers: Sendable {
    /// How much lower the workers' priority is than this process's (`nice` steps, capped at 19).
    public static let niceness: Int32 = 5

    private struct State {
        var processes: [Int: Process] = [:]
        var running = true
        var restarts = 0
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        var exits = 0
    }

    private let state = Mutex(State())
    private let launch: WorkerLaunch
    private let port: Int
    private let token: String
    private let slots: Int
    private let maximumRestarts: Int
    /// Their own lines (a worker's "drained after …") are dropped (`run --quiet`).
    private let quiet: Bool

    /// Starts `count` workers from `launch`, each with `slots`, connecting to `127.0.0.1:<port>` with `token`.
    /// - Throws: when an executable cannot be started.
    public init(count: Int, slots: Int, port: Int, token: String, launch: WorkerLaunch, quiet: Bool = false,
                maximumRestarts: Int = 200) throws {
        self.launch = launch
        self.quiet = quiet
        self.port = port
        self.token = token
        self.slots = slots
        self.maximumRestarts = maximumRestarts
        for index in 0..<count { try spawn(index) }
    }

    public var restarts: Int { state.withLock { $0.restarts } }

    private func spawn(_ index: Int) throws {
        let process = Process()
        process.executableURL = launch.executable
        process.arguments = launch.leadingArguments
            + ["--connect", "127.0.0.1:\(port)", "--slots", "\(slots)", "--name", "local-\(index + 1)",
               "--exit-after-drain", "--give-up-after", "10"]
            + launch.trailingArguments
        var environment = ProcessInfo.processInfo.environment.merging(launch.environment) { _, launch in launch }
        environment["FLOWMATRIX_TOKEN"] = token
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if quiet { process.standardError = FileHandle.nullDevice }
        process.terminationHandler = { [weak self] _ in self?.exited(index) }
        try process.run()
        // Lowering another process's priority needs no privilege; failing to is harmless.
        Self.lowerPriority(of: process.processIdentifier, by: Self.niceness)
        state.withLock { $0.processes[index] = process }
    }

    private func exited(_ index: Int) {
        defer { wakeExitWaiters() }
        let restart = state.withLock { s -> Bool in
            s.processes[index] = nil
            s.exits += 1
            guard s.running, s.restarts < maximumRestarts else { return false }
            s.restarts += 1
            return true
        }
        if restart { try? spawn(index) }
    }

    /// No more restarts; the coordinator's DRAIN makes the workers exit on their own.
    public func stopRestarting() {
        state.withLock { $0.running = false }
    }

    /// Waits up to `grace` for every worker to exit (they exit after the coordinator's DRAIN), then kills what is
    /// left and waits (10 s at most) until their termination handlers have reaped them, without blocking a thread.
    public func waitForExit(grace: Duration) async {
        stopRestarting()
        await awaitExits(until: ContinuousClock.now + grace)
        let leftovers = state.withLock { Array($0.processes.values) }
        for p in leftovers where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        await awaitExits(until: ContinuousClock.now + .seconds(10))
    }

    /// Suspends until every worker has exited or `deadline` has passed.
    private func awaitExits(until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline {
            let (alive, exits) = state.withLock { ($0.processes.count, $0.exits) }
            if alive == 0 { break }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.nextExit(after: exits) }
                group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
                _ = await group.next()
                group.cancelAll()
                self.wakeExitWaiters()
            }
        }
    }

    /// Suspends until a worker exits after the `exits`-th exit (or `wakeExitWaiters` is called).
    private func nextExit(after exits: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.exits != exits || s.processes.isEmpty { return true }
                s.exitWaiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    private func wakeExitWaiters() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            defer { s.exitWaiters.removeAll() }
            return s.exitWaiters
        }
        for w in waiters { w.resume() }
    }

    /// Kills every worker at once (abort).
    public func killAll() {
        stopRestarting()
        let all = state.withLock { Array($0.processes.values) }
        for p in all where p.isRunning { kill(p.processIdentifier, SIGKILL) }
    }

    /// Lowers a child's scheduling priority by `steps` below this process's (failing to is harmless).
    private static func lowerPriority(of pid: Int32, by steps: Int32) {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, id_t(pid), min(19, getpriority(which, 0) + steps))
        #else
        _ = setpriority(PRIO_PROCESS, id_t(pid), min(19, getpriority(PRIO_PROCESS, 0) + steps))
        #endif
    }
}
