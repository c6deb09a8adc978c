import Foundation
import Journal
@testable import Reports
import Testing

/// The Catalog sweep on two registries: `checkout` with rtl + landscape fails on both (a model defect); in the
/// first run `browse` in Arabic fails on `web` only (a renderer defect), at its third step.
enum ParitySweep {
    static func plan(_ registry: String, uiBug: Bool) -> (String, String, String, String) -> Plan {
        { s, l, d, o in
            if s == "checkout" && d == "rtl" && o == "landscape" { return .fail }
            if uiBug && registry == "web" && s == "browse" && l == "ar" { return .fail }
            return .pass
        }
    }

    static func run(runID: String = "20261202-0100-pppp", uiBug: Bool = true, start: Double = 1_796_100_000) -> FixtureRun {
        var jobs: [FixtureJob] = []
        for registry in ["catalog", "web"] {
            jobs += Sweep.jobs(plan(registry, uiBug: uiBug)).map { job in
                var job = job
                job.registry = registry
                return job
            }
        }
        return FixtureRun(runID: runID, startedAt: Date(timeIntervalSince1970: start), matrixName: "parity", jobs: jobs)
    }

    static func written(baseline: String? = nil, runs: [FixtureRun] = [run()], report: String = run().runID) throws -> WrittenReport {
        try WrittenReport(baseline: baseline, runs: runs, report: report)
    }
}

@Suite("The parity view: each registry's verdict per scenario × configuration")
struct ParityReportTests {
    @Test("a run on two registries: disagreements first, fails-in-all after, counts and the headline")
    func parityOfRows() throws {
        let run = ParitySweep.run()
        let fixture = try StoreFixture()
        try fixture.write([run])
        let parity = try #require(try Parity.read(runID: run.runID, reader: try fixture.reader()))
        #expect(parity.registries == ["catalog", "web"])
        #expect(parity.compared == 36)
        #expect(parity.failsInAll == 3)  // checkout with rtl + landscape, in 3 locales
        #expect(parity.failsOnlyIn == ["catalog": 0, "web": 4])
        #expect(parity.agreeing == 36 - 3 - 4)
        #expect(parity.rows.prefix(4).allSatisfy { $0.kind == .failsOnlyIn && $0.scenarioID == "browse" && $0.failing == ["web"] })
        #expect(parity.rows.dropFirst(4).allSatisfy { $0.kind == .failsInAll && $0.scenarioID == "checkout" })
        #expect(parity.rows.allSatisfy { $0.partStep == 2 && $0.verdicts.map(\.registry) == ["catalog", "web"] })
        #expect(parity.headline.contains("disagree on 4 of 36"))
        #expect(parity.headline.contains("4 fail only in web (a renderer defect)"))
        #expect(parity.headline.contains("fail in every registry (a model defect)"))
    }

    @Test("a run on one registry has no parity")
    func singleRegistry() throws {
        let fixture = try StoreFixture()
        try fixture.write([Sweep.base()])
        #expect(try Parity.read(runID: Sweep.base().runID, reader: try fixture.reader()) == nil)
        let written = try WrittenReport()
        #expect(!written.html.contains("id=\"parity\""))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: written.files.summary)) as? [String: Any]
        #expect(summary?["registryParity"] == nil)
    }

    @Test("report.html: the renderers' sentence under both headlines and the section, each verdict linking its job")
    func htmlSection() throws {
        let written = try ParitySweep.written()
        let html = written.html
        #expect(html.contains("<p class=\"headline\" id=\"parity-headline\"><a href=\"#parity\">Renderers</a>: The registries disagree"))
        #expect(html.components(separatedBy: "<a href=\"#parity\">Renderers</a>").count == 3)
        let section = try #require(html.components(separatedBy: "<section class=\"block\" id=\"parity\">").last?
            .components(separatedBy: "</section>").first)
        let kinds = section.matches(of: /data-kind="([a-z-]+)"/).map { String($0.1) }
        #expect(kinds == Array(repeating: "fails-only-in", count: 4) + Array(repeating: "fails-in-all", count: kinds.count - 4))
        let browse = try #require(written.run.jobs.first { $0.registry == "web" && $0.scenarioID == "browse" && $0.plan == .fail })
        #expect(section.contains("<td data-registry=\"web\"><a href=\"#job=\(browse.jobID)\"><span class=\"chip s-failed\">"))
        #expect(section.contains("fails only in web"))
        #expect(section.contains("<td>step 3</td>"))
    }

    @Test("summary.json carries parity; with a baseline, parityChanges lists the fixed disagreements")
    func summaryAndChanges() throws {
        let base = ParitySweep.run()
        let head = ParitySweep.run(runID: "20261203-0100-qqqq", uiBug: false, start: 1_796_200_000)
        let written = try ParitySweep.written(baseline: base.runID, runs: [base, head], report: head.runID)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: written.files.summary)) as? [String: Any])
        let parity = try #require(summary["registryParity"] as? [String: Any])
        #expect((parity["failsOnlyIn"] as? [String: Int]) == ["catalog": 0, "web": 0])
        let changes = try #require(summary["registryParityChanges"] as? [String: Any])
        #expect((changes["fixedDisagreements"] as? [[String: Any]])?.count == 4)
        #expect((changes["newDisagreements"] as? [Any])?.isEmpty == true)
        let decoded = try JSONDecoder().decode(SummaryDocument.self, from: Data(contentsOf: written.files.summary))
        #expect(decoded.registryParityChanges?.fixedDisagreements.allSatisfy { $0.failing == ["web"] } == true)
    }

    @Test("diff: new disagreements one way, fixed the other, in text and JSON")
    func diffDisagreements() throws {
        let clean = ParitySweep.run(runID: "20261202-0100-aaaa", uiBug: false)
        let buggy = ParitySweep.run(runID: "20261203-0100-bbbb", uiBug: true, start: 1_796_200_000)
        let fixture = try StoreFixture()
        try fixture.write([clean, buggy])
        let reader = try fixture.reader()
        let worse = try RunDiff.compute(reader: reader, base: clean.runID, head: buggy.runID)
        #expect(worse.disagreements?.newDisagreements.count == 4)
        #expect(worse.disagreements?.fixedDisagreements.isEmpty == true)
        #expect(worse.text.contains("NEW DISAGREEMENTS (4)"))
        #expect(worse.text.contains("browse [direction=ltr,locale=ar,orientation=portrait]: fails only in web at step 3"))
        let better = try RunDiff.compute(reader: reader, base: buggy.runID, head: clean.runID)
        #expect(better.disagreements?.fixedDisagreements.count == 4)
        #expect(String(decoding: better.json(), as: UTF8.self).contains("\"fixedDisagreements\""))
        let single = try StoreFixture()
        try single.write([Sweep.base(), Sweep.base(runID: "20261130-0100-bbbb", at: Date(timeIntervalSince1970: 1_796_000_000))])
        #expect(try RunDiff.compute(reader: try single.reader(), base: Sweep.base().runID, head: "20261130-0100-bbbb")
            .disagreements == nil)
    }
}
