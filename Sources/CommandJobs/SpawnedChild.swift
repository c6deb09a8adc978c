import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The spawned child and our ends of its output pipes.
///
/// The child gets exactly three descriptors: stdin (`/dev/null`), stdout and stderr (our pipes). Every other one is
/// closed in the child, whatever the worker holds without close-on-exec (the socket through which the process that
/// started the worker learns of its exit, anything a library opened): a command's background process that kept one
/// would hold it for as long as it lives.
struct SpawnedChild: Sendable {
    let pid: Int32
    let stdoutFD: Int32
    let stderrFD: Int32
    /// The mark in the command's environment (`ProcessTree.tagVariable`) that its descendants inherit.
    let tag: String

    init(_ invocation: CommandInvocation) throws {
        guard let program = invocation.argv.first, !program.isEmpty else { throw CommandError("the command is empty") }
        if let cwd = invocation.workingDirectory, let problem = Self.directoryProblem(cwd) {
            throw CommandError("cannot start '\(program)': \(problem)", errorNumber: ENOENT)
        }
        let out = try Self.pipe()
        let err: (read: Int32, write: Int32)
        do { err = try Self.pipe() } catch {
            close(out.read)
            close(out.write)
            throw error
        }
        let tag = ProcessTree.newTag()
        var environment = invocation.environment
        environment[ProcessTree.tagVariable] = tag
        ProcessTree.prepare()
        var pid: pid_t = 0
        let rc = Self.spawn(invocation, environment: environment, stdout: out.write, stderr: err.write, pid: &pid)
        close(out.write)
        close(err.write)
        guard rc == 0 else {
            close(out.read)
            close(err.read)
            throw CommandError("cannot start '\(program)': " + Self.reason(rc, program: program, cwd: invocation.workingDirectory),
                               errorNumber: rc)
        }
        ProcessTree.started(pid)
        self.pid = pid
        self.tag = tag
        stdoutFD = out.read
        stderrFD = err.read
    }

    /// Why `cwd` cannot be a command's working directory, or nil when it can.
    static func directoryProblem(_ cwd: String) -> String? {
        var isDirectory: ObjCBool = false
        let shown = cwd.hasPrefix("/") ? "'\(cwd)'" : "'\(cwd)' (relative to \(FileManager.default.currentDirectoryPath))"
        guard FileManager.default.fileExists(atPath: cwd, isDirectory: &isDirectory) else {
            return "its working directory \(shown) does not exist"
        }
        return isDirectory.boolValue ? nil : "its working directory \(shown) is not a directory"
    }

    /// The plain reason a spawn of `program` failed with `code`: a missing program is not a missing directory.
    static func reason(_ code: Int32, program: String, cwd: String?) -> String {
        // The directory was there a moment ago; if it went away meanwhile, that is the reason.
        if code == ENOENT, let cwd, let problem = directoryProblem(cwd) { return problem }
        let relative = program.hasPrefix("/") ? "" : " (relative to " + (cwd.map { "the working directory '\($0)'" }
            ?? "\(FileManager.default.currentDirectoryPath)") + ")"
        switch code {
        case ENOENT where !program.contains("/"):
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            return "no program '\(program)' on the worker's PATH (\(path))"
        case ENOENT:
            return "the program '\(program)' does not exist\(relative)"
        case EACCES:
            return "the program '\(program)' is not executable (or a folder on its path cannot be searched)\(relative)"
        default:
            return String(cString: strerror(code))
        }
    }

    /// A pipe whose ends close on exec (the child gets its copies by dup2; no other child inherits them).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
            // pipe2 sets close-on-exec atomically: a command spawned meanwhile by another slot must not inherit
            // this pipe (it would hold our output open). The Glibc module does not export it: looked up by name.
            let rc = Libc.pipe2?(&fds, Int32(O_CLOEXEC)) ?? -1
        #else
            // Darwin has no pipe2; its commands are spawned with POSIX_SPAWN_CLOEXEC_DEFAULT, so no command inherits
            // this pipe between pipe and fcntl either (another spawner in the process could).
            let rc = Darwin.pipe(&fds)
            if rc == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        #endif
        guard rc == 0 else { throw CommandError("pipe failed: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }

    private static func spawn(_ invocation: CommandInvocation, environment: [String: String], stdout: Int32,
                              stderr: Int32, pid: inout pid_t) -> Int32 {
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
        var flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #if canImport(Glibc)
            // Every descriptor above stderr is closed in the child (glibc 2.34+; older: each open one by number).
            if let closeFrom = Libc.addCloseFrom {
                _ = closeFrom(&actions, 3)
            } else {
                for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
            }
        #else
            // Darwin: only the descriptors the file actions name (0, 1, 2) stay open in the child.
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
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
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = invocation.argv.map { strdup($0) } + [nil]
        let environment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in environment { free(p) }
        }
        // posix_spawnp searches the worker's PATH for a bare program name.
        return posix_spawnp(&pid, invocation.argv[0], &actions, &attributes, argv, environment)
    }

    #if canImport(Glibc)
        /// This process's open descriptors (for a glibc without `posix_spawn_file_actions_addclosefrom_np`).
        private static func openDescriptors() -> [Int32] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        }
    #endif
}

#if canImport(Glibc)
    /// glibc functions the Glibc module does not export (GNU extensions), looked up once by name.
    enum Libc {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        /// `prctl(option, arg2, …)`: variadic in C, called with its four `unsigned long` arguments spelled out (the
        /// Linux calling conventions pass them in the same registers either way).
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        static let pipe2: Pipe2? = symbol("pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
        static let addchdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
            .map { unsafeBitCast($0, to: AddChdir.self) }
        static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
            .map { unsafeBitCast($0, to: AddCloseFrom.self) }
        static let prctl: Prctl? = symbol("prctl").map { unsafeBitCast($0, to: Prctl.self) }
        private static func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(dlopen(nil, RTLD_NOW), name) }
    }
#endif
