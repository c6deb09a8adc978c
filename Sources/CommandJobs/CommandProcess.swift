import Artifacts
import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A command to start: the argument vector (placeholders filled), its whole environment, and where it runs.
public struct CommandInvocation: Sendable, Hashable {
    public var argv: [String]
    /// `NAME=value` for the child, verbatim.
    public var environment: [String: String]
    /// Nil: the worker's working directory.
    public var workingDirectory: String?
    /// Nil: no limit of its own (the job's watchdog cancels it).
    public var timeout: Duration?

    public init(argv: [String], environment: [String: String], workingDirectory: String? = nil, timeout: Duration? = nil) {
        self.argv = argv
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.timeout = timeout
    }
}

/// How a command ended, with its output kept as gzip artifacts (step 0).
public struct CommandOutcome: Sendable {
    /// The process id (also its process group id).
    public var pid: Int32
    /// The exit status when it exited.
    public var exitStatus: Int32?
    /// The signal that ended it.
    public var signal: Int32?
    /// It outlived `timeout` and its process group was killed.
    public var timedOut: Bool
    /// The job was cancelled (its watchdog, a drain) and the process group was killed.
    public var cancelled: Bool
    public var duration: Duration
    public var stdout: CompressedArtifact?
    public var stderr: CompressedArtifact?
    /// The last lines of stderr (at most `CommandSettings.stderrTailBytes`), for the failure message.
    public var stderrTail: String
    /// Output that could not be kept, and why (the registry files them as `artifacts.error.txt`).
    public var outputProblems: [String] = []
    public var passed: Bool { exitStatus == 0 && !timedOut && !cancelled }
}

/// Starts a command in a process group of its own and pumps its stdout and stderr through gzip on a thread of its
/// own (never a Swift concurrency thread: `poll` blocks). At the time limit, on cancellation, and once the command
/// itself exited, the whole group is killed (`SIGKILL`), so helpers it left behind do not outlive the job. A child
/// that leaves the group on purpose (`setsid`) is out of reach; see docs/COMMAND-JOBS.md.
public enum CommandProcess {
    /// `spawn()`, tried again every 25 ms for up to a second while it fails with "Text file busy" (`ETXTBSY`): the
    /// program was just written (a build step, a test fixture) and a process forked meanwhile — this worker's other
    /// slots spawn too — still holds the writing descriptor until it execs.
    static func whileTextBusy<T>(_ spawn: () throws -> T) async throws -> T {
        var tries = 0
        while true {
            do {
                return try spawn()
            } catch let error as CommandError where error.errorNumber == ETXTBSY && tries < 40 {
                tries += 1
                try? await Task.sleep(for: .milliseconds(25))
            }
        }
    }

    /// Runs `invocation` to its end. - Throws: `CommandError` when it cannot be started.
    public static func run(_ invocation: CommandInvocation, settings: CommandSettings = CommandSettings()) async throws
        -> CommandOutcome
    {
        let started = ContinuousClock.now
        let child = try await whileTextBusy { try SpawnedChild(invocation) }
        let cancelled = Atomic<Bool>(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CommandOutcome, Never>) in
                let thread = Thread {
                    var pump = OutputPump(child: child, settings: settings,
                                          deadline: invocation.timeout.map { started + $0 })
                    var outcome = pump.run(isCancelled: { cancelled.load(ordering: .relaxed) })
                    outcome.duration = ContinuousClock.now - started
                    continuation.resume(returning: outcome)
                }
                thread.name = "flowmatrix-command-\(child.pid)"
                thread.start()
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
            _ = kill(-child.pid, SIGKILL)
        }
    }
}

