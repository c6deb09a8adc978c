import Foundation
import Isolation
import Journal
import Visual

/// `report.html`: what a person reads first — run metadata, the heat map, the failures by axis, the jobs that did
/// not pass, the changes since a baseline run. A job's panel (attempts, step timeline, artifacts) is built by the
/// page's script when the job is opened, from its chunk file (``JobChunks``) and the blobs the folder carries
/// (``BlobCarrier``). Inline CSS and JS, no network.
struct HTMLReport {
    var index: RunIndex
    var pivot: AxisPivot
    var diff: RunDiff?
    /// Stability mode's figures; the pivot then counts repetitions, and its rates are flake rates.
    var stability: Stability?
    var warnings: [String]
    /// Failure text (`step 2 (key): message`) of each job that did not pass, by plan position.
    var failures: [Int: String]
    var chunkCount: Int
    /// The live view's page (``LivePage``): a connect-src for its event stream, the live section, and `live.js`.
    var live = false
    /// The heat map's layout (aggregated past the report settings' limits, its drill-down files written already);
    /// nil for a page part without the map (the live view's pivot section).
    var layout: HeatMapLayout?
    /// Ids of this run's jobs among the baseline comparison's entries (they link to the job's panel).
    var baselineJobIDs: Set<String> = []
    /// The accessibility findings by axis (`HTMLReport+Audit.swift`).
    var audit: AuditPivot?
    /// Command jobs' tests pivoted one by one (HTMLReport+Isolation.swift).
    var testPivots: [TestPivot] = []
    /// What `flowmatrix isolate` confirmed (`isolation.json` in the report folder).
    var isolation: IsolationRecord?
    /// Where the registries disagree (`HTMLReport+Parity.swift`); nil for a run on one registry.
    var parity: Parity?
    /// Where the time went per registry; nil for a run on one registry.
    var registryTimes: RegistryTimes?
    /// The step pictures compared with their visual baselines (`visual.json`; ``VisualSection``).
    var visual: VisualRunResults?

    func h(_ s: String) -> String { Escape.html(s) }

    static let symbols: [CellStatus: String] = [
        .passed: "✓", .failed: "✗", .flaky: "≈", .timedOut: "T", .quarantined: "⊘", .notRun: "·",
    ]

    /// Writes the page into `out`, section by section and cell by cell.
    func write(to out: ReportOutput) {
        let info = index.run.info
        out += """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(h(HTMLAssets.contentSecurityPolicy(live: live)))">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="flowmatrix">
            <title>\(h("FlowMatrix · \(info.matrixName) · \(info.runID)"))</title>
            <style>
            \(HTMLAssets.style)
            </style>
            </head>
            <body data-run="\(h(info.runID))">
            <header><h1>\(h("FlowMatrix report · \(info.matrixName)"))</h1>
            <p>\(h("run \(info.runID) · \(index.run.status.rawValue) · started \(Format.timestamp(info.startedAt))"))</p></header>
            <main>

            """
        out += metadata()
        if live { out += LiveAssets.section }
        heatMap(out)
        out += pivotSection()
        out += paritySection()
        out += auditSection()
        if let visual { out += VisualSection(results: visual).html() }
        if let stability { out += stabilitySection(stability) }
        if let diff { out += baselineSection(diff) }
        failingJobs(out)
        out += "</main>\n<div id=\"panels\"></div>\n"
        // What the script needs to find and draw a job's panel: the run's axes, its start, the chunk count.
        out += "<script type=\"application/json\" id=\"run-data\">{\"axes\":["
            + index.axisNames.map(JSONText.pageString).joined(separator: ",") + "],\"start\":"
            + String(Int64(info.startedAt.timeIntervalSince1970.rounded(.down))) + ",\"chunks\":\(chunkCount),\"v\":2}</script>\n"
        out += "<script>\(HTMLAssets.script)</script>\n"
        if visual != nil { out += "<script>\(VisualAssets.script)</script>\n" }
        if live { out += "<script src=\"live.js\"></script>\n" }
        out += "</body>\n</html>\n"
    }

    // MARK: - Run metadata

