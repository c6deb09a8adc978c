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
    /// `NAME=value` for the child, verbatim (`FLOWMATRIX_COMMAND_TAG` is added: `ProcessTree`).
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
    /// Processes still running once the command ended, which were then ended (`ProcessTree`); with a time limit or
    /// a cancellation, those outside its process group.
    public var leftBehind: [LeftProcess] = []
    public var passed: Bool { exitStatus == 0 && !timedOut && !cancelled }
}

/// Starts a command in a process group of its own and pumps its stdout and stderr through gzip on a thread of its
/// own (never a Swift concurrency thread: `poll` blocks). At the time limit, on cancellation, and once the command
/// itself exited, the whole group is killed (`SIGKILL`), and on Linux so is every descendant that left it (`setsid`),
/// so helpers it left behind do not outlive the job (`ProcessTree`; docs/COMMAND-JOBS.md).
public enum CommandProcess {
    /// Runs `invocation` to its end. - Throws: `CommandError` when it cannot be started.
    public static func run(_ invocation: CommandInvocation, settings: CommandSettings = CommandSettings()) async throws
        -> CommandOutcome
    {
        let started = ContinuousClock.now
        let child = try SpawnedChild(invocation)
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
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
