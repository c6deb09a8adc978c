import Foundation
import Journal

/// The parity view of `report.html`: per scenario × configuration, each registry's verdict side by side, the
/// disagreements ("fails only in web": a renderer defect) first, then the pairs that fail in every registry (a model
/// defect), each with the step where the renderers part and a link to each registry's job panel (its step timeline,
/// wireframes and screenshots); under each disagreement, both renderers' pictures of that step side by side.
extension HTMLReport {
    /// The parity sentence under a headline (`id` for the run block's copy); empty for a run on one registry.
    func parityHeadline(id: String?) -> String {
        guard let parity else { return "" }
        let ok = parity.disagreements.isEmpty && parity.failsInAll == 0
        return "<p class=\"headline\(ok ? " ok" : "")\"\(id.map { " id=\"\($0)\"" } ?? "")>"
            + "<a href=\"#parity\">Renderers</a>: \(h(parity.headline))</p>\n"
    }

    /// The section; empty for a run on one registry.
    func paritySection() -> String {
        guard let parity else { return "" }
        var out = "<section class=\"block\" id=\"parity\">\n<h2>Where the renderers disagree</h2>\n"
        out += "<p class=\"muted\">\(parity.compared) scenario × configuration pairs ran on several registries ("
            + parity.registries.map(h).joined(separator: ", ") + "); \(parity.agreeing) agree that they pass.</p>\n"
        guard !parity.rows.isEmpty else { return out + "<p class=\"muted\">No pair fails in any registry.</p>\n</section>\n" }
        out += "<table class=\"grid\" id=\"parity-rows\"><tr><th>verdict</th><th>scenario</th><th>configuration</th>"
            + "<th>parts at</th>" + parity.registries.map { "<th>\(h($0))</th>" }.joined() + "</tr>\n"
        var shownOpen = 0
        for row in parity.rows {
            let verdict = row.kind == .failsInAll
                ? "fails in all"
                : "fails only in " + row.failing.joined(separator: ", ")
            out += "<tr class=\"parity-\(row.kind.rawValue)\" data-kind=\"\(row.kind.rawValue)\">"
                + "<td><span class=\"chip s-\(row.kind == .failsInAll ? "failed" : "flaky")\">\(h(verdict))</span></td>"
                + "<td>\(h(row.scenarioID))</td><td class=\"mono\">\(h(row.configuration))</td>"
                + "<td>\(row.partStep.map { "step \($0 + 1)" } ?? "-")</td>"
            for registry in parity.registries {
                guard let v = row.verdicts.first(where: { $0.registry == registry }) else {
                    out += "<td class=\"muted\">not run</td>"
                    continue
                }
                let status = CellStatus(rawValue: v.status) ?? .notRun
                let message = v.failureMessage.map { "<br><span class=\"muted\">\(h(String($0.prefix(160))))</span>" } ?? ""
                out += "<td data-registry=\"\(h(registry))\"><a href=\"#job=\(h(v.jobID))\">"
                    + "<span class=\"chip s-\(status.rawValue)\">\(h(status.label))</span></a>\(message)</td>"
            }
            out += "</tr>\n"
            if row.kind == .failsOnlyIn {
                out += evidenceRow(row, columns: 4 + parity.registries.count, open: shownOpen < Self.openEvidence)
                shownOpen += 1
            }
        }
        out += "</table>\n"
        if parity.truncated { out += "<p class=\"muted\">… more rows in summary.json's counts.</p>\n" }
        return out + "</section>\n"
    }
}

extension HTMLReport {
    /// How many disagreements show their evidence open (the page loads their pictures at once); the others on a click.
    static let openEvidence = 12

    /// Under a disagreement: each registry's picture of the step where the renderers part, side by side (filled by
    /// the page's script from the jobs' chunks: `HTMLAssets+Parity.swift`).
    func evidenceRow(_ row: Parity.Row, columns: Int, open: Bool) -> String {
        guard let step = row.partStep else { return "" }
        let sides = row.verdicts.map { [$0.registry, $0.jobID] }
        let json = (try? JSONEncoder().encode(sides)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let names = row.verdicts.map(\.registry).joined(separator: " beside ")
        return "<tr class=\"parity-evidence-row\"><td colspan=\"\(columns)\"><details class=\"parity-evidence\""
            + (open ? " open" : "") + " data-step=\"\(step)\" data-sides=\"\(h(json))\"><summary>step \(step + 1), "
            + "where the renderers part: \(h(names))</summary><div class=\"pe-pictures\"></div></details></td></tr>\n"
    }
}

extension Parity {
    /// A run on several registries: where they disagree, read before the report's pass so that the pass carries the
    /// evidence of a disagreement's passing side too (``evidenceJobs``). Nil on one registry.
    static func beforePass(runID: String, reader: JournalReader) throws -> Parity? {
        try reader.registries(runs: [runID]).count > 1 ? try read(runID: runID, reader: reader) : nil
    }

    /// The jobs of every disagreement, on each side: the parity view shows their pictures side by side.
    var evidenceJobs: Set<String> { Set(disagreements.flatMap { $0.verdicts.map(\.jobID) }) }

    /// Fills `front`'s parity (when the run's jobs ran on several registries) and its changes since `base`.
    /// `current`: the run's parity when it was read already.
    static func analyze(_ front: inout ReportWriter.Front, runID: String, base: String?, reader: JournalReader,
                        current: Parity? = nil) throws {
        if front.index.registries.count > 1 { front.parity = try current ?? read(runID: runID, reader: reader) }
        guard let base else { return }
        let before = try read(runID: base, reader: reader)
        if front.parity != nil || before != nil { front.parityChanges = ParityDiff(base: before, head: front.parity) }
    }
}
