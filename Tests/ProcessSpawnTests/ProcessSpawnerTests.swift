import Foundation
@testable import ProcessSpawn
import Testing

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

@Suite("Process spawner")
struct ProcessSpawnerTests {
    @Test("a child sees only the descriptors its spec maps, whatever this process holds without close-on-exec")
    func onlyMappedDescriptors() throws {
        // As the socket a parent's Foundation `Process` gives a worker: inherited, not close-on-exec.
        // Numbered above the probed 0…9, so that it is told apart from them.
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let leaked = fcntl(null, F_DUPFD, 20)
        close(null)
        #expect(leaked >= 20)
        defer { close(leaked) }
        let out = try ProcessSpawner.pipe()
        let extra = try ProcessSpawner.pipe()
        // Not `out.read`: `readAll` closes it. Closing it twice closed whatever descriptor another test of this suite,
        // running in parallel, had opened with that number in between: `processGroup`'s pipe, whose spawn then failed
        // with "Bad file descriptor" (CI of 7 December 2026, 19:10 UTC).
        defer { for fd in [extra.read, extra.write] { close(fd) } }
        // Each of 0…9 and the leaked one, probed in a subshell (a failed redirection ends only it).
        let probe = "for fd in 0 1 2 3 4 5 6 7 8 9 \(leaked); do if (true >&$fd) 2>/dev/null; then printf '%s ' $fd; fi; done"
        let spec = ChildSpec(
            program: "/bin/sh", arguments: ["sh", "-c", probe], environment: [:],
            descriptors: [0: .nullDevice, 1: .descriptor(out.write), 2: .child(1), 5: .descriptor(extra.write)])
        let pid = try ProcessSpawner.spawn(spec)
        close(out.write)
        let printed = readAll(out.read)
        #expect(exitStatus(pid) == 0)
        #expect(printed == "0 1 2 5 ", "\(printed)")
    }

    @Test("a source descriptor that has the number of another child descriptor is copied before that one is set")
    func sourcesMoveAside() throws {
        let first = try ProcessSpawner.pipe()
        let second = try ProcessSpawner.pipe()
        // Above every descriptor this process holds now (a test process running other suites holds 100 and more).
        let other = max(first.write, second.write) + 3
        // The child's descriptor numbered as our `first.write` gets `second.write`; `first.write` goes to `other`.
        let spec = ChildSpec(
            // bash: dash takes no descriptor above 9 in a redirection.
            program: "/bin/bash", arguments: ["bash", "-c", "echo first >&\(other); echo second >&\(first.write)"],
            environment: [:],
            descriptors: [0: .nullDevice, 1: .nullDevice, 2: .nullDevice, other: .descriptor(first.write),
                          first.write: .descriptor(second.write)])
        let pid = try ProcessSpawner.spawn(spec)
        close(first.write)
        close(second.write)
        #expect(exitStatus(pid) == 0)
        #expect(readAll(first.read) == "first\n")
        #expect(readAll(second.read) == "second\n")
    }

    @Test("a program still open for writing (Text file busy) starts once the writer closes it")
    func textFileBusy() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = folder.appendingPathComponent("tool.sh")
        #expect(FileManager.default.createFile(atPath: tool.path, contents: Data("#!/bin/sh\nexit 3\n".utf8),
                                               attributes: [.posixPermissions: 0o755]))
        // Held open for writing, as a build step that just wrote it (or a process forked meanwhile) would;
        // close-on-exec, so children other tests start meanwhile do not inherit it.
        let descriptor = open(tool.path, O_WRONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        var writing = true
        let spec = ChildSpec(program: tool.path, arguments: [tool.path], environment: ["PATH": "/usr/bin:/bin"])
        var failures: [Int32] = []
        let pid = try ProcessSpawner.whileTextBusy { () throws(SpawnError) -> pid_t in
            do throws(SpawnError) {
                return try ProcessSpawner.attempt(spec)
            } catch {
                failures.append(error.errorNumber)
                if writing {
                    close(descriptor)
                    writing = false
                }
                throw error
            }
        }
        // At least the first try met the writer; any later one met a fork of another thread still holding it.
        #expect(!failures.isEmpty && failures.allSatisfy { $0 == ETXTBSY }, "\(failures)")
        #expect(exitStatus(pid) == 3)
    }

    @Test("a missing working directory, a missing program and one not on PATH are told apart")
    func missingDirectoryOrProgram() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func failure(_ program: String, cwd: String?, searchesPath: Bool = true) -> String {
            let spec = ChildSpec(program: program, arguments: [program], environment: [:], workingDirectory: cwd,
                                 searchesPath: searchesPath)
            do throws(SpawnError) {
                _ = exitStatus(try ProcessSpawner.spawn(spec))
                return "it started"
            } catch { return error.message }
        }
        #expect(failure("true", cwd: folder.appendingPathComponent("nope").path)
            == "cannot start 'true': its working directory '\(folder.path)/nope' does not exist")
        let noProgram = failure("no-such-program", cwd: folder.path)
        #expect(noProgram.hasPrefix("cannot start 'no-such-program': no program 'no-such-program' on the worker's PATH ("),
                "\(noProgram)")
        #expect(failure("./run.sh", cwd: folder.path)
            == "cannot start './run.sh': the program './run.sh' does not exist (relative to the working directory '\(folder.path)')")
        #expect(failure("/no/such/browser", cwd: nil, searchesPath: false)
            == "cannot start '/no/such/browser': the program '/no/such/browser' does not exist")
        let file = folder.appendingPathComponent("file")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        #expect(failure("true", cwd: file.path) == "cannot start 'true': its working directory '\(file.path)' is not a directory")
        #expect(failure(file.path, cwd: nil)
            == "cannot start '\(file.path)': the program '\(file.path)' is not executable (or a folder on its path cannot be searched)")
    }

    @Test("a child leads a process group of its own when asked, and stays in ours otherwise")
    func processGroup() throws {
        for newGroup in [true, false] {
            let input = try ProcessSpawner.pipe()
            // The child waits on its stdin until we close our end: it is alive while its group is read.
            let spec = ChildSpec(program: "/bin/sh", arguments: ["sh", "-c", "read line || true"], environment: [:],
                                 newProcessGroup: newGroup,
                                 descriptors: [0: .descriptor(input.read), 1: .nullDevice, 2: .nullDevice])
            let pid = try ProcessSpawner.spawn(spec)
            close(input.read)
            let group = getpgid(pid)
            close(input.write)
            #expect(exitStatus(pid) == 0)
            #expect(group == (newGroup ? pid : getpgrp()), "group \(group), pid \(pid), ours \(getpgrp())")
        }
    }

    @Test("a child's stdout can go to a file, and its stderr with it")
    func outputToFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("child.log").path
        let spec = ChildSpec(program: "/bin/sh", arguments: ["sh", "-c", "echo out; echo err >&2"], environment: [:],
                             descriptors: [0: .nullDevice, 1: .file(log), 2: .child(1)])
        #expect(exitStatus(try ProcessSpawner.spawn(spec)) == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "out\nerr\n")
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Everything `fd` yields until its end, as text; closes it.
    private func readAll(_ fd: Int32) -> String {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { bytes += buffer[..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reaps `pid` and returns its exit status (-1 when a signal ended it).
    private func exitStatus(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }
}
