/// The report's "Accessibility findings by axis" section (``AuditPivot``); absent when no job's failure is an audit's.
extension HTMLReport {
    func auditSection() -> String {
        guard let audit else { return "" }
        var out = "<section class=\"block\" id=\"audit\">\n<h2>Accessibility findings by axis</h2>\n"
        out += "<table class=\"grid\"><tr><th>rule</th><th>jobs</th><th>where</th><th>elements</th></tr>\n"
        for row in audit.rows {
            let more = row.elements.count == AuditPivot.elementLimit ? ", …" : ""
            out += "<tr><td class=\"mono\">\(h(row.rule.description))</td><td>\(row.jobs)</td>"
                + "<td>\(h(audit.sentence(row)))</td>"
                + "<td class=\"mono\">\(h(row.elements.joined(separator: ", ") + more))</td></tr>\n"
        }
        return out + "</table>\n<p class=\"muted\">Rule codes: docs/ACCESSIBILITY.md.</p>\n</section>\n"
    }
}
