import Artifacts
@testable import CommandJobs
import Foundation
import Gzip
import Testing

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

@Suite("Command spawn")
struct CommandSpawnTests {
    @Test("a command gets only stdin, stdout and stderr: a descriptor the worker holds without close-on-exec is closed in it")
    func onlyThreeDescriptors() async throws {
        // As the socket a parent's Foundation `Process` gives the worker: inherited, not close-on-exec.
        var pair: [Int32] = [-1, -1]
        #if canImport(Darwin)
            #expect(socketpair(AF_UNIX, SOCK_STREAM, 0, &pair) == 0)
        #else
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        #endif
        defer { for fd in pair { close(fd) } }
        // In a subshell: a failed redirection ends only it.
        let probe = "if (true >&\(pair[1])) 2>/dev/null; then echo open; else echo closed; fi"
        let outcome = try await CommandProcess.run(CommandInvocation(argv: ["/bin/sh", "-c", probe], environment: [:]))
        let printed = try #require(outcome.stdout).text
        #expect(printed == "closed\n", "\(printed)")
        #if os(Linux)
            // Every descriptor the program starts with, but the listing's own directory.
            let listing = try await CommandProcess.run(CommandInvocation(argv: ["ls", "-l", "/proc/self/fd"], environment: [:]))
            let lines = try #require(listing.stdout).text.split(separator: "\n").filter { $0.contains(" -> ") }
            let open = lines.filter { !$0.hasSuffix("/fd") }.compactMap { $0.split(separator: " -> ")[0].split(separator: " ").last }
            #expect(open == ["0", "1", "2"], "\(lines)")
        #endif
    }

    @Test("a missing working directory and a missing program are told apart")
    func missingDirectoryOrProgram() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func failure(_ argv: [String], cwd: String?) async -> String {
            do {
                _ = try await CommandProcess.run(CommandInvocation(argv: argv, environment: [:], workingDirectory: cwd))
                return "it started"
            } catch { return "\(error)" }
        }
        let noDirectory = await failure(["true"], cwd: folder.appendingPathComponent("nope").path)
        #expect(noDirectory == "cannot start 'true': its working directory '\(folder.path)/nope' does not exist")
        let relative = await failure(["true"], cwd: "no-such-folder-\(UUID().uuidString.prefix(6))")
        #expect(relative.contains("does not exist") && relative.contains("(relative to \(FileManager.default.currentDirectoryPath))"),
                "\(relative)")
        let noProgram = await failure(["no-such-program-\(UUID().uuidString.prefix(6))"], cwd: folder.path)
        #expect(noProgram.contains("': no program 'no-such-program-") && noProgram.contains("on the worker's PATH"), "\(noProgram)")
        let noFile = await failure(["./run.sh"], cwd: folder.path)
        #expect(noFile == "cannot start './run.sh': the program './run.sh' does not exist (relative to the working directory '\(folder.path)')")
        let file = folder.appendingPathComponent("file")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let notDirectory = await failure(["true"], cwd: file.path)
        #expect(notDirectory == "cannot start 'true': its working directory '\(file.path)' is not a directory")
    }
}

extension CompressedArtifact {
    /// The artifact's bytes as text.
    var text: String {
        get throws { String(decoding: try GzipCodec.decompress(compressed, maxOutputSize: 1 << 24), as: UTF8.self) }
    }
}