/// Tunables of command jobs, with their defaults.
public struct CommandSettings: Sendable {
    /// The most compressed bytes kept of each of stdout and stderr (default 8 MiB: tens of MB of typical logs, over a
    /// gigabyte of a repeated line; past it the output is counted and dropped, and the artifact says so). The
    /// worker holds them, and a copy while they stream to the coordinator: this bounds its memory per job.
    public var maxCompressedOutput = 8 << 20
    /// How much of the end of stderr makes the failure message (default 2 KiB, cut to whole lines).
    public var stderrTailBytes = 2048
    /// How often the pump looks whether the command exited while something it started still holds its output open.
    public var exitCheckInterval: Duration = .milliseconds(50)
    /// How long output is still read after the command exited and its group was killed (default 1 s): only a
    /// process outside the group can hold it open that long.
    public var drainAfterExit: Duration = .seconds(1)

    public init() {}
}

/// Why a command could not start.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The system's error number when the spawn itself failed (0 otherwise).
    var errorNumber: Int32 = 0
    public init(_ message: String) { self.message = message }
    init(_ message: String, errorNumber: Int32) {
        self.message = message
        self.errorNumber = errorNumber
    }
    public var description: String { message }
}

/// The spawned child and our ends of its output pipes.
struct SpawnedChild: Sendable {
    let pid: Int32
    let stdoutFD: Int32
    let stderrFD: Int32

    init(_ invocation: CommandInvocation) throws {
        guard let program = invocation.argv.first, !program.isEmpty else { throw CommandError("the command is empty") }
        let out = try Self.pipe()
        let err: (read: Int32, write: Int32)
        do { err = try Self.pipe() } catch {
            close(out.read)
            close(out.write)
            throw error
        }
        var pid: pid_t = 0
        let rc = Self.spawn(invocation, stdout: out.write, stderr: err.write, pid: &pid)
        close(out.write)
        close(err.write)
        guard rc == 0 else {
            close(out.read)
            close(err.read)
            let reason = String(cString: strerror(rc))
            throw CommandError("cannot start '\(program)'"
                + (invocation.workingDirectory.map { " in \($0)" } ?? "") + ": \(reason)", errorNumber: rc)
        }
        self.pid = pid
        stdoutFD = out.read
        stderrFD = err.read
    }

    /// A pipe whose ends close on exec (the child gets its copies by dup2; no other child inherits them).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
            // pipe2 sets close-on-exec atomically: a command spawned meanwhile by another slot must not inherit
            // this pipe (it would hold our output open). The Glibc module does not export it: looked up by name.
            let rc = Libc.pipe2?(&fds, Int32(O_CLOEXEC)) ?? -1
        #else
            // Darwin has no pipe2: a command another slot spawns between pipe and fcntl may inherit this pipe; the
            // pump stops waiting for its end a moment after our command exited (`OutputPump`).
            let rc = Darwin.pipe(&fds)
            if rc == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        #endif
        guard rc == 0 else { throw CommandError("pipe failed: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }

    private static func spawn(_ invocation: CommandInvocation, stdout: Int32, stderr: Int32, pid: inout pid_t) -> Int32 {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let cwd = invocation.workingDirectory {
            #if canImport(Glibc)
                guard let addchdir = Libc.addchdir else { return ENOSYS }
                _ = addchdir(&actions, cwd)
            #else
                posix_spawn_file_actions_addchdir_np(&actions, cwd)
            #endif
        }
        // A process group of its own (pgid = pid): the time limit and cancellation kill every process in it.
        posix_spawnattr_setpgroup(&attributes, 0)
        // SIGPIPE is ignored in the worker (libuv); the command gets default dispositions and no blocked signals.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = invocation.argv.map { strdup($0) } + [nil]
        let environment = invocation.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in environment { free(p) }
        }
        // posix_spawnp searches the worker's PATH for a bare program name.
        return posix_spawnp(&pid, invocation.argv[0], &actions, &attributes, argv, environment)
    }
}

#if canImport(Glibc)
    /// glibc functions the Glibc module does not export (GNU extensions), looked up once by name.
    enum Libc {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        static let pipe2: Pipe2? = symbol("pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
        static let addchdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
            .map { unsafeBitCast($0, to: AddChdir.self) }
        private static func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(dlopen(nil, RTLD_NOW), name) }
    }
#endif
