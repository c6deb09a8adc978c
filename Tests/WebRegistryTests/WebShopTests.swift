import Foundation
import ProcessSpawn
import Testing

/// The sample shop (Workers/Web) run through `flowmatrix run` with two local workers in real Chromium: each of its
/// six real defects fails exactly where it should, and the report's "Failures by axis" names each one.
extension RealChromium {
    @Suite("web shop: flowmatrix run finds each defect and the pivot names it (real Chromium)", .serialized)
    struct WebShopTests {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()

        static var binary: URL {
            let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("flowmatrix")
            if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
            return repository.appendingPathComponent(".build/debug/flowmatrix")
        }

        /// Each defect: the scenario that shows it, the axis value that triggers it, and what the failure says.
        static let defects: [(scenario: String, axis: String, value: String, message: String)] = [
            ("add-button-fits", "locale", "de", "truncated: catalog.item.1.add"),
            ("header-mirrored", "locale", "ar", "not-mirrored: header.cart-count"),
            // Full-width box, text kept on the left: found by judging the rendered text, not the box.
            ("status-mirrored", "locale", "ar", "not-mirrored: app.orientation text"),
            (
                "cart-summary-localized", "direction", "pseudo-accented",
                "not-localized: cart.summary is assembled from 2"
            ),
            ("delivery-estimate", "network", "edge", "[data-testid=\"cart.delivery\"] is not visible"),
            // One text node joining a translated string and a fragment from code: found only at the source hook.
            (
                "cart-total-localized", "direction", "pseudo-accented",
                #"joins translated text with text built in code ("incl. VAT")"#
            ),
        ]

        /// `flowmatrix run` on a site (the shop by default) with 2 local workers; its exit status (nil, recorded as an issue, when it
        /// did not finish in 400 s).
        static func run(_ matrix: URL, store: URL, site: String = "Workers/Web/site") async throws -> Int32? {
            try await flowmatrix(["run", matrix.path, "--workers", "2", "--store", store.path, "--quiet"], site: site)
        }

        /// `flowmatrix` with `arguments` on a site (the shop by default); its exit status (nil, recorded as an issue,
        /// when it did not finish in 400 s).
        static func flowmatrix(_ arguments: [String], site: String = "Workers/Web/site") async throws -> Int32? {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["FLOWMATRIX_WEB_ROOT"] = Self.repository.appendingPathComponent(site).path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            guard await process.exited(timeout: .seconds(400)) else {
                kill(process.processIdentifier, SIGKILL)
                _ = await process.exited(timeout: .seconds(30))
                Issue.record("flowmatrix \(arguments.first ?? "") did not finish in time")
                return nil
            }
            return process.terminationStatus
        }

        @Test("each defect fails only in its configurations, and the failures-by-axis patterns name all six")
        func defectsByAxis() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-shop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let includes = ["portrait", "landscape"].flatMap { o in
                [
                    #"{"locale": "en", "direction": "pseudo-accented", "orientation": "\#(o)", "network": "lte"}"#,
                    #"{"locale": "en", "direction": "auto", "orientation": "\#(o)", "network": "edge"}"#,
                ]
            }
            let matrix = """
                {"name": "web-defects", "corpus": "\(Self.repository.appendingPathComponent("Workers/Web/Scenarios").path)",
                 "tags": {"include": ["defect"]}, "registry": "web",
                 "policy": {"retries": 0, "timeout": 60, "seed": 3, "keep": "failures"},
                 "axes": {"locale": ["en", "de", "ar"], "direction": ["auto"], "orientation": ["portrait", "landscape"], "network": ["lte"]},
                 "include": [\(includes.joined(separator: ", "))]}
                """
            try Data(matrix.utf8).write(to: root.appendingPathComponent("m.json"))
            let status = try await Self.run(root.appendingPathComponent("m.json"), store: root.appendingPathComponent("store"))
            guard let status else { return }  // recorded as an issue
            #expect(status == 1, "failures found")

