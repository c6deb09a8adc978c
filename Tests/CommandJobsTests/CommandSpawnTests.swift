@testable import CommandJobs
import Foundation
import Testing

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

@Suite("Command spawn")
struct CommandSpawnTests {
    @Test("a program still open for writing (Text file busy) starts once the writer closes it")
    func textFileBusy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = folder.appendingPathComponent("tool.sh")
        #expect(FileManager.default.createFile(atPath: tool.path, contents: Data("#!/bin/sh\nexit 3\n".utf8),
                                               attributes: [.posixPermissions: 0o755]))
        // Held open for writing, as a build step that just wrote it (or a process forked meanwhile) would; close-on-exec,
        // so commands other tests start meanwhile do not inherit it.
        let descriptor = open(tool.path, O_WRONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        var writing = true
        let invocation = CommandInvocation(argv: [tool.path], environment: ["PATH": "/usr/bin:/bin"])
        var failures: [Int32] = []
        let child = try await CommandProcess.whileTextBusy { () throws -> SpawnedChild in
            do {
                return try SpawnedChild(invocation)
            } catch let error as CommandError {
                failures.append(error.errorNumber)
                if writing {
                    close(descriptor)
                    writing = false
                }
                throw error
            }
        }
        defer {
            close(child.stdoutFD)
            close(child.stderrFD)
        }
        // At least the first try met the writer; any later one met a fork of another thread still holding it.
        #expect(!failures.isEmpty && failures.allSatisfy { $0 == ETXTBSY }, "\(failures)")
        var status: Int32 = 0
        #expect(waitpid(child.pid, &status, 0) == child.pid)
        #expect((status >> 8) & 0xFF == 3)
    }
}
