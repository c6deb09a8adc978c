/// The heat map section of ``HTMLReport``: one cell per job, or — past the cell limit — one cell per group of
/// columns with a drill-down (``HeatMapGroups``).
extension HTMLReport {
    func heatMap(_ output: ReportOutput) {
        guard let layout else { return }
        var out = "<section class=\"block\" id=\"heatmap\">\n<h2>Matrix</h2>\n"
        if let groups = layout.groups {
            out += "<p class=\"muted\" id=\"aggregated\" data-levels=\"\(groups.levels)\">Scenarios × configurations:"
                + " \(index.jobCount) jobs in \(layout.columnCount) columns are more than the page draws one by one, so"
                + " a cell holds the columns that share the values of the first \(groups.levels) header line(s) and"
                + " shows its worst job. Click a cell for its jobs, one cell each, then a job for its attempts.</p>\n"
        } else {
            out += "<p class=\"muted\">Scenarios × configurations; one cell per job. Click a cell for its attempts, steps and artifacts.</p>\n"
        }
        out += "<div class=\"legend\">"
        for status in CellStatus.allCases {
            out += "<span><span class=\"cell s-\(status.rawValue)\">\(Self.symbols[status] ?? "")</span> \(h(status.label))</span>"
        }
        if diff != nil { out += "<span><span class=\"cell s-failed new\"></span> new since the baseline</span>" }
        out += "<label class=\"toggle\"><input type=\"checkbox\" id=\"only-failing\"> only scenarios with problems</label></div>\n"
        // What the pointer or the keyboard focus is on, in full (a cell's tooltip never shows for keyboard focus).
        out += "<p id=\"cell-info\" class=\"muted\" aria-live=\"polite\">Point at a cell, or Tab into the map and use the"
            + " arrow keys, to read its scenario, configuration and outcome here.</p>\n"
        // Rows of inline cells rather than a table: a row off screen skips layout and paint (`content-visibility`),
        // so 100,000 cells draw quickly. Every cell is 24 px wide; a header label spans its columns.
        out += "<div class=\"scroll\"><div class=\"heatmap\" id=\"heatmap-table\">\n"
        let levels = layout.groups?.levels ?? layout.headerAxes.count
        for level in 0..<levels {
            // Header lines stick to the top of the map's scroll box, one under the other (24 px each).
            out += "<div class=\"hl\" style=\"top:\(level * 24)px\"><span class=\"axis\">\(h(layout.headerAxes[level]))</span>"
            layout.forEachHeaderCell(level: level) { label, span in
                // The full value on hover: a one-column label is cut to fit its 24 px.
                out += "<span class=\"h\" data-span=\"\(span)\" style=\"width:\(span * 24)px\" title=\"\(h(label))\">\(h(label))</span>"
                if out.utf8.count > 1 << 16 {
                    output += out
                    out = ""
                }
            }
            out += "</div>\n"
        }
        output += out
        for row in 0..<layout.rowCount {
            let scenario = layout.scenarios[row]
            var out = "<div class=\"hr\" data-failing=\"\(layout.failing[row] ? 1 : 0)\" data-scenario=\"\(h(scenario.id))\">"
                + "<span class=\"rh\" title=\"\(h(scenario.title)) (\(h(scenario.id)))\">\(h(scenario.title))"
                + " <span class=\"muted mono\">\(h(scenario.id))</span></span>"
            if let groups = layout.groups {
                groupCells(row: row, groups: groups, into: &out, output)
            } else {
                jobCells(row: row, layout: layout, into: &out, output)
            }
            output += out + "</div>\n"
        }
        output += "</div></div>\n"
        if layout.groups != nil { output += "<div id=\"drill\" class=\"drill\"></div>\n" }
        output += "</section>\n"
    }

    /// A row's cells, one per job (a box of cells for a column with several jobs, a gap for none).
    private func jobCells(row: Int, layout: HeatMapLayout, into out: inout String, _ output: ReportOutput) {
        let newIDs = Set((diff?.newFailures ?? []).map(\.jobID) + (diff?.newlyFlaky ?? []).map(\.jobID))
        layout.forEachColumn(row: row) { _, jobs in
            guard !jobs.isEmpty else {
                out += "<i class=\"none\"></i>"
                return
            }
            // One element per column: the cell, or a box of the column's cells when it has several jobs.
            if jobs.count > 1 { out += "<span class=\"multi\">" }
            for cell in jobs {
                let id = layout.id(cell)
                // A passed cell is bare (its tooltip and click come from the script): 100,000 of them.
                if cell.status == .passed {
                    out += "<a class=\"cell s-passed\" data-job=\""
                    out += h(id)
                    out += "\"></a>"
                    continue
                }
                // Its tooltip, like a passed cell's, comes from the script (scenario, header, status).
                out += "<a class=\"cell s-\(cell.status.rawValue)\(newIDs.contains(id) ? " new" : "")\""
                    + " data-job=\"\(h(id))\" data-status=\"\(cell.status.rawValue)\" href=\"#job=\(h(id))\">"
                    + (Self.symbols[cell.status] ?? "") + "</a>"
            }
            if jobs.count > 1 { out += "</span>" }
            if out.utf8.count > 1 << 16 {
                output += out
                out = ""
            }
        }
    }

    /// A row's cells, one per group of columns: its worst status, its job count and how many did not pass, and the
    /// drill-down file with its jobs (a gap for a group without jobs in this row).
    private func groupCells(row: Int, groups: HeatMapGroups, into out: inout String, _ output: ReportOutput) {
        for group in 0..<groups.groupCount {
            let cell = groups.cell(row: row, group: group)
            if cell.count == 0 {
                out += "<i class=\"none\"></i>"
            } else {
                let key = "\(row).\(group)"
                out += "<a class=\"cell agg s-\(cell.worst.rawValue)\" data-cells=\"\(key)\" data-file=\"\(cell.file)\""
                    + " data-n=\"\(cell.count)\" data-bad=\"\(cell.bad)\" href=\"#cells=\(key)\">" + (Self.symbols[cell.worst] ?? "")
                    + "</a>"
            }
            if out.utf8.count > 1 << 16 {
                output += out
                out = ""
            }
        }
    }
}