    private func metadata() -> String {
        let info = index.run.info
        let counts = index.counts
        let retries = index.attemptCount - index.startedJobs
        var rows: [(String, String)] = [
            ("Matrix", h(info.matrixName) + (info.matrixPath.isEmpty ? "" : " <span class=\"muted mono\">\(h(info.matrixPath))</span>")),
            ("Run", "<span class=\"mono\">\(h(info.runID))</span> (\(h(index.run.status.rawValue)))"),
            ("Seed", "<span class=\"mono\">\(info.seed)</span>"),
            ("Jobs", "\(index.jobCount)"),
            ("Started", h(Format.timestamp(info.startedAt))),
            ("Finished", index.run.finishedAt.map { h(Format.timestamp($0)) } ?? "<span class=\"muted\">not finished</span>"),
            ("Duration", h(Format.seconds(index.duration))),
            ("Jobs/s", index.jobsPerSecond.map { Format.rate($0) } ?? "-"),
            ("Attempts", "\(index.attemptCount) (\(max(0, retries)) retries)"),
            ("Workers", "\(index.workers.count)" + (index.workers.isEmpty ? "" : ": " + index.workers.map(h).joined(separator: ", "))),
            ("Registries", registryTimes.map { h($0.line) } ?? index.registries.map(h).joined(separator: ", ")),
            ("Axes", index.axisNames.isEmpty ? "-" : index.axisNames.map(h).joined(separator: ", ")),
        ]
        if rows.count % 2 == 1 { rows.append(("", "")) }
        var out = "<section class=\"block\" id=\"run\">\n<h2>Run</h2>\n<dl class=\"meta\">\n"
        // The figures the live view keeps up to date while the run goes (see LiveAssets).
        let live = ["Finished": "run-finished", "Duration": "run-duration", "Jobs/s": "run-rate", "Attempts": "run-attempts",
                    "Workers": "run-workers"]
        for (k, v) in rows { out += "<dt>\(h(k))</dt><dd\(live[k].map { " id=\"\($0)\"" } ?? "")>\(v)</dd>\n" }
        out += "</dl>\n<div class=\"chips\" id=\"counts\">\n"
        for status in CellStatus.allCases {
            out += "<span class=\"chip s-\(status.rawValue)\" data-count=\"\(status.rawValue)\">\(h(status.label)): \(counts[status] ?? 0)</span>\n"
        }
        out += "</div>\n"
        out += "<p class=\"headline\(pivot.totalFailures == 0 ? " ok" : "")\" id=\"headline\">\(h(pivot.headline))</p>\n"
        out += IsolationSections(testPivots: testPivots, isolation: isolation).extraHeadlines()
        out += parityHeadline(id: "parity-headline")
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

