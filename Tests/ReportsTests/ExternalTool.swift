import Foundation
import ProcessSpawn

/// Runs system tools (xmllint, chromium) from tests: finds them, and runs them with a time bound. Tests install
/// nothing: `scripts/install-deps.sh test` (run by `scripts/test.sh`) provides the tools.
enum ExternalTool {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The path of `command`, or nil with the reason: the Debian `package` that provides it is not installed.
    static func ensure(_ command: String, package: String) -> (path: String?, reason: String) {
        if let path = which(command) { return (path, "") }
        return (nil, "'\(command)' is missing: run scripts/install-deps.sh test (it installs the Debian package '\(package)')")
    }

    /// Removes a directory tree; tries again when a helper process of the tool was still writing into it.
    static func removeTree(_ url: URL) {
        for _ in 0..<5 {
            do {
                try FileManager.default.removeItem(at: url)
                return
            } catch {
                if !FileManager.default.fileExists(atPath: url.path) { return }
            }
        }
    }

    static func which(_ command: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/bin", "/usr/local/bin"] {
            let candidate = "\(dir)/\(command)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` and waits at most `timeout` seconds (the process is killed then). Output goes through
    /// temporary files, so a large output never blocks the child. It waits without blocking a thread of the
    /// cooperative pool: a blocked pool thread (there are as many as cores) stalls every other test of the process.
    static func run(_ executable: String, _ arguments: [String], timeout: Double, environment: [String: String] = [:]) async -> Output {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
            guard FileManager.default.createFile(atPath: out.path, contents: nil),
                  FileManager.default.createFile(atPath: err.path, contents: nil) else {
                return Output(status: -1, stdout: "", stderr: "could not create output files in \(dir.path)", timedOut: false)
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            var timedOut = false
            if await !process.exited(timeout: .milliseconds(Int64(timeout * 1000))) {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                _ = await process.exited(timeout: .seconds(30))
            }
            return Output(status: process.terminationStatus,
                          stdout: String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self),
                          stderr: String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self),
                          timedOut: timedOut)
        } catch {
            return Output(status: -1, stdout: "", stderr: "could not run \(executable): \(error)", timedOut: false)
        }
    }
}
