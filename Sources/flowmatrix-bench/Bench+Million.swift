import FlowMatrixCLI
import Foundation

/// `flowmatrix bench million`: a whole million-job `flowmatrix run` (a 100 × 100 × 100 matrix of one no-op scenario,
/// local workers) as a child process under GNU `/usr/bin/time -v`, printing its peak RSS and wall time. With
/// `--baseline <flowmatrix>` the same run of that binary too, alternated A B B A, and the medians and ratios.
enum MillionBench {
    /// The other `flowmatrix` to measure (`bench --baseline <path>`), or nil.
    @TaskLocal static var baseline: String?

    static let time = "/usr/bin/time"

    static let suite = BenchSuite(
        name: "million",
        overview: "a 1,000,000-job 'flowmatrix run' under /usr/bin/time -v: peak RSS, wall time (--baseline: A B B A)",
        missing: {
            FileManager.default.isExecutableFile(atPath: time) ? nil : "GNU time is not installed (apt package 'time')"
        }
    ) { quick in
        let current = ProcessFacts.executable.deletingLastPathComponent().appendingPathComponent("flowmatrix").path
        guard FileManager.default.isExecutableFile(atPath: current) else {
            throw CommandFailure("bench million runs flowmatrix, which is not built beside \(ProcessFacts.executable.path)")
        }
        let values = quick ? 20 : 100
        print("  \(values * values * values) jobs (\(values) × \(values) × \(values) configurations of one no-op scenario)")
        guard let baseline else {
            let m = try measure(binary: current, values: values)
            print(String(format: "  %@: peak RSS %.0f MB, wall %.1f s", current, m.peakMB, m.seconds))
            return
        }
        // A B B A: both binaries see the machine's drift alike; the medians of two rounds each are the means.
        var figures: [String: [Measurement]] = [:]
        for (round, binary) in [baseline, current, current, baseline].enumerated() {
            let m = try measure(binary: binary, values: values)
            print(String(format: "  round %d %@ (%@): peak RSS %.0f MB, wall %.1f s", round + 1,
                         binary == baseline ? "A" : "B", binary, m.peakMB, m.seconds))
            figures[binary, default: []].append(m)
        }
        func median(_ xs: [Double]) -> Double {
            let s = xs.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        let a = figures[baseline] ?? [], b = figures[current] ?? []
        let (aRSS, bRSS) = (median(a.map(\.peakMB)), median(b.map(\.peakMB)))
        let (aTime, bTime) = (median(a.map(\.seconds)), median(b.map(\.seconds)))
        print(String(format: "  median A (baseline): peak RSS %.0f MB, wall %.1f s", aRSS, aTime))
        print(String(format: "  median B (this build): peak RSS %.0f MB, wall %.1f s", bRSS, bTime))
        print(String(format: "  B/A: peak RSS %.2f×, wall %.2f× (targets: B peak <= 700 MB, wall <= 1.10× A)",
                     bRSS / aRSS, bTime / aTime))
    }

    struct Measurement {
        var peakMB: Double
        var seconds: Double
    }

    /// One run of `binary` over a fresh store; GNU time's "Maximum resident set size" is the largest of the run's
    /// processes (the coordinator; the workers are small).
    static func measure(binary: String, values: Int) throws -> Measurement {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-million-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"""
            {"id": "noop", "title": "three no-op steps", "tags": ["bench"], "steps": [
              {"verb": "open", "target": "home"}, {"verb": "tap", "target": "button"}, {"verb": "assert", "target": "label"}]}
            """#.utf8).write(to: dir.appendingPathComponent("scenarios/noop.json"))
        let axis = (0..<values).map { String(format: "\"v%03d\"", $0) }.joined(separator: ", ")
        try Data("""
            {"name": "million", "corpus": "scenarios", "registry": "noop",
             "policy": {"retries": 0, "timeout": 60, "failFast": false, "keep": "failures", "seed": 1},
             "axes": {"alpha": [\(axis)], "beta": [\(axis)], "gamma": [\(axis)]}, "reduction": "full"}
            """.utf8).write(to: dir.appendingPathComponent("million.json"))
        let report = dir.appendingPathComponent("time.txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: time)
        process.arguments = ["-v", "-o", report.path, binary, "run", dir.appendingPathComponent("million.json").path,
                             "--store", dir.appendingPathComponent("store").path, "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw CommandFailure("\(binary) run exited with status \(process.terminationStatus)\n\(text)")
        }
        return try parse(text)
    }

    /// Peak RSS and wall time from GNU `time -v`'s report.
    static func parse(_ text: String) throws -> Measurement {
        var kilobytes: Double?, seconds: Double?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if line.contains("Maximum resident set size") { kilobytes = Double(value) }
            if line.contains("Elapsed (wall clock) time") {
                // h:mm:ss or m:ss.ss after the label's own colons.
                let clock = line.components(separatedBy: "): ").last ?? ""
                seconds = clock.split(separator: ":").reduce(0.0) { $0 * 60 + (Double($1) ?? 0) }
            }
        }
        guard let kilobytes, let seconds else { throw CommandFailure("no peak RSS or wall time in /usr/bin/time's report:\n\(text)") }
        return Measurement(peakMB: kilobytes * 1024 / 1e6, seconds: seconds)
    }
}