    func pivotSection() -> String {
        var out = "<section class=\"block\" id=\"pivot\">\n<h2>Failures by axis</h2>\n"
        out += "<p class=\"headline\(pivot.totalFailures == 0 ? " ok" : "")\">\(h(pivot.headline))</p>\n"
        out += parityHeadline(id: nil)
        out += IsolationSections(testPivots: testPivots, isolation: isolation).isolationAndTestTables()
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
        out += stability == nil ? "<h3>Failure rate per axis value</h3>\n"
            : "<h3>Flake rate per axis value</h3>\n<p class=\"muted\">Each job ran \(stability?.repetitions ?? 0) times with"
                + " its own seed: a value's flake rate is its failed repetitions over its repetitions.</p>\n"
        for table in pivot.axes.sorted(by: { $0.bestScore != $1.bestScore ? $0.bestScore > $1.bestScore : $0.axis < $1.axis }) {
            out += "<table class=\"grid axis-table\" data-axis=\"\(h(table.axis))\"><tr><th>\(h(table.axis))</th><th>failing/jobs</th>"
                + "<th>\(stability == nil ? "failure rate" : "flake rate")</th><th></th><th>flaky</th></tr>\n"
            for g in table.values {
                out += "<tr data-values=\"\(Self.values(g))\"><td class=\"mono\">\(h(g.values.first?.value ?? ""))</td>" + rateCell(g) + "<td>\(g.flaky)</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</section>\n"
    }

    // MARK: - Stability

    /// Stability mode: the sentence naming where flaky repetitions concentrate, the flaky jobs, then the jobs that
    /// failed every repetition.
    private func stabilitySection(_ stability: Stability) -> String {
        var out = "<section class=\"block\" id=\"stability\">\n<h2>Stability over \(stability.repetitions) repetitions</h2>\n"
        out += "<p class=\"headline\(stability.flakyJobs == 0 ? " ok" : "")\" id=\"stability-headline\">"
            + h(stability.headline) + "</p>\n"
        out += "<p class=\"muted\">Flake rate = failed repetitions / repetitions. A job is flaky when it failed some"
            + " repetitions but not all, or passed only on a retry; one that failed every repetition fails on every seed."
            + " All of them are in stability.json.</p>\n"
        let flaky = stability.jobs.filter(\.isFlaky)
        if !flaky.isEmpty { out += table("stability-flaky", "Flaky jobs (\(flaky.count))", flaky) }
        let broken = stability.jobs.filter(\.failedEvery)
        if !broken.isEmpty { out += table("stability-failed-every", "Failed every repetition (\(broken.count))", broken) }
        return out + "</section>\n"
    }

    private func table(_ id: String, _ title: String, _ entries: [Stability.Entry]) -> String {
        var out = "<h3>\(h(title))</h3>\n<table class=\"grid\" id=\"\(id)\"><tr><th>job</th><th>failed/repetitions</th>"
            + "<th>flake rate</th><th></th><th>passed on a retry</th></tr>\n"
        for e in entries.prefix(Self.failingRows) {
            out += "<tr><td class=\"mono\">\(h(e.key))</td><td>\(e.failed)/\(e.repetitions)</td><td><div class=\"bar\" title=\""
                + AxisPivot.percent(e.flakeRate) + "\"><span style=\"width:\(Int((e.flakeRate * 100).rounded()))%\"></span></div></td>"
                + "<td>\(AxisPivot.percent(e.flakeRate))</td><td>\(e.flaky)</td></tr>\n"
        }
        return out + "</table>\n"
    }

    // MARK: - Failing jobs

    private func failingJobs(_ output: ReportOutput) {
        // The count, and the first rows only (a run may have a million jobs that did not pass).
        let count = index.failingCount
        output += "<section class=\"block\" id=\"failures\">\n<h2>Jobs that did not pass (\(count))</h2>\n"
        guard !index.failing.isEmpty else {
            output += "<p class=\"muted\">None.</p>\n</section>\n"
            return
        }
        output += "<table class=\"grid\"><tr><th>status</th><th>scenario</th><th>configuration</th><th>attempts</th><th>failing step</th></tr>\n"
        // The first rows only: the rest are a click away on the heat map, and all of them are in summary.json.
        for failure in index.failing {
            let job = failure.job
            output += "<tr><td><span class=\"chip s-\(job.status.rawValue)\">\(h(job.status.label))</span></td>"
                + "<td><a href=\"#job=\(h(failure.id))\">\(h(index.scenarioTitle(job)))</a></td>"
                + "<td class=\"mono\">\(h(failure.configuration))</td><td>\(job.attempts)</td>"
                + "<td>\(job.status == .flaky ? "<span class=\"muted\">passed on retry</span>" : h(failures[failure.position] ?? "no message"))</td></tr>\n"
        }
        output += "</table>\n"
        if count > index.failing.count {
            output += "<p class=\"muted\">… and \(count - index.failing.count) more: every one is a cell on the heat map"
                + " and an entry in summary.json.</p>\n"
        }
        output += "</section>\n"
    }

    /// The most rows of the "Jobs that did not pass" table.
    static let failingRows = 2_000

    // MARK: - Baseline

    private func baselineSection(_ diff: RunDiff) -> String {
        let headIDs = baselineJobIDs
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

    /// The positions of `refs` in the order a panel lists them, given each one's kind: wireframes first (they are
    /// what a person looks at), then snapshots, logs, the rest; by name within a kind.
    static func order(_ refs: [ArtifactReference], kinds: [ArtifactKind]) -> [Int] {
        // Most attempts have no artifact: no work for them (a run has 100,000 attempts).
        guard refs.count > 1 else { return Array(refs.indices) }
        func rank(_ kind: ArtifactKind) -> Int {
            switch kind {
            case .image: 0
            case .json: 1
            case .text: 2
            case .other: 3
            }
        }
        return refs.indices.sorted { a, b in
            let (ra, rb) = (rank(kinds[a]), rank(kinds[b]))
            if ra != rb { return ra < rb }
            if refs[a].name != refs[b].name { return refs[a].name < refs[b].name }
            return a < b
        }
    }
}
