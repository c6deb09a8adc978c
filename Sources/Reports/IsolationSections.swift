import Isolation

/// The report page's parts for `flowmatrix isolate` (confirmed combinations) and for command jobs' tests pivoted one
/// by one (``TestPivot``).
struct IsolationSections {
    var testPivots: [TestPivot]
    var isolation: IsolationRecord?

    func h(_ s: String) -> String { Escape.html(s) }

    /// Headline paragraphs under the pivot's: the per-test sentence, and what isolation confirmed.
    func extraHeadlines() -> String {
        var out = ""
        if let tests = TestPivot.headline(testPivots) {
            out += "<p class=\"headline\" id=\"test-headline\">By test: \(h(tests))</p>\n"
        }
        if let isolation, let line = Self.isolationHeadline(isolation) {
            out += "<p class=\"headline\(isolation.confirmed.isEmpty ? "" : " ok")\" id=\"isolation-headline\">\(h(line))</p>\n"
        }
        return out
    }

    /// At most this many combinations in the isolation sentence (the table lists them all).
    static let maxHeadlineParts = 8

    /// "Isolation of run X: search fails with network=edge, confirmed by 6 follow-up jobs; …".
    static func isolationHeadline(_ record: IsolationRecord) -> String? {
        let everywhere = record.failsEverywhere ?? []
        guard !record.confirmed.isEmpty || !record.unresolved.isEmpty || !everywhere.isEmpty else { return nil }
        // One part per combination (and whether it fails intermittently, as the terminal's lines say): its scenario,
        // or how many scenarios share it; the most shared first.
        var byLabel: [String: [IsolationRecord.Confirmed]] = [:]
        for c in record.confirmed { byLabel[(c.intermittent == true ? "intermittently " : "") + "with " + record.label(c), default: []].append(c) }
        let ordered = byLabel.sorted { a, b in
            a.value.count != b.value.count ? a.value.count > b.value.count
                : a.value[0].label != b.value[0].label ? a.value[0].label < b.value[0].label : a.key < b.key
        }
        var parts = ordered.prefix(maxHeadlineParts).map { how, cs in
            let jobs = cs.reduce(0) { $0 + $1.followUps }
            let who = cs.count == 1 ? "\(record.name(cs[0].subject)) fails" : "\(cs.count) scenarios fail"
            return "\(who) \(how), " + IsolationRecord.evidence(followUps: jobs)
        }
        if ordered.count > maxHeadlineParts { parts.append("\(ordered.count - maxHeadlineParts) more combinations (below)") }
        parts += everywhere.map { "\(record.name($0.subject)) fails in every configuration it ran (\($0.jobs) jobs)" }
        let left = record.unresolved.reduce(0) { $0 + $1.configurations.count }
        let probed = record.unresolved.reduce(0) { $0 + ($1.foundByProbes?.count ?? 0) }
        // Those of scenarios whose follow-ups (two or more) all passed: the failure did not come back.
        let notAgain = record.unresolved.filter { ($0.followUps ?? 0) >= 2 && $0.failingFollowUps == 0 }
            .reduce(0) { $0 + $1.configurations.count }
        if left > 0 {
            var notes: [String] = []
            if probed > 0 { notes.append("\(probed) found by probes, not in the run") }
            if notAgain > 0 {
                notes.append("\(notAgain == left ? "all" : "\(notAgain)") in scenarios whose follow-ups all passed: "
                    + "fixed since the run, or intermittent")
            }
            parts.append("\(left) failing configuration\(left == 1 ? "" : "s") left unexplained"
                + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"))
        }
        return "Isolation of run \(record.source) (\(record.jobsRun) follow-up jobs): " + parts.joined(separator: "; ") + "."
    }

    /// In "Failures by axis": the confirmed combinations, then each failing test's patterns.
    func isolationAndTestTables() -> String {
        var out = ""
        if let isolation, !isolation.confirmed.isEmpty {
            out += "<h3>Confirmed by isolation</h3>\n<p class=\"muted\">`flowmatrix isolate` ran follow-up jobs that keep one"
                + " suspicious combination and move the other axes to safe values (docs/ISOLATE.md).</p>\n"
                + "<table class=\"grid\" id=\"isolation-confirmed\"><tr><th>scenario</th><th>combination</th>"
                + "<th>evidence</th></tr>\n"
            for c in isolation.confirmed {
                let pairs = [[AxisPivot.scenarioAxis, c.scenario]]
                    + c.combination.keys.sorted().flatMap { axis in (c.combination[axis] ?? []).map { [axis, $0] } }
                out += "<tr data-values=\"\(Escape.html("[" + pairs.map { "[" + $0.map(JSONText.string).joined(separator: ",") + "]" }.joined(separator: ",") + "]"))\"><td>\(h(isolation.name(c.subject)))</td>"
                    + "<td class=\"mono\">\(h(isolation.label(c)))</td><td>\(c.intermittent == true ? "fails intermittently, " : "")"
                    + "\(h(IsolationRecord.evidence(followUps: c.followUps)))</td></tr>\n"
            }
            out += "</table>\n"
        }
        let failing = testPivots.filter { $0.failures > 0 }
        if !failing.isEmpty {
            out += "<h3>Failures by test</h3>\n<p class=\"muted\">Command jobs' tests, each pivoted on its own"
                + " (a failure or error fails; flaky and skipped tests do not).</p>\n<table class=\"grid\" id=\"test-patterns\">"
                + "<tr><th>test</th><th>failing/runs</th><th>pattern</th></tr>\n"
            for t in failing {
                let pattern = t.patterns.first.map { p in
                    (p.exact ? "exactly " : "") + p.group.label + (PivotIsolation.note(p).map { ", " + $0 } ?? "")
                } ?? t.headline
                out += "<tr><td class=\"mono\">\(h(t.test))</td><td>\(t.failures)/\(t.jobs)</td><td class=\"mono\">\(h(pattern))</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }
}
