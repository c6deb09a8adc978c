import Foundation
import ProcessSpawn

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The spawned command and our ends of its output pipes.
///
/// The command gets exactly three descriptors: stdin (`/dev/null`), stdout and stderr (our pipes); every other one
/// is closed in it (`ProcessSpawner`).
struct SpawnedChild: Sendable {
    let pid: Int32
    let stdoutFD: Int32
    let stderrFD: Int32
    /// The mark in the command's environment (`ProcessTree.tagVariable`) that its descendants inherit.
    let tag: String

    init(_ invocation: CommandInvocation) throws {
        guard let program = invocation.argv.first, !program.isEmpty else { throw CommandError("the command is empty") }
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
        let spec = ChildSpec(
            program: program, arguments: invocation.argv, environment: environment,
            workingDirectory: invocation.workingDirectory, searchesPath: true, newProcessGroup: true,
            descriptors: [0: .nullDevice, 1: .descriptor(out.write), 2: .descriptor(err.write)])
        let pid: pid_t
        do throws(SpawnError) {
            pid = try ProcessSpawner.spawn(spec)
        } catch {
            for fd in [out.read, out.write, err.read, err.write] { close(fd) }
            throw CommandError(error.message)
        }
        close(out.write)
        close(err.write)
        ProcessTree.started(pid)
        self.pid = pid
        self.tag = tag
        stdoutFD = out.read
        stderrFD = err.read
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        do { return try ProcessSpawner.pipe() } catch { throw CommandError(error.message) }
    }
}

#if canImport(Glibc)
    /// glibc functions the Glibc module does not export (GNU extensions), looked up once by name.
    enum Libc {
        /// `prctl(option, arg2, …)`: variadic in C, called with its four `unsigned long` arguments spelled out (the
        /// Linux calling conventions pass them in the same registers either way).
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        static let prctl: Prctl? = dlsym(dlopen(nil, RTLD_NOW), "prctl").map { unsafeBitCast($0, to: Prctl.self) }
    }
#endif
