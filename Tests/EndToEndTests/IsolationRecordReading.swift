import Foundation
import Testing

/// The confirmations of an `isolation.json` record, one per combination, written `axis=value + …` (axes in name
/// order): a confirmation with a set of values on an axis (`window ∈ {narrow-landscape, narrow-portrait}`) is each of
/// the combinations it merges.
func confirmations(_ record: [String: Any]) -> [(scenario: String, combination: String, intermittent: Bool)] {
    (record["confirmed"] as? [[String: Any]] ?? []).flatMap { c in
        let combination = c["combination"] as? [String: [String]] ?? [:]
        let cells = combination.keys.sorted().reduce([[String]]()) { cells, axis in
            (combination[axis] ?? []).flatMap { v in (cells.isEmpty ? [[]] : cells).map { $0 + ["\(axis)=\(v)"] } }
        }
        return cells.map { (c["scenario"] as? String ?? "?", $0.joined(separator: " + "), c["intermittent"] as? Bool == true) }
    }
}

/// A shipped matrix of the repository run with local `flowmatrix` workers, then `flowmatrix isolate` on that run (the
/// store's first) with the default budget: both exit codes and outputs, and the `isolation.json` it wrote.
struct ShippedIsolation {
    var runCode: Int32
    var runOutput: String
    var isolateCode: Int32
    var isolateOutput: String
    var source: String
    var record: [String: Any]

    static func run(_ matrix: String, in ws: E2EWorkspace, timeout: Duration) async throws -> ShippedIsolation {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let store = ws.root.appendingPathComponent("store").path
        let (runCode, runOutput) = try await ws.run(
            ["run", repository.appendingPathComponent(matrix).path, "--store", store, "--quiet"],
            label: URL(fileURLWithPath: matrix).deletingPathExtension().lastPathComponent, workingDirectory: repository,
            timeout: timeout, localWorkers: .flowmatrix)
        let runs = URL(fileURLWithPath: store).appendingPathComponent("runs")
        let source = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path).sorted().first)
        let (code, output) = try await ws.run(
            ["isolate", source, "--store", store], label: "isolate", workingDirectory: repository,
            timeout: timeout, localWorkers: .flowmatrix)
        let isolation = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path)
            .first { FileManager.default.fileExists(atPath: runs.appendingPathComponent("\($0)/isolation.json").path) })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf:
            runs.appendingPathComponent("\(isolation)/isolation.json"))) as? [String: Any])
        return ShippedIsolation(runCode: runCode, runOutput: runOutput, isolateCode: code, isolateOutput: output,
                                source: source, record: record)
    }
}
