import FlowSpec

extension MatrixFile {
    /// Command jobs per configuration: one per item (1 while the items come from a command not yet run).
    public var commandJobsPerConfiguration: Int {
        guard let command else { return 0 }
        return command.items?.count ?? 1
    }
}

/// What an items command did: its exit status and what it printed.
public struct ItemsCommandOutput: Sendable, Hashable {
    public var status: Int32
    public var standardOutput: [UInt8]
    public var standardError: [UInt8]

    public init(status: Int32, standardOutput: [UInt8], standardError: [UInt8] = []) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// Runs a matrix's `items.command` where the plan is made. MatrixPlan does no I/O itself: the CLI supplies the
/// runner that starts processes (`PlanSettings.itemsCommandRunner`); tests supply one that answers from memory.
///
/// Implementation requirements: run `argv` (its first element looked up on `PATH`) with no standard input, in
/// `workingDirectory` when given, and wait for it to exit; drain standard output and standard error together (a
/// command filling one pipe must not block). Throw only when the command could not start.
public protocol ItemsCommandRunner: Sendable {
    func run(_ argv: [String], workingDirectory: String?) throws -> ItemsCommandOutput
}

extension MatrixPlanner {
    /// Runs the command's `items.command` (where the plan is made) through `runner` and keeps its lines as the items:
    /// its output is part of the plan, so the same output gives the same job ids.
    /// - Returns: an MX029 finding when it fails, or when there is no runner to run it.
    static func collectItems(of matrix: inout MatrixFile, runner: (any ItemsCommandRunner)?) -> ValidationFinding? {
        guard let argv = matrix.command?.itemsCommand, matrix.command?.items == nil else { return nil }
        func finding(_ message: String) -> ValidationFinding {
            ValidationFinding(file: matrix.file, code: MatrixRule.itemsCommandFailed.code, path: "$.command.items.command",
                              position: matrix.commandPosition, message: message)
        }
        let shown = argv.joined(separator: " ")
        guard let runner else {
            return finding("the items command '\(shown)' was not run: this caller plans without running commands")
        }
        let cwd = matrix.command?.workingDirectory.flatMap { $0.contains("{") ? nil : $0 }
        let output: ItemsCommandOutput
        do { output = try runner.run(argv, workingDirectory: cwd) } catch {
            return finding("the items command '\(shown)' could not start: \(error)")
        }
        guard output.status == 0 else {
            let tail = String(decoding: output.standardError.suffix(600), as: UTF8.self).trimmingSpaces
            return finding("the items command '\(shown)' exited with status \(output.status)" + (tail.isEmpty ? "" : ": \(tail)"))
        }
        var seen = Set<String>()
        let items = String(decoding: output.standardOutput, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { String($0).trimmingSpaces }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        guard !items.isEmpty else { return finding("the items command '\(shown)' printed no item (one a line)") }
        matrix.command?.items = items
        return nil
    }
}
