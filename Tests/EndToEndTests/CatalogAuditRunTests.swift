import Foundation
import Testing

/// The shipped `Matrices/a11y-catalog.json` through `flowmatrix run` with real Catalog workers: each of the Catalog's
/// four accessibility defects fails in exactly its configuration, named by rule code and element in summary.json, and
/// the report pivots each rule to its axis value (issue 29: the Catalog side).
@Suite("Catalog accessibility: Matrices/a11y-catalog.json finds each defect exactly where it is", .timeLimit(.minutes(3)))
struct CatalogAuditRunTests {
    /// Each defect: the axis value that shows it, the scenarios that fail with it, the rule and an element it names.
    static let defects: [(axis: String, value: String, scenarios: Set<String>, code: String, element: String)] = [
        ("appearance", "dark", ["add-to-cart-from-detail", "cart-quantity"], "AX002", "catalog.item.1.price"),
        ("textSize", "AX5", ["add-to-cart-from-detail"], "AX005", "item.add-to-cart"),
        ("window", "narrow-portrait", ["cart-quantity"], "AX003", "cart.line.0.increment"),
        ("locale", "ja", ["add-to-cart-from-detail", "cart-quantity"], "AX001", "catalog.settings-button"),
    ]

    @Test("each defect fails only in its configuration, with its rule code in summary.json, junit.xml and the pivot")
    func defectsWhereTheyAre() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let store = ws.root.appendingPathComponent("store")
        let (status, output) = try await ws.run(
            ["run", repository.appendingPathComponent("Matrices/a11y-catalog.json").path, "--store", store.path,
             "--quiet"],
            label: "a11y", workingDirectory: repository, localWorkers: .flowmatrix)
        #expect(status == 1, "failures found: \(output)")
        let run = try #require(try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("runs").path).first)
        let folder = store.appendingPathComponent("runs/\(run)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect(summary["total"] as? Int == 10)
        let jobs = try #require(summary["jobs"] as? [[String: Any]])
        let failing = jobs.filter { ($0["outcome"] as? String) != "passed" }
        #expect(failing.count == Self.defects.reduce(0) { $0 + $1.scenarios.count })
        for job in failing {
            let scenario = job["scenarioID"] as? String ?? ""
            let configuration = job["configuration"] as? [String: String] ?? [:]
            let audit = (job["audit"] as? [[String: String]]) ?? []
            let defect = Self.defects.first { configuration[$0.axis] == $0.value }
            #expect(
                defect.map { $0.scenarios.contains(scenario) && Set(audit.compactMap { $0["code"] }) == [$0.code] } == true,
                "unexpected: \(scenario) \(configuration): \(job["failureMessage"] ?? "")")
            if let defect, scenario == defect.scenarios.sorted().first {
                #expect(audit.contains { $0["element"] == defect.element }, "\(scenario): \(audit)")
            }
        }
        let report = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        for defect in Self.defects {
            #expect(report.contains("fails only with \(defect.axis)=\(defect.value)"), "\(defect.code)")
        }
        let junit = try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(Self.defects.allSatisfy { junit.contains($0.code) })
    }
}
