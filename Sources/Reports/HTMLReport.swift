import Foundation
import Journal

/// The self-contained `report.html`: run metadata, the heat map, the pivot by axis, the failing jobs, a panel per
/// job (attempts, step timeline, artifacts), and the changes since a baseline run. Inline CSS and JS, no network.
struct HTMLReport {
    var report: RunReport
    var pivot: AxisPivot
    var artifacts: [ArtifactExport.Key: ExportedArtifact]
    var diff: RunDiff?
    var warnings: [String]
    /// The most panels of jobs that did not pass written into the page; the rest go to the data island.
    var pagePanels: Int = 2_000

    private func h(_ s: String) -> String { Escape.html(s) }

    private static let symbols: [CellStatus: String] = [
        .passed: "✓", .failed: "✗", .flaky: "≈", .timedOut: "T", .quarantined: "⊘", .notRun: "·",
    ]

    /// Writes the page into `out`, section by section and cell by cell.
    func write(to out: ReportOutput) {
        let info = report.run.info
        out += """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(h(HTMLAssets.contentSecurityPolicy))">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="flowmatrix">
            <title>\(h("FlowMatrix · \(info.matrixName) · \(info.runID)"))</title>
            <style>
            \(HTMLAssets.style)
            </style>
            </head>
            <body data-run="\(h(info.runID))">
            <header><h1>\(h("FlowMatrix report · \(info.matrixName)"))</h1>
            <p>\(h("run \(info.runID) · \(report.run.status.rawValue) · started \(Format.timestamp(info.startedAt))"))</p></header>
            <main>

            """
        out += metadata()
        heatMap(out)
        out += pivotSection()
        if let diff { out += baselineSection(diff) }
        out += failingJobs()
        // Panels of jobs with something to look at are in the page; the others are built on demand from the island.
        out += "</main>\n<div id=\"panels\">\n"
        var inPage = Array(repeating: false, count: report.jobs.count)
        var budget = pagePanels
        for (i, job) in report.jobs.enumerated() where !JobDataIsland.carries(job) && budget > 0 {
            inPage[i] = true
            budget -= 1
            out += panel(job)
        }
        out += "</div>\n"
        var island = JobDataIsland(report: report, artifacts: artifacts)
        island.begin(out)
        for (i, job) in report.jobs.enumerated() where !inPage[i] { island.add(job, to: out) }
        island.end(out)
        out += "<script>\(HTMLAssets.script)</script>\n</body>\n</html>\n"
    }

    // MARK: - Run metadata

    private func metadata() -> String {
        let info = report.run.info
        let counts = report.counts
        let retries = report.attemptCount - report.jobs.filter { !$0.attempts.isEmpty }.count
        var rows: [(String, String)] = [
            ("Matrix", h(info.matrixName) + (info.matrixPath.isEmpty ? "" : " <span class=\"muted mono\">\(h(info.matrixPath))</span>")),
            ("Run", "<span class=\"mono\">\(h(info.runID))</span> (\(h(report.run.status.rawValue)))"),
            ("Seed", "<span class=\"mono\">\(info.seed)</span>"),
            ("Jobs", "\(report.jobs.count)"),
            ("Started", h(Format.timestamp(info.startedAt))),
            ("Finished", report.run.finishedAt.map { h(Format.timestamp($0)) } ?? "<span class=\"muted\">not finished</span>"),
            ("Duration", h(Format.seconds(report.duration))),
            ("Jobs/s", report.jobsPerSecond.map { Format.rate($0) } ?? "-"),
            ("Attempts", "\(report.attemptCount) (\(max(0, retries)) retries)"),
            ("Workers", "\(report.workers.count)" + (report.workers.isEmpty ? "" : ": " + report.workers.map(h).joined(separator: ", "))),
            ("Registries", report.registries.map(h).joined(separator: ", ")),
            ("Axes", report.axisNames.isEmpty ? "-" : report.axisNames.map(h).joined(separator: ", ")),
        ]
        if rows.count % 2 == 1 { rows.append(("", "")) }
        var out = "<section class=\"block\" id=\"run\">\n<h2>Run</h2>\n<dl class=\"meta\">\n"
        for (k, v) in rows { out += "<dt>\(h(k))</dt><dd>\(v)</dd>\n" }
        out += "</dl>\n<div class=\"chips\" id=\"counts\">\n"
        for status in CellStatus.allCases {
            out += "<span class=\"chip s-\(status.rawValue)\" data-count=\"\(status.rawValue)\">\(h(status.label)): \(counts[status] ?? 0)</span>\n"
        }
        out += "</div>\n"
        out += "<p class=\"headline\(pivot.totalFailures == 0 ? " ok" : "")\" id=\"headline\">\(h(pivot.headline))</p>\n"
        if let diff {
            out += "<p class=\"headline\(diff.hasRegressions ? "" : " ok")\">Since <a href=\"#baseline\">run \(h(diff.base))</a>: "
                + "\(h(diff.summaryLine))</p>\n"
        }
        if !info.settingsJSON.isEmpty && info.settingsJSON != "{}" {
            out += "<details><summary>Settings</summary><pre>\(h(Self.pretty(info.settingsJSON)))</pre></details>\n"
        }
        if !warnings.isEmpty {
            out += "<details><summary>\(warnings.count) warning(s) while writing this report</summary><ul>\n"
            for w in warnings { out += "<li>\(h(w))</li>\n" }
            out += "</ul></details>\n"
        }
        return out + "</section>\n"
    }

