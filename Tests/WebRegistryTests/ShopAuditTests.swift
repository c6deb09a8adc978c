import Foundation
import Testing

/// The shipped `Matrices/a11y.json` over the sample shop, through `flowmatrix run` in real Chromium: each of the shop's
/// four accessibility defects fails in exactly its configuration, named by rule code and element in summary.json, and
/// the report pivots each rule to its axis value (issue 29 §3).
extension RealChromium {
    @Suite("web shop: Matrices/a11y.json finds each accessibility defect exactly where it is (real Chromium)", .serialized)
    struct ShopAuditTests {
        /// Each defect: the axis value that shows it, the scenarios that fail with it, the rule and an element.
        static let defects: [(axis: String, value: String, scenarios: Set<String>, code: String, element: String)] = [
            ("appearance", "dark", ["a11y-catalog", "a11y-cart"], "AX002", "catalog.item.1.price"),
            ("textSize", "AX5", ["a11y-catalog", "a11y-cart"], "AX005", "header.title"),
            ("window", "narrow-portrait", ["a11y-cart"], "AX003", "cart.line.1.minus"),
            ("locale", "ja", ["a11y-cart"], "AX001", "cart.close"),
        ]

        @Test("each defect fails only in its configuration, with its rule code in summary.json and the report's pivot")
        func defectsWhereTheyAre() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("a11y-shop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let matrix = WebShopTests.repository.appendingPathComponent("Matrices/a11y.json")
            let status = try await WebShopTests.run(matrix, store: root.appendingPathComponent("store"))
            guard let status else { return }  // recorded as an issue
            #expect(status == 1, "failures found")
            let runs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("store/runs").path)
            let run = try #require(runs.first)
            let folder = root.appendingPathComponent("store/runs/\(run)")
            let summaryData = try Data(contentsOf: folder.appendingPathComponent("summary.json"))
            let summary = try #require(try JSONSerialization.jsonObject(with: summaryData) as? [String: Any])
            #expect(summary["total"] as? Int == 10)
            let jobs = try #require(summary["jobs"] as? [[String: Any]])
            let failing = jobs.filter { ($0["outcome"] as? String) != "passed" }
            var expected = 0
            for defect in Self.defects { expected += defect.scenarios.count }
            #expect(failing.count == expected, "\(failing.map { $0["failureMessage"] ?? "" })")
            for job in failing {
                let scenario = job["scenarioID"] as? String ?? ""
                let configuration = job["configuration"] as? [String: String] ?? [:]
                let audit = (job["audit"] as? [[String: String]]) ?? []
                let defect = Self.defects.first { configuration[$0.axis] == $0.value }
                let codes = Set(audit.compactMap { $0["code"] })
                #expect(
                    defect.map { $0.scenarios.contains(scenario) && codes == [$0.code] } == true,
                    "unexpected: \(scenario) \(configuration): \(job["failureMessage"] ?? "")")
                if let defect {
                    #expect(audit.contains { $0["element"] == defect.element }, "\(scenario): \(audit)")
                }
            }
            let report = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(report.contains("Accessibility findings by axis"))
            for defect in Self.defects {
                #expect(report.contains("fails only with \(defect.axis)=\(defect.value)"), "\(defect.code)")
            }
            let junit = try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)
            #expect(Self.defects.allSatisfy { junit.contains($0.code) })
        }
    }
}