            let runs = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("store/runs").path)
            let run = try #require(runs.first)
            let summaryData = try Data(contentsOf: root.appendingPathComponent("store/runs/\(run)/summary.json"))
            let summary = try #require(try JSONSerialization.jsonObject(with: summaryData) as? [String: Any])
            let jobs = try #require(summary["jobs"] as? [[String: Any]])
            #expect(summary["total"] as? Int == 60)
            // The summary lists the jobs that did not pass.
            let failing = jobs.filter { ($0["outcome"] as? String) != "passed" }
            for job in failing {
                let scenario = job["scenarioID"] as? String ?? ""
                let configuration = job["configuration"] as? [String: String] ?? [:]
                let message = job["failureMessage"] as? String ?? ""
                let defect = Self.defects.first { $0.scenario == scenario }
                #expect(
                    defect.map { configuration[$0.axis] == $0.value && message.contains($0.message) } == true,
                    "unexpected failure: \(scenario) \(configuration): \(message)")
            }
            #expect(failing.count == 12, "each defect fails in its two configurations")

            let patterns = try #require(summary["patterns"] as? [[String: Any]])
            let named: [Set<String>] = patterns.compactMap { pattern in
                ((pattern["group"] as? [String: Any])?["values"] as? [[String: String]])
                    .map { Set($0.map { "\($0["axis"] ?? "")=\($0["value"] ?? "")" }) }
            }
            for defect in Self.defects {
                #expect(
                    named.contains {
                        $0.contains("\(defect.axis)=\(defect.value)")
                            && ($0.count == 1 || $0.contains("scenario=\(defect.scenario)"))
                    },
                    "no pattern names \(defect.scenario) with \(defect.axis)=\(defect.value): \(named)")
            }
            // The report shows screenshots for the failures.
            let report = try String(
                contentsOf: root.appendingPathComponent("store/runs/\(run)/report.html"), encoding: .utf8)
            #expect(report.contains("Failures by axis"))
            // summary.json schema 3: an artifact is [attempt, step, name, mediaType, sha256, rawSize, compressedSize,
            // carried]; a screenshot of a failure is carried by the report folder.
            let artifacts = failing.flatMap { ($0["artifacts"] as? [[Any]]) ?? [] }
            #expect(artifacts.contains { $0.count > 7 && $0[2] as? String == "screenshot.png" && $0[7] as? Bool == true },
                    "\(artifacts.prefix(3))")
        }
    
        /// The six defects under a pairwise plan (locale × direction × network, 36 jobs), then `flowmatrix isolate` with
        /// the default budget (7 follow-up jobs): each defect is confirmed as the one value that triggers it, and
        /// nothing else is (docs/ISOLATE.md; about a minute in all).
        @Test("isolate on a pairwise run of the shop's defects confirms each of them as its one value, and nothing else")
        func isolateDefects() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-isolate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let matrix = root.appendingPathComponent("isolate.json")
            try Data(#"""
                {"name": "web-isolate", "corpus": "\#(Self.repository.appendingPathComponent("Workers/Web/Scenarios").path)",
                 "tags": {"include": ["defect"]}, "registry": "web",
                 "policy": {"retries": 0, "timeout": 60, "failFast": false, "keep": "failures", "seed": 1},
                 "axes": {"locale": ["en", "de", "ar"], "direction": ["auto", "pseudo-accented"], "orientation": ["portrait"],
                          "window": ["regular-square"], "network": ["lte", "edge"]},
                 "reduction": "pairwise"}
                """#.utf8).write(to: matrix)
            let store = root.appendingPathComponent("store")
            #expect(try await Self.run(matrix, store: store) == 1, "failures found")
            #expect(try await Self.flowmatrix(["isolate", "last", "--store", store.path]) == 0, "every failure explained")
            let runs = store.appendingPathComponent("runs")
            let isolation = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path)
                .first { FileManager.default.fileExists(atPath: runs.appendingPathComponent("\($0)/isolation.json").path) })
            let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf:
                runs.appendingPathComponent("\(isolation)/isolation.json"))) as? [String: Any])
            let confirmed = (record["confirmed"] as? [[String: Any]] ?? []).map { c in
                "\(c["scenario"] as? String ?? "?"): "
                    + (c["combination"] as? [String: [String]] ?? [:]).sorted { $0.key < $1.key }
                    .map { "\($0.key)=\($0.value.joined(separator: ","))" }.joined(separator: " + ")
            }
            #expect(Set(confirmed) == Set(Self.defects.map { "\($0.scenario): \($0.axis)=\($0.value)" }), "confirmed \(confirmed)")
            #expect((record["jobsRun"] as? Int ?? 99) <= 7)
        }
    }
}