    static func pretty(_ json: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: - Heat map

    private func heatMap(_ output: ReportOutput) {
        let layout = HeatMapLayout(report)
        let newIDs = Set((diff?.newFailures ?? []).map(\.jobID) + (diff?.newlyFlaky ?? []).map(\.jobID))
        var out = "<section class=\"block\" id=\"heatmap\">\n<h2>Matrix</h2>\n"
        out += "<p class=\"muted\">Scenarios × configurations; one cell per job. Click a cell for its attempts, steps and artifacts.</p>\n"
        out += "<div class=\"legend\">"
        for status in CellStatus.allCases {
            out += "<span><span class=\"cell s-\(status.rawValue)\">\(Self.symbols[status] ?? "")</span> \(h(status.label))</span>"
        }
        if diff != nil { out += "<span><span class=\"cell s-failed new\"></span> new since the baseline</span>" }
        out += "<label class=\"toggle\"><input type=\"checkbox\" id=\"only-failing\"> only scenarios with problems</label></div>\n"
        out += "<div class=\"scroll\"><table class=\"heatmap\" id=\"heatmap-table\">\n<thead>\n"
        for (level, cells) in layout.header.enumerated() {
            out += "<tr><th class=\"axis\">\(h(layout.headerAxes[level]))</th>"
            for cell in cells {
                out += "<th\(cell.span > 1 ? " colspan=\"\(cell.span)\"" : "")>\(h(cell.label))</th>"
            }
            out += "</tr>\n"
        }
        out += "</thead>\n<tbody>\n"
        output += out
        for row in layout.rows {
            var out = "<tr data-failing=\"\(row.failing ? 1 : 0)\" data-scenario=\"\(h(row.scenarioID))\">"
                + "<th title=\"\(h(row.scenarioID))\">\(h(row.title))"
                + " <span class=\"muted mono\">\(h(row.scenarioID))</span></th>"
            for jobs in row.cells {
                guard !jobs.isEmpty else {
                    out += "<td class=\"none\"></td>"
                    continue
                }
                out += "<td>"
                for index in jobs {
                    let job = report.jobs[index]
                    // A passed cell is bare (symbol from CSS, tooltip and config from the script): 100,000 of them.
                    if job.status == .passed {
                        out += "<a class=\"cell s-passed\" data-job=\"\(h(job.id))\"></a>"
                        continue
                    }
                    let tip = "\(job.job.scenarioTitle) · \(job.job.configuration.isEmpty ? "default" : job.job.configuration) · \(job.status.label)"
                    out += "<a class=\"cell s-\(job.status.rawValue)\(newIDs.contains(job.id) ? " new" : "")\""
                        + " data-job=\"\(h(job.id))\" data-status=\"\(job.status.rawValue)\" href=\"#job=\(h(job.id))\""
                        + " data-config=\"\(h(job.job.configuration))\""
                        + " title=\"\(h(tip))\">\(Self.symbols[job.status] ?? "")</a>"
                }
                out += "</td>"
                if out.utf8.count > 1 << 16 {
                    output += out
                    out = ""
                }
            }
            output += out + "</tr>\n"
        }
        output += "</tbody>\n</table></div>\n</section>\n"
    }

