import Foundation
import Journal
@testable import Reports
import Testing

/// "Fails only in Chromium" (a renderer's defect) and "fails in both" (a model defect) read differently in the pivot:
/// a run on several registries pivots by registry, and its sentence says what each exact pattern means.
@Suite("Failures by axis on several registries: the registry is a pivot dimension")
struct ParityPivotTests {
    @Test("the registry has its own axis table, and each pattern says whether one renderer or every one fails")
    func registryPivot() throws {
        let run = ParitySweep.run()
        let fixture = try StoreFixture()
        try fixture.write([run])
        let index = try RunIndex(runID: run.runID, reader: try fixture.reader(), totals: false)
        let pivot = try AxisPivot.compute(index)
        let table = try #require(pivot.axes.first { $0.axis == AxisPivot.registryAxis })
        #expect(table.values.map { "\($0.values[0].value) \($0.failures)/\($0.jobs)" } == ["catalog 3/36", "web 7/36"])
        let labels = pivot.explanations.map(\.group.label)
        #expect(labels.contains("scenario=checkout + direction=rtl + orientation=landscape"), "\(labels)")
        #expect(labels.contains("scenario=browse + locale=ar + registry=web"), "\(labels)")
        #expect(pivot.explanations.allSatisfy { $0.exact })
        let headline = pivot.headline
        #expect(headline.contains("exactly scenario=browse + locale=ar + registry=web (4 of 4 jobs fail): fails only in web, a renderer defect"), "\(headline)")
        #expect(headline.contains("exactly scenario=checkout + direction=rtl + orientation=landscape (6 of 6 jobs fail): fails in every registry, a model defect"), "\(headline)")
    }

    @Test("one registry: no registry table and no renderer wording")
    func singleRegistry() throws {
        let fixture = try StoreFixture()
        try fixture.write([Sweep.base()])
        let pivot = try AxisPivot.compute(try RunIndex(runID: Sweep.base().runID, reader: try fixture.reader(), totals: false))
        #expect(!pivot.axes.contains { $0.axis == AxisPivot.registryAxis })
        #expect(!pivot.headline.contains("defect"))
    }

    @Test("report.html: the registry table in Failures by axis, evidence rows under the disagreements only")
    func htmlAndSummary() throws {
        let written = try ParitySweep.written()
        let html = written.html
        #expect(html.contains("<table class=\"grid axis-table\" data-axis=\"registry\">"))
        let section = try #require(html.components(separatedBy: "<section class=\"block\" id=\"parity\">").last?
            .components(separatedBy: "</section>").first)
        let evidence = section.matches(of: /<details class="parity-evidence"( open)? data-step="(\d+)" data-sides="([^"]*)"/)
        #expect(evidence.count == 4)
        #expect(evidence.allSatisfy { $0.1 != nil && $0.2 == "2" })
        let browse = written.run.jobs.filter { $0.scenarioID == "browse" && $0.plan == .fail }
        for job in browse {
            let partner = try #require(written.run.jobs.first {
                $0.registry == "catalog" && $0.scenarioID == "browse" && $0.canonical == job.canonical
            })
            let sides = "[[&quot;catalog&quot;,&quot;\(partner.jobID)&quot;],[&quot;web&quot;,&quot;\(job.jobID)&quot;]]"
            #expect(evidence.contains { $0.3 == sides }, "\(sides)")
        }
        // Where the time went per registry: summary.json and the run's metadata.
        let summary = try JSONDecoder().decode(SummaryDocument.self, from: Data(contentsOf: written.files.summary))
        let times = try #require(summary.registryTimes)
        #expect(times.registries.map(\.registry) == ["catalog", "web"])
        #expect(times.registries.allSatisfy { $0.jobs == 36 && $0.attempts >= 36 && $0.attemptSeconds > 0 })
        #expect(abs(times.registries.map(\.share).reduce(0, +) - 1) < 1e-9)
        #expect(written.files.registryTimes == times)
        #expect(html.contains(Escape.html(times.line)))
    }
}
