import Foundation
import Testing

/// Visual baselines end to end (docs/VISUAL.md): real runs of the Catalog and web registries, `baseline accept`,
/// re-runs compared with the baselines, a CSS change in one locale, masks, and bad baseline folders.
@Suite("Visual baselines", .serialized, .timeLimit(.minutes(12)))
struct VisualBaselineTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A 1 × 1 PNG (not the size of any step picture).
    static let tinyPNG = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==") ?? Data()

    private func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private func visual(_ ws: E2EWorkspace, _ run: String) throws -> [String: Any] {
        try json(ws.root.appendingPathComponent(".flowmatrix/runs/\(run)/visual.json"))
    }

    private func copyScenarios(_ names: [String], from folder: String, into ws: E2EWorkspace) throws {
        for name in names {
            try FileManager.default.copyItem(
                at: Self.repository.appendingPathComponent("\(folder)/\(name).json"),
                to: ws.root.appendingPathComponent("corpus/\(name).json"))
        }
    }

    private func writeMatrix(_ ws: E2EWorkspace, registry: String, locales: [String], visual: String) throws -> String {
        let text = """
            {"name": "visual-\(registry)", "corpus": "corpus", "registry": "\(registry)",
             "policy": {"retries": 0, "timeout": 60, "seed": 3, "visual": \(visual)},
             "axes": {"locale": \(locales), "direction": ["auto"], "orientation": ["portrait"],
                      "window": ["regular-square"], "network": ["lte"]}}
            """
        let url = ws.root.appendingPathComponent("m-\(registry).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test("Catalog: accept then re-run gives 0 changes; export/import round-trips; bad folders give clear errors")
    func catalogAcceptAndFolders() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try copyScenarios(["browse-catalog", "empty-cart"], from: "Workers/Catalog/Scenarios", into: ws)
        let matrix = try writeMatrix(ws, registry: "catalog", locales: ["en", "ar"], visual: #"{"onChange": "fail"}"#)
        let (_, first) = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "run1", localWorkers: .flowmatrix)
        let run1 = try #require(try ws.latestRunID(), "\(first)")
        let (acceptCode, accepted) = try await ws.run(["baseline", "accept", run1], label: "accept")
        #expect(acceptCode == 0 && accepted.contains("accepted"), "\(accepted)")
        let (code2, second) = try await ws.run(["run", matrix, "--workers", "1"], label: "run2", localWorkers: .flowmatrix)
        let run2 = try #require(try ws.latestRunID())
        #expect(run2 != run1)
        let results = try visual(ws, run2)
        #expect((results["comparedSteps"] as? Int ?? 0) > 0, "\(second)")
        #expect((results["jobs"] as? [[String: Any]])?.allSatisfy { ($0["changes"] as? [Any])?.isEmpty == true } == true)
        #expect(second.contains("visual: 0 changed step(s)"), "\(second)")
        let summary = try json(ws.root.appendingPathComponent(".flowmatrix/runs/\(run2)/summary.json"))
        #expect((summary["visual"] as? [String: Any])?["changedSteps"] as? Int == 0)
        _ = code2

        // Export, import back, then damage copies of the folder one way each.
        let folder = ws.root.appendingPathComponent("baselines")
        let (exportCode, exported) = try await ws.run(["baseline", "export", folder.path], label: "export")
        #expect(exportCode == 0, "\(exported)")
        let manifest = try json(folder.appendingPathComponent("manifest.json"))
        let entries = try #require(manifest["entries"] as? [[String: Any]])
        let file = try #require(entries.first?["file"] as? String)
        #expect(file.hasPrefix("catalog/browse-catalog/") && file.hasSuffix("/step-1.png"), "\(file)")
        let (importCode, imported) = try await ws.run(["baseline", "import", folder.path], label: "import")
        #expect(importCode == 0 && imported.contains("imported \(entries.count)"), "\(imported)")

        let empty = ws.root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let (missingCode, missing) = try await ws.run(["baseline", "import", empty.path], label: "missing")
        #expect(missingCode == 65 && missing.contains("manifest.json"), "\(missing)")

        for (label, damage) in [("corrupt", Data("not a png".utf8)), ("resized", Self.tinyPNG)] {
            let copy = ws.root.appendingPathComponent(label)
            try FileManager.default.copyItem(at: folder, to: copy)
            try damage.write(to: copy.appendingPathComponent(file))
            let (code, output) = try await ws.run(["baseline", "import", copy.path], label: "import-\(label)")
            #expect(code == 65, "\(output)")
            #expect(output.contains(file) && output.contains("nothing was imported"), "\(output)")
            #expect(output.contains(label == "corrupt" ? "not a readable PNG" : "1 × 1"), "\(output)")
        }
        let (rejectCode, rejected) = try await ws.run(["baseline", "reject", "--where", "locale=ar"], label: "reject")
        #expect(rejectCode == 0 && rejected.contains("rejected"), "\(rejected)")
        let (_, shown) = try await ws.run(["baseline", "show"], label: "show")
        #expect(!shown.contains("locale=ar") && shown.contains("locale=en"), "\(shown)")
    }

    @Test("web: identical runs show 0 changes; a CSS change in one locale shows only there; a mask hides it")
    func webLocaleChange() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let site = ws.root.appendingPathComponent("site")
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Workers/Web/site"), to: site)
        // A scenario that passes in every locale: the exit codes below are the visual verdict's.
        try copyScenarios(["catalog-loads"], from: "Workers/Web/Scenarios", into: ws)
        let env = ["FLOWMATRIX_WEB_ROOT": site.path]
        let report = try writeMatrix(ws, registry: "web", locales: ["en", "de", "ar"], visual: #"{"onChange": "report"}"#)
        func run(_ matrix: String, _ label: String) async throws -> (Int32, String, String) {
            let (code, output) = try await ws.run(["run", matrix, "--workers", "2"], label: label, environment: env,
                                                  timeout: .seconds(240), localWorkers: .flowmatrix)
            return (code, output, try #require(try ws.latestRunID(), "\(output)"))
        }
        let (_, out1, run1) = try await run(report, "web1")
        let (acceptCode, accepted) = try await ws.run(["baseline", "accept", run1], label: "accept")
        #expect(acceptCode == 0, "\(out1)\n\(accepted)")
        let (code2, out2, run2) = try await run(report, "web2")
        #expect(code2 == 0, "\(out2)")
        let identical = try visual(ws, run2)
        #expect((identical["comparedSteps"] as? Int ?? 0) >= 12, "\(out2)")
        #expect(out2.contains("visual: 0 changed step(s)"), "\(out2)")

        // German only: the header turns red (its box does not move, so nothing else moves with it).
        let css = site.appendingPathComponent("shop.css")
        let handle = try FileHandle(forWritingTo: css)
        handle.seekToEndOfFile()
        handle.write(Data("\nhtml:lang(de) header.bar { background: #c00 !important; }\n".utf8))
        try handle.close()
        let (code3, out3, run3) = try await run(report, "web3")
        let changed = try #require(try visual(ws, run3)["jobs"] as? [[String: Any]])
        let changedConfigurations = changed.filter { !(($0["changes"] as? [Any]) ?? []).isEmpty }
            .compactMap { $0["configuration"] as? String }
        #expect(changedConfigurations.count == 1, "\(out3)")
        #expect(changedConfigurations.allSatisfy { $0.contains("locale=de") }, "\(changedConfigurations)")
        #expect(code3 == 0, "onChange report: a change does not fail the run\n\(out3)")
        let summary = try json(ws.root.appendingPathComponent(".flowmatrix/runs/\(run3)/summary.json"))
        let visualSummary = try #require(summary["visual"] as? [String: Any])
        #expect((visualSummary["headline"] as? String)?.contains("only with locale=de") == true, "\(visualSummary)")
        let jobs = try #require(summary["jobs"] as? [[String: Any]])
        let flagged = jobs.filter { $0["visualChanges"] != nil }
        #expect(flagged.count == 1 && flagged.allSatisfy { ($0["configuration"] as? [String: String])?["locale"] == "de" })
        // Report only: every view says the jobs passed (no junit failure), the change listed all the same.
        let reportOnly = try ReportCounts(folder: ws.root.appendingPathComponent(".flowmatrix/runs/\(run3)"))
        #expect(reportOnly.fromCases["failures"] == 0 && (reportOnly.summaryJobs["failed"] ?? 0) == 0
                && reportOnly.summaryJobs["passed"] == 3, "\(reportOnly.summaryJobs)")
        #expect(flagged.allSatisfy { $0["status"] as? String == "passed" }, "\(flagged)")
        let html = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(run3)/report.html"), encoding: .utf8)
        #expect(html.contains("<h2>Visual changes</h2>") && html.contains("only with locale=de"))
        let (_, diff) = try await ws.run(["diff", run2, run3], label: "diff")
        #expect(diff.contains("NEW VISUAL CHANGES (") && diff.contains("locale=de"), "\(diff)")

        // The same change under a mask on the header: nothing counts. Without it, under onChange fail: exit 1.
        let masked = try writeMatrix(ws, registry: "web", locales: ["en", "de", "ar"],
                                     visual: #"{"onChange": "fail", "masks": ["header"]}"#)
        let (code4, out4, run4) = try await run(masked, "web4")
        #expect(code4 == 0 && out4.contains("visual: 0 changed step(s)"), "\(out4)")
        #expect((try visual(ws, run4)["comparedSteps"] as? Int ?? 0) >= 12)
        let failing = try writeMatrix(ws, registry: "web", locales: ["en", "de", "ar"], visual: #"{"onChange": "fail"}"#)
        let (code5, out5, run5) = try await run(failing, "web5")
        #expect(code5 == 1 && out5.contains("changed step(s) in 1 job(s) (fail)"), "\(out5)")
        try await expectVerdict(ws, run: run5, output: out5)
    }

    /// Under `onChange: fail` the German job failed like any failure, in every view: the journal (`show`), the run's
    /// summary line, junit.xml (one failure, rule MX053), summary.json and report.html's counts (issue 27's invariant).
    private func expectVerdict(_ ws: E2EWorkspace, run: String, output: String) async throws {
        #expect(output.contains("2 passed, 1 failed"), "\(output)")
        let folder = ws.root.appendingPathComponent(".flowmatrix/runs/\(run)")
        let counts = try ReportCounts(folder: folder)
        #expect(counts.fromCases["failures"] == 1 && counts.root["failures"] == 1, "\(counts.root)")
        #expect(counts.summaryJobs["failed"] == 1 && counts.summaryJobs["passed"] == 2, "\(counts.summaryJobs)")
        #expect(counts.pageJobs["failed"] == 1, "\(counts.pageJobs)")
        let junit = try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("MX053 visual change") && junit.contains("locale=de"), "\(junit)")
        let results = try visual(ws, run)
        let verdicts = (results["jobs"] as? [[String: Any]] ?? []).filter { $0["verdict"] != nil }
        #expect(verdicts.count == 1 && verdicts.allSatisfy { ($0["configuration"] as? String)?.contains("locale=de") == true })
        let summary = try json(folder.appendingPathComponent("summary.json"))
        #expect((summary["visual"] as? [String: Any])?["failedJobs"] as? Int == 1)
        let (showCode, shown) = try await ws.run(["show", run], label: "show-verdict")
        #expect(showCode == 1, "show exits as the run did\n\(shown)")
        #expect(shown.contains("MX053") && shown.contains("1 failed"), "\(shown)")
    }
}
