import FlowSpec
import Foundation

extension MatrixFile {
    /// Command jobs per configuration: one per item (1 while the items come from a command not yet run).
    public var commandJobsPerConfiguration: Int {
        guard let command else { return 0 }
        return command.items?.count ?? 1
    }
}

extension MatrixPlanner {
    /// Runs the command's `items.command` (where the plan is made) and keeps its lines as the items: its output is
    /// part of the plan, so the same output gives the same job ids. - Returns: an MX029 finding when it fails.
    static func collectItems(of matrix: inout MatrixFile) -> ValidationFinding? {
        guard let argv = matrix.command?.itemsCommand, matrix.command?.items == nil else { return nil }
        func finding(_ message: String) -> ValidationFinding {
            ValidationFinding(file: matrix.file, code: MatrixRule.itemsCommandFailed.code, path: "$.command.items.command",
                              position: matrix.commandPosition, message: message)
        }
        let shown = argv.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        if let cwd = matrix.command?.workingDirectory, !cwd.contains("{") {
            process.currentDirectoryURL = URL(fileURLWithPath: cwd)
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return finding("the items command '\(shown)' could not start: \(error)") }
        // Both pipes are drained at once (a command filling its stderr pipe would otherwise block).
        // Written by the one reader block, read only after `group.wait()`: never accessed concurrently.
        nonisolated(unsafe) var stderrData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stderrData = errors.fileHandleForReading.readDataToEndOfFile() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let tail = String(decoding: stderrData.suffix(600), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return finding("the items command '\(shown)' exited with status \(process.terminationStatus)"
                           + (tail.isEmpty ? "" : ": \(tail)"))
        }
        var seen = Set<String>()
        let items = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        guard !items.isEmpty else { return finding("the items command '\(shown)' printed no item (one a line)") }
        matrix.command?.items = items
        return nil
    }
}
