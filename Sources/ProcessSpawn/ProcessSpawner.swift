import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The one place a child process is started (`posix_spawn`: Foundation's `Process` closes every descriptor above 2
/// in the child on Linux, and cannot put it in a process group of its own). Command jobs and the browser use it.
///
/// The child gets exactly the descriptors its `ChildSpec` maps; every other one is closed in it, whatever this
/// process holds without close-on-exec (the socket through which the process that started a worker learns of its
/// exit, anything a library opened): a child's background process that kept one would hold it for as long as it
/// lives. SIGPIPE (ignored here: libuv) is back to its default in the child, and no signal is blocked.
public enum ProcessSpawner {
    /// Starts `spec` and returns the child's pid (the caller reaps it). A "Text file busy" (`ETXTBSY`) failure is
    /// tried again every 25 ms for up to a second: the program was just written (a build step, a test fixture) and a
    /// process forked meanwhile — this process's other threads spawn too — still holds the writing descriptor until
    /// it execs. That wait blocks the calling thread; it happens only while the program is busy.
    /// - Throws: `SpawnError` saying what is missing (the program, the working directory) or what failed.
    public static func spawn(_ spec: ChildSpec) throws(SpawnError) -> pid_t {
        try whileTextBusy { () throws(SpawnError) -> pid_t in try attempt(spec) }
    }

    /// `body`, tried again every 25 ms for up to a second while it fails with `ETXTBSY`.
    static func whileTextBusy<T>(_ body: () throws(SpawnError) -> T) throws(SpawnError) -> T {
        var tries = 0
        while true {
            do throws(SpawnError) {
                return try body()
            } catch where error.errorNumber == ETXTBSY && tries < 40 {
                tries += 1
                usleep(25_000)
            }
        }
    }

    /// One `posix_spawn` of `spec`.
    static func attempt(_ spec: ChildSpec) throws(SpawnError) -> pid_t {
        guard !spec.program.isEmpty, !spec.arguments.isEmpty else {
            throw SpawnError("cannot start a child: no program given", errorNumber: EINVAL)
        }
        if let cwd = spec.workingDirectory, let problem = SpawnError.directoryProblem(cwd) {
            throw SpawnError("cannot start '\(spec.program)': \(problem)", errorNumber: ENOENT)
        }
        // A source a dup2 onto a lower child descriptor could overwrite moves above the highest one first.
        let highest = spec.descriptors.keys.max() ?? -1
        var moved: [Int32] = []
        defer { for fd in moved { close(fd) } }
        var sources: [Int32: ChildSpec.Source] = [:]
        for (child, source) in spec.descriptors {
            guard case .descriptor(let fd) = source, fd <= highest else {
                sources[child] = source
                continue
            }
            let high = fcntl(fd, F_DUPFD_CLOEXEC, highest + 1)
            guard high >= 0 else { throw SpawnError(spec, code: errno) }
            moved.append(high)
            sources[child] = .descriptor(high)
        }
        var pid: pid_t = 0
        let rc = spawn(spec, sources: sources, highest: highest, pid: &pid)
        guard rc == 0 else { throw SpawnError(spec, code: rc) }
        return pid
    }

    private static func spawn(_ spec: ChildSpec, sources: [Int32: ChildSpec.Source], highest: Int32,
                              pid: inout pid_t) -> Int32 {
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
        // Files and copies first, then the children's copies of each other, then everything else closed.
        for (child, source) in sources.sorted(by: { $0.key < $1.key }) {
            switch source {
            case .nullDevice: posix_spawn_file_actions_addopen(&actions, child, "/dev/null", O_RDWR, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, child, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, child)
            case .child: break
            }
        }
        for (child, source) in sources.sorted(by: { $0.key < $1.key }) {
            if case .child(let other) = source { posix_spawn_file_actions_adddup2(&actions, other, child) }
        }
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #if canImport(Glibc)
            // The numbers below the highest that the spec leaves out, and every one above it (glibc 2.34+; older:
            // each open one by number). Closing one that is not open is no error.
            for fd in 0..<max(highest, 0) where sources[fd] == nil { posix_spawn_file_actions_addclose(&actions, fd) }
            if let closeFrom = Libc.addCloseFrom {
                _ = closeFrom(&actions, highest + 1)
            } else {
                for fd in openDescriptors() where fd > highest { posix_spawn_file_actions_addclose(&actions, fd) }
            }
        #else
            // Darwin: only the descriptors the file actions name stay open in the child.
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        if let cwd = spec.workingDirectory {
            #if canImport(Glibc)
                guard let addchdir = Libc.addchdir else { return ENOSYS }
                _ = addchdir(&actions, cwd)
            #else
                posix_spawn_file_actions_addchdir_np(&actions, cwd)
            #endif
        }
        if spec.newProcessGroup {
            // A process group of its own (pgid = pid): killing the group ends the child and what it started.
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = spec.arguments.map { strdup($0) } + [nil]
        let environment = spec.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in environment { free(p) }
        }
        if spec.searchesPath { return posix_spawnp(&pid, spec.program, &actions, &attributes, argv, environment) }
        return posix_spawn(&pid, spec.program, &actions, &attributes, argv, environment)
    }

    /// A pipe whose ends close on exec (a child gets its copy through `ChildSpec.descriptors`; no other child
    /// inherits them). - Throws: `SpawnError` when the system has no descriptor to spare.
    public static func pipe() throws(SpawnError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
            // pipe2 sets close-on-exec atomically: a child spawned meanwhile by another thread must not inherit this
            // pipe (it would hold it open). The Glibc module does not export it: looked up by name.
            let rc = Libc.pipe2?(&fds, Int32(O_CLOEXEC)) ?? -1
        #else
            // Darwin has no pipe2; its children are spawned with POSIX_SPAWN_CLOEXEC_DEFAULT, so none spawned here
            // inherits this pipe between pipe and fcntl either (another spawner in the process could).
            let rc = Darwin.pipe(&fds)
            if rc == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        #endif
        guard rc == 0 else { throw SpawnError("pipe failed: \(String(cString: strerror(errno)))", errorNumber: errno) }
        return (fds[0], fds[1])
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
        static let pipe2: Pipe2? = symbol("pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
        static let addchdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
            .map { unsafeBitCast($0, to: AddChdir.self) }
        static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
            .map { unsafeBitCast($0, to: AddCloseFrom.self) }
        private static func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(dlopen(nil, RTLD_NOW), name) }
    }
#endif
