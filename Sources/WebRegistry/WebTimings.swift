import FlowVocabulary
import Foundation
import Synchronization

/// Where a web job's time goes, phase by phase (context, emulation, each verb, DOM snapshot, screenshot, teardown),
/// collected only when `FLOWMATRIX_WEB_TIMING=1` is set: `flowmatrix bench web` prints it, and a worker writes it when
/// it shuts its browser down — to stderr, or to `web-timings-<pid>.txt` in the folder `FLOWMATRIX_WEB_TIMING_DIR`
/// names (how the bench reads its workers' timings through `flowmatrix run --quiet`). Off, a measurement costs one
/// branch.
public enum WebTimings {
    /// Whether timings are collected (read once, from `FLOWMATRIX_WEB_TIMING`).
    public static let enabled = ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_TIMING"] == "1"

    private static let totals = Mutex<[String: (count: Int, total: Duration)]>([:])

    /// Runs `body`, adding its duration to `phase` when timings are collected.
    public static func measure<T: Sendable>(
        _ phase: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard enabled else { return try await body() }
        let start = ContinuousClock.now
        defer { record(phase, ContinuousClock.now - start) }
        return try await body()
    }

    /// Adds one measurement of `phase`.
    public static func record(_ phase: String, _ duration: Duration) {
        guard enabled else { return }
        totals.withLock { t in
            let old = t[phase] ?? (0, .zero)
            t[phase] = (old.count + 1, old.total + duration)
        }
    }

    /// One line per phase, slowest total first: `phase  count × mean = total`. Empty when nothing was measured.
    public static func report() -> String {
        let rows = totals.withLock { $0 }.sorted { $0.value.total > $1.value.total }
        return rows.map { phase, v in
            let total = v.total.milliseconds
            let padded = phase.padding(toLength: 28, withPad: " ", startingAt: 0)
            return padded + String(format: "%5d × %7.2f ms = %9.1f ms", v.count, total / Double(v.count), total)
        }.joined(separator: "\n")
    }

    /// The folder a worker writes its report to instead of stderr (`FLOWMATRIX_WEB_TIMING_DIR`), or nil.
    public static let folder = ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_TIMING_DIR"]
        .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

    /// Writes `report()` under `title` to `web-timings-<pid>.txt` in ``folder`` when one is set (falling back to
    /// stderr when it cannot be written), else to stderr; nothing when timings are off.
    public static func write(title: String) {
        guard enabled else { return }
        let text = Data("\(title)\n\(report())\n".utf8)
        if let folder {
            let file = folder.appendingPathComponent("web-timings-\(ProcessInfo.processInfo.processIdentifier).txt")
            if (try? text.write(to: file, options: .atomic)) != nil { return }
        }
        FileHandle.standardError.write(text)
    }

    /// Forgets every measurement.
    public static func reset() { totals.withLock { $0.removeAll() } }
}