    // MARK: - Pivot

    private func rateCell(_ g: AxisPivot.Group) -> String {
        "<td>\(g.failures)/\(g.jobs)</td><td><div class=\"bar\" title=\"\(AxisPivot.percent(g.rate))\">"
            + "<span style=\"width:\(Int((g.rate * 100).rounded()))%\"></span></div></td><td>\(AxisPivot.percent(g.rate))</td>"
    }

    /// A group's values as an escaped JSON array of `[axis, value]` pairs, for the script that highlights the
    /// group's cells on the heat map.
    static func values(_ group: AxisPivot.Group) -> String {
        let pairs = group.values.map { [$0.axis, $0.value] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // An array of string pairs always encodes.
        let data = (try? encoder.encode(pairs)) ?? Data("[]".utf8)
        return Escape.html(String(decoding: data, as: UTF8.self))
    }

    private func pivotSection() -> String {
        var out = "<section class=\"block\" id=\"pivot\">\n<h2>Failures by axis</h2>\n"
        out += "<p class=\"headline\(pivot.totalFailures == 0 ? " ok" : "")\">\(h(pivot.headline))</p>\n"
        if !pivot.explanations.isEmpty {
            out += "<h3>Patterns</h3>\n<p class=\"muted\">Each pattern is the group that best matches the failures not"
                + " explained by the patterns before it. Click any row below to light up its jobs on the matrix.</p>\n<table class=\"grid\" id=\"patterns\"><tr><th>#</th><th>pattern</th>"
                + "<th>failing/jobs</th><th>failure rate</th><th></th><th>explains</th></tr>\n"
            for (i, e) in pivot.explanations.enumerated() {
                out += "<tr data-pattern=\"\(h(e.group.label))\" data-values=\"\(Self.values(e.group))\"><td>\(i + 1)</td><td class=\"mono\">\(h(e.group.label))</td>"
                    + rateCell(e.group) + "<td>\(e.explains) failure\(e.explains == 1 ? "" : "s")</td></tr>\n"
            }
            if pivot.unexplained > 0 {
                out += "<tr><td></td><td class=\"muted\" colspan=\"4\">elsewhere</td><td>\(pivot.unexplained) failure"
                    + "\(pivot.unexplained == 1 ? "" : "s")</td></tr>\n"
            }
            out += "</table>\n"
        }
        if pivot.totalFailures > 0 {
            out += "<h3>What explains the failures</h3>\n<p class=\"muted\">Axis values and pairs of values, ranked by how"
                + " closely the failing jobs match them (1 = the failures are exactly these jobs). Failures are failed or"
                + " timed-out jobs; \(pivot.totalFailures) of \(pivot.totalJobs) jobs with a verdict.</p>\n"
            out += "<table class=\"grid\" id=\"pivot-ranked\"><tr><th>group</th><th>failing/jobs</th><th>failure rate</th><th></th>"
                + "<th>share of failures</th><th>score</th></tr>\n"
            for g in pivot.ranked.prefix(25) {
                out += "<tr data-group=\"\(h(g.label))\" data-values=\"\(Self.values(g))\"><td class=\"mono\">\(h(g.label))</td>" + rateCell(g)
                    + "<td>\(AxisPivot.percent(g.coverage))</td><td>\(Format.rate(g.score))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<h3>Failure rate per axis value</h3>\n"
        for table in pivot.axes.sorted(by: { $0.bestScore != $1.bestScore ? $0.bestScore > $1.bestScore : $0.axis < $1.axis }) {
            out += "<table class=\"grid axis-table\" data-axis=\"\(h(table.axis))\"><tr><th>\(h(table.axis))</th><th>failing/jobs</th>"
                + "<th>failure rate</th><th></th><th>flaky</th></tr>\n"
            for g in table.values {
                out += "<tr data-values=\"\(Self.values(g))\"><td class=\"mono\">\(h(g.values.first?.value ?? ""))</td>" + rateCell(g) + "<td>\(g.flaky)</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</section>\n"
    }

    // MARK: - Failing jobs

    private func failingJobs() -> String {
        let problems = report.jobs.filter { $0.status != .passed && $0.status != .notRun }
        var out = "<section class=\"block\" id=\"failures\">\n<h2>Jobs that did not pass (\(problems.count))</h2>\n"
        guard !problems.isEmpty else { return out + "<p class=\"muted\">None.</p>\n</section>\n" }
        out += "<table class=\"grid\"><tr><th>status</th><th>scenario</th><th>configuration</th><th>attempts</th><th>failing step</th></tr>\n"
        for job in problems {
            let result = job.row.result
            let failure = JUnitReport.failureText(step: result?.failureStep, steps: job.decidingAttempt?.steps ?? [],
                                                  message: result?.failureMessage)
            out += "<tr><td><span class=\"chip s-\(job.status.rawValue)\">\(h(job.status.label))</span></td>"
                + "<td><a href=\"#job=\(h(job.id))\">\(h(job.job.scenarioTitle))</a></td>"
                + "<td class=\"mono\">\(h(job.job.configuration))</td><td>\(job.attempts.count)</td>"
                + "<td>\(job.status == .flaky ? "<span class=\"muted\">passed on retry</span>" : h(failure))</td></tr>\n"
        }
        return out + "</table>\n</section>\n"
    }

    // MARK: - Baseline

    private func baselineSection(_ diff: RunDiff) -> String {
        let headIDs = Set(report.jobs.map(\.id))
        var out = "<section class=\"block\" id=\"baseline\" data-base=\"\(h(diff.base))\">\n"
        out += "<h2>Changes since run <span class=\"mono\">\(h(diff.base))</span></h2>\n"
        out += "<p class=\"headline\(diff.hasRegressions ? "" : " ok")\">\(h(diff.summaryLine))</p>\n"
        for section in diff.sections where !section.entries.isEmpty {
            // Regressions are open; the other categories fold away (a changed scenario adds and removes many jobs).
            let open = ["newFailures", "newlyFlaky", "durationRegressions"].contains(section.key) ? " open" : ""
            out += "<details class=\"category\"\(open)><summary><strong>\(h(section.title)) (\(section.entries.count))</strong></summary>\n"
                + "<table class=\"grid\" data-category=\"\(section.key)\">\n"
            for e in section.entries {
                let name = headIDs.contains(e.jobID)
                    ? "<a href=\"#job=\(h(e.jobID))\">\(h(e.scenarioTitle))</a>" : h(e.scenarioTitle)
                out += "<tr data-job-ref=\"\(h(e.jobID))\"><td>\(name)</td><td class=\"mono\">\(h(e.configuration))</td>"
                    + "<td>\(h(RunDiff.detail(e, section: section.key)))</td></tr>\n"
            }
            out += "</table>\n</details>\n"
        }
        return out + "</section>\n"
    }

    // MARK: - Job panel

    private func panel(_ job: JobReport) -> String {
        let result = job.row.result
        var out = "<section class=\"job-panel\" id=\"job-\(h(job.id))\" data-job-panel=\"\(h(job.id))\">\n"
        out += "<a class=\"close\" href=\"#\">close ✕</a>\n"
        out += "<h2>\(h(job.job.scenarioTitle)) <span class=\"chip s-\(job.status.rawValue)\">\(h(job.status.label))</span></h2>\n"
        out += "<p class=\"muted\">scenario <span class=\"mono\">\(h(job.job.scenarioID))</span> · registry"
            + " <span class=\"mono\">\(h(job.job.registry))</span> · job <span class=\"mono\">\(h(job.id))</span>"
            + " · \(job.attempts.count) attempt(s) · \(h(Format.seconds(result?.duration)))</p>\n"
        out += "<table class=\"grid\"><tr>" + job.axes.map { "<th>\(h($0.axis))</th>" }.joined() + "</tr><tr>"
            + job.axes.map { "<td class=\"mono\">\(h($0.value))</td>" }.joined() + "</tr></table>\n"
        if job.status != .passed && job.status != .flaky, let result, result.failureStep != nil || result.failureMessage != nil {
            out += "<p class=\"failure\" data-failure-step=\"\(result.failureStep.map(String.init) ?? "")\"><strong>"
                + h(JUnitReport.failureText(step: result.failureStep, steps: job.decidingAttempt?.steps ?? [],
                                            message: result.failureMessage)) + "</strong></p>\n"
        }
        out += failingStepImages(job)
        if job.attempts.isEmpty { out += "<p class=\"note\">No attempt was started.</p>\n" }
        for attempt in job.attempts { out += attemptBlock(job, attempt) }
        return out + "</section>\n"
    }

    /// The wireframes of the deciding attempt's failing step, first thing under the failure message.
    private func failingStepImages(_ job: JobReport) -> String {
        guard job.status != .passed, job.status != .flaky, let attempt = job.decidingAttempt,
              let step = attempt.row.result?.failureStep ?? job.row.result?.failureStep else { return "" }
        var out = ""
        for ref in attempt.artifacts where ref.stepIndex == step {
            let key = ArtifactExport.Key(job: job.id, attempt: attempt.attempt, step: ref.stepIndex, name: ref.name)
            guard let exported = artifacts[key], exported.kind == .image, let path = exported.relativePath else { continue }
            out += "<figure class=\"artifact failing-step\"><a href=\"\(h(path))\"><img data-artifact=\"\(h(ref.name))\""
                + " data-failing-step=\"\(step)\" src=\"\(h(path))\" alt=\"\(h(ref.name))\"></a><figcaption>"
                + h("\(ref.name) at the failing step \(step), attempt \(attempt.attempt)") + "</figcaption></figure>"
        }
        return out.isEmpty ? "" : "<div class=\"failing-step-artifacts\">\(out)</div>\n"
    }

    private func attemptBlock(_ job: JobReport, _ attempt: AttemptReport) -> String {
        let result = attempt.row.result
        let interrupted = attempt.steps.filter { !($0.interruptions ?? "").isEmpty }
        var out = "<div class=\"attempt\(attempt.superseded ? " superseded" : "")\" data-attempt=\"\(attempt.attempt)\">\n"
        out += "<h3>Attempt \(attempt.attempt): \(h(result?.outcome.rawValue ?? "unfinished"))"
            + " on worker <span class=\"mono\">\(h(attempt.row.worker.isEmpty ? "?" : attempt.row.worker))</span>"
            + " · \(h(Format.seconds(result?.duration)))"
            + (attempt.superseded ? " · superseded" : "") + "</h3>\n"
        var facts: [String] = []
        if let started = attempt.row.startedAt { facts.append("started \(Format.timestamp(started))") }
        facts.append("\(attempt.steps.count) step(s)")
        facts.append("\(interrupted.count) with interruptions handled")
        out += "<p class=\"muted\">\(h(facts.joined(separator: " · ")))</p>\n"
        if let message = result?.message, !message.isEmpty, result?.outcome != .passed {
            out += "<p class=\"failure\">" + h(JUnitReport.failureText(step: result?.failureStep, steps: attempt.steps, message: message))
                + "</p>\n"
        }
        let failingStep = result?.failureStep
        let total = attempt.steps.reduce(0.0) { $0 + max(0, $1.duration) }
        var offset = 0.0
        let byStep = Dictionary(grouping: attempt.artifacts, by: \.stepIndex)
        out += "<table class=\"grid steps\"><tr><th>#</th><th>step</th><th>outcome</th><th>duration</th><th>timeline</th>"
            + "<th>message</th></tr>\n"
        var shownSteps = Set<Int>()
        for step in attempt.steps {
            shownSteps.insert(step.index)
            let failing = step.index == failingStep || step.outcome == .failed || step.outcome == .timedOut
            let left = total > 0 ? offset / total * 100 : 0
            let width = total > 0 ? max(0.5, step.duration / total * 100) : 0
            offset += max(0, step.duration)
            out += "<tr class=\"step\(failing ? " failing" : "")\" data-step=\"\(step.index)\"><td>\(step.index)</td>"
                + "<td class=\"mono\">\(h(step.key))</td><td>\(h(step.outcome.rawValue))\(failing ? " ◀" : "")</td>"
                + "<td>\(h(Format.seconds(step.duration)))</td>"
                + "<td><div class=\"bar time\"><span class=\"\(failing ? "failing" : "")\" style=\"left:\(Format.fixed(left, 2))%;"
                + "width:\(Format.fixed(width, 2))%\"></span></div></td><td>"
            if let message = step.message, !message.isEmpty { out += h(message) }
            if let i = step.interruptions, !i.isEmpty {
                out += "<div class=\"interruptions\">interruptions handled: \(h(i))</div>"
            }
            out += "</td></tr>\n"
            if let refs = byStep[step.index] { out += artifactRow(job, attempt, refs, open: failing) }
        }
        for (index, refs) in byStep.sorted(by: { $0.key < $1.key }) where !shownSteps.contains(index) {
            out += "<tr class=\"step\" data-step=\"\(index)\"><td>\(index)</td><td colspan=\"5\" class=\"muted\">(no step record)</td></tr>\n"
            out += artifactRow(job, attempt, refs, open: index == failingStep)
        }
        return out + "</table>\n</div>\n"
    }

    /// Wireframes first: they are what a person looks at; then snapshots, logs, the rest (by name within a kind).
    static func ordered(_ refs: [ArtifactReference]) -> [ArtifactReference] {
        let order: [ArtifactKind: Int] = [.image: 0, .json: 1, .text: 2, .other: 3]
        return refs.sorted {
            (order[ArtifactKind(mediaType: $0.mediaType, name: $0.name)] ?? 3, $0.name)
                < (order[ArtifactKind(mediaType: $1.mediaType, name: $1.name)] ?? 3, $1.name)
        }
    }

    private func artifactRow(_ job: JobReport, _ attempt: AttemptReport, _ refs: [ArtifactReference], open: Bool) -> String {
        var out = "<tr class=\"artifacts\"><td></td><td colspan=\"5\">"
        for ref in Self.ordered(refs) {
            let key = ArtifactExport.Key(job: job.id, attempt: attempt.attempt, step: ref.stepIndex, name: ref.name)
            let exported = artifacts[key]
            let kind = exported?.kind ?? ArtifactKind(mediaType: ref.mediaType, name: ref.name)
            let caption = "\(ref.name) · \(ref.mediaType) · \(ref.rawSize) bytes"
            guard let path = exported?.relativePath else {
                out += "<div class=\"note artifact\" data-sha256=\"\(h(ref.sha256))\">\(h(caption)) — "
                    + "\(h(exported?.note ?? "not extracted")) · blob \(h(String(ref.sha256.prefix(12))))…</div>"
                continue
            }
            let link = h(path)
            switch kind {
            case .image:
                out += "<figure class=\"artifact\"><a href=\"\(link)\"><img data-artifact=\"\(h(ref.name))\" src=\"\(link)\""
                    + " alt=\"\(h(ref.name))\"></a><figcaption>\(h(caption))</figcaption></figure>"
            case .json, .text:
                out += "<details class=\"artifact\" data-kind=\"\(kind.rawValue)\"\(open ? " open" : "")><summary>\(h(caption))"
                    + " · <a href=\"\(link)\">open</a></summary><pre>\(h(exported?.preview ?? ""))"
                    + ((exported?.previewTruncated ?? false) ? "\n…" : "") + "</pre></details>"
            case .other:
                out += "<div class=\"artifact\"><a href=\"\(link)\">\(h(caption))</a></div>"
            }
        }
        return out + "</td></tr>\n"
    }
}
