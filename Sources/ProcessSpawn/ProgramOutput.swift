import Foundation

/// How a short program ended and what it printed, waited for without blocking a thread (probes such as
/// `<worker> --list-registries --json`, the tests' tools).
public struct ProgramOutput: Sendable {
    /// What becomes of the program's standard error.
    public enum Errors: Sendable {
        case discarded
        /// Written into ``output`` with standard output, in the order written.
        case merged
    }

    public var status: Int32
    /// Its standard output (with standard error when ``Errors/merged``).
    public var output: Data

    /// The output as text (invalid UTF-8 repaired).
    public var text: String { String(decoding: output, as: UTF8.self) }

    /// Runs `executable arguments` (in `directory`, standard input empty) to completion and returns its status and
    /// output. The output goes through a temporary file rather than a pipe, so a program that prints a lot never
    /// stalls on a full pipe and nothing has to read while it runs.
    /// - Returns: nil when it has not exited within `timeout` (it is then ended: SIGTERM, then SIGKILL).
    /// - Throws: when the program cannot be started or the temporary file cannot be made.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, errors: Errors = .discarded,
        timeout: Duration
    ) async throws -> ProgramOutput? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("program-output-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = errors == .merged ? handle : FileHandle.nullDevice
        try process.run()
        guard await process.exited(timeout: timeout) else {
            await process.stop()
            return nil
        }
        return ProgramOutput(status: process.terminationStatus, output: try Data(contentsOf: file))
    }
}
