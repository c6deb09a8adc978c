import Foundation
import MatrixPlan

/// The CLI's `ItemsCommandRunner`: starts a matrix's `items.command` as a child process (through `/usr/bin/env`, so
/// its name is looked up on `PATH`) where `validate`, `plan` and `run` load the matrix.
public struct ProcessItemsRunner: ItemsCommandRunner {
    public init() {}

    public func run(_ argv: [String], workingDirectory: String?) throws -> ItemsCommandOutput {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained at once (a command filling its stderr pipe would otherwise block).
        // Written by the one reader block, read only after `group.wait()`: never accessed concurrently.
        nonisolated(unsafe) var stderrData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stderrData = errors.fileHandleForReading.readDataToEndOfFile() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ItemsCommandOutput(status: process.terminationStatus, standardOutput: Array(data),
                                  standardError: Array(stderrData))
    }
}
