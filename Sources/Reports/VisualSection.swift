import Foundation
import Visual

/// The report's "Visual changes" section (docs/VISUAL.md): what changed against the visual baselines, pivoted by axis
/// ("changes only with locale=ar"), then each changed step's baseline, current picture and diff side by side, as an
/// overlay and with a slider. Absent when the run compared no picture (no `visual.json`).
struct VisualSection {
    var results: VisualRunResults

    /// The most changed steps shown with their pictures (the rest are listed).
    static let pictureLimit = 200

    /// One axis value: jobs compared with it and jobs changed.
    struct Row: Hashable {
        var axis: String
        var value: String
        var compared: Int
        var changed: Int
    }

    /// Per axis value, in axis then value order.
    var rows: [Row] {
        var counts: [String: [String: (Int, Int)]] = [:]
        for job in results.jobs {
            let changed = job.changes.isEmpty ? 0 : 1
            for (axis, value) in job.axes {
                let old = counts[axis, default: [:]][value] ?? (0, 0)
                counts[axis, default: [:]][value] = (old.0 + 1, old.1 + changed)
            }
        }
        return counts.keys.sorted().flatMap { axis in
            (counts[axis] ?? [:]).keys.sorted().map { value in
                let c = counts[axis]?[value] ?? (0, 0)
                return Row(axis: axis, value: value, compared: c.0, changed: c.1)
            }
        }
    }

    /// The sentence on top: where the changes are, as narrowly as one axis value (or several) says it.
    var headline: String {
        let changed = results.changedJobs
        guard changed > 0 else {
            return "No visual changes: \(results.comparedSteps) step picture(s) compared with their baselines "
                + "(\(results.equalSteps) equal byte for byte)."
        }
        let compared = results.jobs.count
        let only = rows.filter { $0.changed == changed && $0.compared < compared }
        let steps = "\(results.changedSteps) changed step(s) in \(changed) of \(compared) compared job(s)"
        guard !only.isEmpty else { return "Visual changes: \(steps)." }
        return "Visual changes only with " + only.map { "\($0.axis)=\($0.value)" }.joined(separator: " and ") + ": \(steps)."
    }

    func html() -> String {
        let h = Escape.html
        var out = "<section class=\"block\" id=\"visual\" data-changed-steps=\"\(results.changedSteps)\">\n"
            + "<h2>Visual changes</h2>\n<style>\(VisualAssets.style)</style>\n"
        out += "<p class=\"headline\(results.changedJobs == 0 ? " ok" : "")\" id=\"visual-headline\">\(h(headline))</p>\n"
        out += "<p class=\"muted\">\(results.comparedSteps) compared, \(results.equalSteps) equal byte for byte, "
            + "\(results.newSteps) without a baseline; a change \(results.onChange == "fail" ? "fails its job" : "is reported only")"
            + " (policy.visual). Accept pictures with <code>flowmatrix baseline accept \(h(results.runID))</code>.</p>\n"
        if results.changedJobs > 0 {
            out += "<table class=\"grid\" id=\"visual-pivot\"><tr><th>axis</th><th>value</th><th>changed/compared jobs</th></tr>\n"
            for row in rows {
                out += "<tr data-axis=\"\(h(row.axis))\" data-value=\"\(h(row.value))\"><td class=\"mono\">\(h(row.axis))</td>"
                    + "<td class=\"mono\">\(h(row.value))</td><td>\(row.changed)/\(row.compared)</td></tr>\n"
            }
            out += "</table>\n"
        }
        var shown = 0
        for job in results.jobs where !job.changes.isEmpty {
            for step in job.changes {
                out += "<h3 class=\"vis-title\"><a href=\"#job=\(h(job.jobID))\">\(h(job.scenarioID))</a> "
                    + "<span class=\"mono\">\(h(job.configuration))</span> · step \(step.step)</h3>\n"
                out += "<p>\(h(step.summary))</p>\n"
                if shown < Self.pictureLimit { out += pictures(step, id: "\(shown)") }
                shown += 1
            }
        }
        out += "</section>\n"
        return out
    }

    private func pictures(_ step: VisualRunResults.Step, id: String) -> String {
        guard let before = step.baselineFile, let after = step.currentFile else { return "" }
        let h = Escape.html
        let diff = step.diffFile.map { "<figure><img src=\"\(h($0))\" alt=\"diff\" data-role=\"diff\"><figcaption>diff</figcaption></figure>" } ?? ""
        let name = "vis-\(id)"
        var out = "<div class=\"vis\" data-step=\"\(step.step)\">"
        for (mode, label) in [("side", "side by side"), ("overlay", "overlay"), ("slider", "slider")] {
            out += "<input type=\"radio\" name=\"\(name)\" id=\"\(name)-\(mode)\" value=\"\(mode)\"\(mode == "side" ? " checked" : "")>"
                + "<label for=\"\(name)-\(mode)\">\(label)</label>"
        }
        out += "\n<div class=\"vis-side\"><figure><img src=\"\(h(before))\" alt=\"baseline\" data-role=\"baseline\">"
            + "<figcaption>baseline</figcaption></figure><figure><img src=\"\(h(after))\" alt=\"current\" data-role=\"current\">"
            + "<figcaption>current</figcaption></figure>\(diff)</div>\n"
        out += "<div class=\"vis-overlay\"><div class=\"vis-stack\"><img src=\"\(h(before))\" alt=\"baseline\">"
            + "<img src=\"\(h(after))\" alt=\"current over the baseline\"></div></div>\n"
        out += "<div class=\"vis-slider\"><div class=\"vis-stack\"><img src=\"\(h(before))\" alt=\"baseline\">"
            + "<img class=\"vis-clip\" src=\"\(h(after))\" alt=\"current, up to the slider\"></div>"
            + "<input type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"current picture shown up to\"></div>\n"
        return out + "</div>\n"
    }
}
