import Foundation

/// The workers' `web timings of this worker:` reports (`WebTimings.write`) of one `flowmatrix run`, summed over the
/// workers and divided per job: printed beside Playwright's per-job breakdown by `bench web`'s throughput section.
struct WorkerTimings {
    /// Phase → (measurements, total milliseconds), over every worker.
    private(set) var phases: [String: (count: Int, ms: Double)] = [:]
    let jobs: Int

    /// Reads the `phase  count × mean = total ms` lines of `text` (any other line is skipped).
    init(parsing text: String, jobs: Int) {
        self.jobs = max(1, jobs)
        for line in text.split(separator: "\n") {
            let parts = line.components(separatedBy: " × ")
            guard parts.count == 2, let equals = parts[1].range(of: " = ") else { continue }
            let head = parts[0].trimmingCharacters(in: .whitespaces)
            guard let space = head.lastIndex(of: " "), let count = Int(head[head.index(after: space)...]) else { continue }
            let phase = head[..<space].trimmingCharacters(in: .whitespaces)
            let total = parts[1][equals.upperBound...].replacingOccurrences(of: " ms", with: "")
                .trimmingCharacters(in: .whitespaces)
            guard let ms = Double(total) else { continue }
            let old = phases[phase] ?? (0, 0)
            phases[phase] = (old.count + count, old.ms + ms)
        }
    }

    var isEmpty: Bool { phases.isEmpty }

    /// Milliseconds per job spent in the phases `include` accepts.
    func perJob(_ include: (String) -> Bool) -> Double {
        phases.filter { include($0.key) }.values.reduce(0) { $0 + $1.ms } / Double(jobs)
    }

    /// Our job in Playwright's parts, largest first: context + page (a new one with the configuration's emulation, or
    /// the wait for a kept one's reset, started as the job before it ended: `PagePool`), goto (the
    /// `open` step), evidence (screenshot, DOM snapshot and settle together: the screenshot and the DOM are in flight
    /// at once), the other steps, and the rest of the job's time in the worker (its registry made → released:
    /// results, reports). The browser's launch is once per worker, not per job.
    var summary: String {
        let whole = perJob { $0 == "job: whole, in the worker" }
        var parts: [(String, Double)] = [
            ("context + page", perJob { ["job: new context + page", "job: emulation setup", "job: reset kept page"].contains($0) }),
            ("goto", perJob { $0 == "step: open" }),
            ("evidence (screenshot + DOM)", perJob { $0 == "evidence: whole" }),
            ("other steps", perJob { $0.hasPrefix("step: ") && $0 != "step: open" }),
        ]
        if whole > 0 { parts.append(("rest of the job", max(0, whole - parts.reduce(0) { $0 + $1.1 }))) }
        let shown = parts.sorted { $0.1 > $1.1 }.map { String(format: "%@ %.0f ms", $0.0, $0.1) }
        // A kept page's reset runs as its job ends (`PagePool`): context + page counts only the wait for it.
        let background = perJob { $0 == "pool: reset, as the job ends" }
        let reset = background > 0 ? String(format: " (kept pages' resets, run as each job ends: %.0f ms)", background) : ""
        return shown.joined(separator: ", ") + String(format: "; whole job %.0f ms", whole) + reset
    }

    /// One line per phase, most time per job first: `phase  count per job × mean = ms per job`. The emulation's
    /// commands (`setup: …`), in flight together, are left out: their sum is not time spent.
    var detail: String {
        phases.filter { !$0.key.hasPrefix("setup: ") }.sorted { $0.value.ms > $1.value.ms }.map { phase, v in
            "    " + phase.padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(
                    format: "%5.1f × %7.2f ms = %7.1f ms per job", Double(v.count) / Double(jobs),
                    v.ms / Double(max(1, v.count)), v.ms / Double(jobs))
        }.joined(separator: "\n")
    }
}
