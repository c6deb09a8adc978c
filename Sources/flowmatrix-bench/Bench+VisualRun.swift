import DevTools
import FlowMatrixCLI
import Foundation
import WebRegistry

/// `bench visual`'s second part: the cost of baselines on a whole web run (docs/VISUAL.md, "Speed"). The shipped
/// `Matrices/web-smoke.json` in real Chromium, three ways in one sitting and one store: as shipped (`keep: failures`,
/// no `policy.visual`), with `policy.visual` but no baselines (every step picture kept), and compared with baselines
/// accepted from an identical run. Rounds alternate the three; the with-baselines runs must find 0 visual changes.
enum VisualRunBench {
    /// One way of running the matrix.
    enum Way: String, CaseIterable {
        case shipped = "as shipped (keep: failures)"
        case noBaselines = "policy.visual, no baselines"
        case baselines = "policy.visual, with baselines"
    }

    static func run(quick: Bool) throws {
        guard BrowserSettings().resolvedExecutable() != nil else {
            print("full web run: skipped (no Chromium; install Debian's chromium or set FLOWMATRIX_CHROMIUM)")
            return
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("visual-run-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let matrices = try writeMatrices(into: root)
        var walls: [Way: [Double]] = [:]
        var changes: [Int] = []
        var compared = 0, jobs = 0
        for round in 0..<(quick ? 1 : 2) {
            for way in Way.allCases {
                let (seconds, output) = try flowmatrix(["run", matrices[way] ?? "", "--workers", "2"], in: root)
                walls[way, default: []].append(seconds)
                let summary = output.split(separator: "\n").first { $0.hasPrefix("run ") && $0.contains(" passed, ") }
                let visual = output.split(separator: "\n").first { $0.contains("visual: ") }
                print("  round \(round + 1), \(way.rawValue): " + (summary.map(String.init) ?? "?")
                    + (visual.map { "\n    " + $0.trimmingCharacters(in: .whitespaces) } ?? ""))
                jobs = jobCount(output) ?? jobs
                if way == .noBaselines && round == 0 {
                    // The pictures of this run become the baselines of every later with-baselines run.
                    _ = try flowmatrix(["baseline", "accept", "last"], in: root)
                }
                if way == .baselines, let visual = try visualResults(root, runID: runID(output)) {
                    changes.append(visual.changed)
                    compared = visual.compared
                }
            }
        }
        print("full web run: Matrices/web-smoke.json, \(jobs) jobs, 2 local workers, \(quick ? 1 : 2) round(s) of each way")
        for way in Way.allCases {
            let xs = walls[way] ?? []
            print(String(format: "  %-30@ %@ s (best %.2f s)", way.rawValue,
                         xs.map { String(format: "%.2f", $0) }.joined(separator: ", "), xs.min() ?? 0))
        }
        let with = walls[.baselines]?.min() ?? 0, without = walls[.noBaselines]?.min() ?? 0
        let shipped = walls[.shipped]?.min() ?? 0
        print(String(format: "  cost of baselines: %+.1f %% against the same run without baselines, %+.1f %% against the shipped matrix",
                     (with / max(without, 1e-9) - 1) * 100, (with / max(shipped, 1e-9) - 1) * 100))
        print("  visual changes between identical runs: \(changes.map(String.init).joined(separator: ", ")) "
            + "(\(compared) step pictures compared per run; expected 0 when the same jobs pass in both runs)")
    }

    /// The three matrices: web-smoke.json as shipped, and with its `policy.visual` under `onChange: fail` (`keep`
    /// left to its default, `all`). The corpus is the repository's.
    static func writeMatrices(into root: URL) throws -> [Way: String] {
        let repository = WebBench.siteFolder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = repository.appendingPathComponent("Matrices/web-smoke.json")
        guard var matrix = try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any],
              var policy = matrix["policy"] as? [String: Any] else {
            throw CommandFailure("cannot read \(source.path) as a matrix")
        }
        matrix["corpus"] = repository.appendingPathComponent("Workers/Web/Scenarios").path
        // The shipped matrix's `visual` (its masks: the shop's delivery line races a one-second timer) under `fail`.
        var visual = policy["visual"] as? [String: Any] ?? [:]
        visual["onChange"] = "fail"
        var out: [Way: String] = [:]
        for way in Way.allCases {
            if way != .shipped {
                policy["keep"] = nil
                policy["visual"] = visual
                matrix["policy"] = policy
            }
            let url = root.appendingPathComponent("web-smoke-\(way == .shipped ? "shipped" : "visual").json")
            try JSONSerialization.data(withJSONObject: matrix).write(to: url)
            out[way] = url.path
        }
        return out
    }

    /// Runs `flowmatrix` in `folder` (its store `.flowmatrix` there); the wall time and its output.
    /// - Throws: when it exits other than 0 or 1 (failed jobs are counted and printed: a loaded machine times some
    ///   web steps out, and a failed job's pictures are not the passing ones its baseline has).
    static func flowmatrix(_ arguments: [String], in folder: URL) throws -> (Double, String) {
        let process = Process()
        process.executableURL = ProcessFacts.flowmatrix
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWMATRIX_WEB_ROOT"] = WebBench.siteFolder.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let clock = ContinuousClock(), start = clock.now
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = VisualBench.seconds(clock.now - start)
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 || process.terminationStatus == 1 else {
            throw CommandFailure("flowmatrix \(arguments.joined(separator: " ")) exited \(process.terminationStatus):\n\(output)",
                                 exitCode: ExitCode.failures)
        }
        return (seconds, output)
    }

    /// The job count of `run`'s summary line (`… : 25 passed, 0 failed, …`).
    static func jobCount(_ output: String) -> Int? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("run ") && $0.contains(" passed, ") }),
              let counts = line.split(separator: ":").last else { return nil }
        return counts.split(separator: ",").prefix(6).compactMap { Int($0.split(separator: " ").first ?? "") }.reduce(0, +)
    }

    /// The run id of `run`'s summary line (`run <id> completed in …`).
    static func runID(_ output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("run ") && $0.contains(" passed, ") }
            .flatMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
    }

    /// A run's `visual.json`: changed and compared steps; nil when it has none.
    static func visualResults(_ root: URL, runID: String?) throws -> (changed: Int, compared: Int)? {
        guard let runID else { return nil }
        let url = root.appendingPathComponent(".flowmatrix/runs/\(runID)/visual.json")
        guard let object = try? JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            return nil
        }
        let jobs = object["jobs"] as? [[String: Any]] ?? []
        let changed = jobs.reduce(0) { $0 + (($1["changes"] as? [Any])?.count ?? 0) }
        return (changed, object["comparedSteps"] as? Int ?? 0)
    }
}
