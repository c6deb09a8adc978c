import Foundation
import Reports
import Testing

@Suite("HTML report")
struct HTMLReportTests {
    @Test("the heat map has one cell per job; jobs that did not pass link to their panels, the rest are bare")
    func oneCellPerJob() throws {
        let written = try WrittenReport()
        #expect(occurrences(" data-job=\"", in: written.html) == 36)
        // No panel is in the page: every one is built from its chunk when opened.
        #expect(occurrences("<section class=\"job-panel\"", in: written.html) == 0)
        #expect(written.html.contains("<div id=\"panels\"></div>"))
        for job in written.run.jobs {
            #expect(written.html.contains("data-job=\"\(job.jobID)\""))
            switch job.plan {
            case .pass: #expect(written.html.contains("<a class=\"cell s-passed\" data-job=\"\(job.jobID)\"></a>"))
            default: #expect(written.html.contains("href=\"#job=\(job.jobID)\""))
            }
        }
        let failed = try written.job("checkout", "de-DE", "rtl", "landscape")
        #expect(written.html.contains("<a class=\"cell s-failed\" data-job=\"\(failed.jobID)\" data-status=\"failed\""))
        let flaky = try written.job("browse", "en-US", "ltr", "portrait")
        #expect(written.html.contains("data-job=\"\(flaky.jobID)\" data-status=\"flaky\""))
        #expect(written.html.contains("data-status=\"quarantined\""))
        #expect(written.html.contains("data-status=\"timedOut\""))
        #expect(written.html.contains("data-status=\"notRun\""))
        // Three header lines (one per axis) and three scenario rows, every column 24 px wide.
        #expect(written.html.contains("<span class=\"axis\">direction</span><span class=\"h\" data-span=\"6\" style=\"width:144px\" title=\"ltr\">ltr</span>"
            + "<span class=\"h\" data-span=\"6\" style=\"width:144px\" title=\"rtl\">rtl</span>"))
        #expect(occurrences("<div class=\"hr\" data-failing=", in: written.html) == 3)
    }

    @Test("a scenario titled <script>alert(1)</script> shows as text; the page runs only its own script")
    func escaping() throws {
        let written = try WrittenReport()
        #expect(!written.html.contains(Sweep.xssTitle))
        #expect(written.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // One inline script runs; the run's data block is JSON (axis names escaped), not executed.
        #expect(occurrences("<script>", in: written.html) == 1)
        #expect(occurrences("<script type=\"application/json\" id=\"run-data\">", in: written.html) == 1)
        #expect(occurrences("<script", in: written.html) == 2)
        #expect(occurrences("</script>", in: written.html) == 2)
        #expect(written.html.contains("script-src &#39;sha256-"))
        // The chunks carry the title as a JSON string inside gzip inside a base64 string literal: never markup.
        let xss = try written.job("xss", "ar", "rtl", "landscape")
        #expect(try written.jobData(xss.jobID)[1] as? String == Sweep.xssTitle)
        for url in written.files.chunks {
            let script = try String(contentsOf: url, encoding: .utf8)
            #expect(script.allSatisfy { $0.isLetter || $0.isNumber || "FM.chunk(,\"+/=);\n".contains($0) })
        }
        // No network: nothing is fetched from anywhere but the report folder.
        #expect(!written.html.contains("http://") && !written.html.contains("https://"))
        #expect(written.html.contains("default-src &#39;none&#39;"))
    }

    @Test("a title and a failure message with a right-to-left override show it as [U+202E]: 'evil' cannot read 'live'")
    func bidiOverride() throws {
        var run = Sweep.base()
        let index = try #require(run.jobs.firstIndex { $0.scenarioID == "checkout" && $0.plan == .fail })
        run.jobs[index].message = "total \u{202E}live\u{202C} shown"
        run.jobs[index].title = "Check \u{2067}out"
        let written = try WrittenReport(runs: [run], report: run.runID)
        // The page builds the panel from the job's chunk data, which carries the visible form.
        let data = "\(try written.jobData(run.jobs[index].jobID))"
        #expect(data.contains("total [U+202E]live[U+202C] shown"), "\(data)")
        #expect(data.contains("Check [U+2067]out"), "\(data)")
        for scalar in ["\u{202E}", "\u{202C}", "\u{2067}"] {
            #expect(!written.html.contains(scalar), "a raw bidi control reached the page")
            #expect(!data.contains(scalar), "a raw bidi control reached the panel data")
        }
    }

    @Test("run metadata: matrix, seed, counts, duration, workers, jobs per second")
    func metadata() throws {
        let written = try WrittenReport()
        let html = written.html
        #expect(html.contains("locale-rtl-sweep"))
        #expect(html.contains("Matrices/locale-rtl-sweep.json"))
        #expect(html.contains(String(Nightly.base.seed)))
        #expect(html.contains("data-count=\"failed\">failed: 3</span>"))
        #expect(html.contains("data-count=\"flaky\">flaky: 1</span>"))
        #expect(html.contains("data-count=\"timedOut\">timed out: 1</span>"))
        #expect(html.contains("data-count=\"quarantined\">quarantined: 1</span>"))
        #expect(html.contains("data-count=\"notRun\">not run: 1</span>"))
        #expect(html.contains("data-count=\"passed\">passed: 29</span>"))
        #expect(html.contains("<dt>Workers</dt><dd id=\"run-workers\">4: worker-1, worker-2, worker-a, worker-b</dd>"))
        #expect(html.contains("<dt>Jobs/s</dt>"))
        #expect(html.contains("<dt>Duration</dt>"))
        #expect(html.contains("&quot;workers&quot; : 2"))
    }

    @Test("the pivot says which axis values the failures follow")
    func pivot() throws {
        let written = try WrittenReport()
        #expect(written.html.contains(
            "4 failures follow exactly scenario=checkout + direction=rtl + orientation=landscape (3 of 3 jobs fail); 1 other failure."))
        let values = "[[&quot;scenario&quot;,&quot;checkout&quot;],[&quot;direction&quot;,&quot;rtl&quot;],"
            + "[&quot;orientation&quot;,&quot;landscape&quot;]]"
        #expect(written.html.contains(
            "<tr data-group=\"scenario=checkout + direction=rtl + orientation=landscape\" data-values=\"\(values)\">"))
        #expect(written.html.contains(
            "<tr data-pattern=\"scenario=checkout + direction=rtl + orientation=landscape\" data-values=\"\(values)\">"))
        #expect(written.html.contains("data-axis=\"direction\""))
        #expect(written.html.contains("data-axis=\"locale\""))
    }

    @Test("a failed job's panel data: attempts with workers, step timeline, failing step and message, interruptions, artifacts")
    func failedPanel() throws {
        let written = try WrittenReport()
        let job = try written.job("checkout", "ar", "rtl", "landscape")
        let entry = try written.jobData(job.jobID)
        #expect(entry[0] as? String == "checkout")
        #expect(entry[1] as? String == "Check out")
        #expect(entry[3] as? String == "failed")
        #expect(entry[5] as? [String] == ["rtl", "ar", "landscape"])
        #expect(entry[6] as? Int == 2)
        #expect(entry[7] as? String == "expected 'Total' to be visible; it is clipped at the trailing edge")
        let attempts = try #require(entry[8] as? [[Any]])
        #expect(attempts.map { $0[1] as? String } == ["worker-a", "worker-b"])
        #expect(attempts.map { $0[2] as? String } == ["failed", "failed"])
        #expect(attempts.map { $0[6] as? Int } == [2, 2])
        let steps = try #require(attempts[0][8] as? [[Any]])
        #expect(steps.map { $0[1] as? String } == Array(FixtureRun.steps.prefix(3)))
        #expect(steps[2][2] as? String == "failed")
        #expect(steps[0][5] as? String == "alert 'Allow notifications?' dismissed")
        // Wireframe first, then the snapshot, then the log; all carried.
        let refs = try #require(attempts[1][9] as? [[Any]])
        #expect(refs.map { $0[1] as? String } == ["wireframe.png", "surface.json", "log.txt"])
        #expect(refs.map { $0[7] as? String } == ["image", "json", "text"])
        #expect(refs.allSatisfy { $0[0] as? Int == 2 && ($0[5] as? [Int])?.first == 0 })
    }

    @Test("a flaky job's panel data shows the failed attempt and the passing retry on another worker")
    func flakyPanel() throws {
        let written = try WrittenReport()
        let job = try written.job("browse", "en-US", "ltr", "portrait")
        let entry = try written.jobData(job.jobID)
        let attempts = try #require(entry[8] as? [[Any]])
        #expect(attempts.map { $0[1] as? String } == ["worker-a", "worker-b"])
        #expect(attempts.map { $0[2] as? String } == ["failed", "passed"])
        #expect((attempts[0][9] as? [[Any]])?.first?[0] as? Int == 1)
        #expect(entry[6] is NSNull)
    }

    @Test("with a baseline, the report has a changes section and marks new failures on the heat map")
    func baselineSection() throws {
        let written = try WrittenReport(baseline: "last", runs: [Nightly.base, Nightly.head], report: Nightly.headID)
        let html = written.html
        #expect(html.contains("<section class=\"block\" id=\"baseline\" data-base=\"\(Nightly.base.runID)\">"))
        #expect(html.contains("<table class=\"grid\" data-category=\"newFailures\">"))
        #expect(html.contains("<table class=\"grid\" data-category=\"removed\">"))
        let newFailure = try written.job("browse", "ar", "rtl", "portrait")
        #expect(html.contains("<a class=\"cell s-failed new\" data-job=\"\(newFailure.jobID)\""))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: written.files.summary)) as? [String: Any]
        let baseline = summary?["baseline"] as? [String: Any]
        #expect(baseline?["runID"] as? String == Nightly.base.runID)
        #expect((baseline?["categories"] as? [String: [String]])?["newFailures"]?.count == 4)
    }

    @Test("every job's panel data is in exactly one chunk, the one its id hashes to; a passed job with its steps")
    func chunks() throws {
        let written = try WrittenReport()
        #expect(written.files.chunks.count == 1)
        #expect(written.html.contains("\"axes\":[\"direction\",\"locale\",\"orientation\"],"))
        #expect(written.html.contains("\"chunks\":1,\"v\":2}"))
        let jobs = try written.chunkJobs()
        #expect(Set(jobs.keys) == Set(written.run.jobs.map(\.jobID)))
        // A passed checkout job: one attempt on worker-a with four steps, the first with its interruption.
        let passed = try written.job("checkout", "en-US", "ltr", "portrait")
        let entry = try #require(jobs[passed.jobID])
        #expect(entry[1] as? String == "Check out")
        #expect(entry[3] as? String == "passed")
        let attempts = try #require(entry[8] as? [[Any]])
        #expect(attempts.count == 1)
        #expect(attempts[0][1] as? String == "worker-a")
        let steps = try #require(attempts[0][8] as? [[Any]])
        #expect(steps.map { $0[1] as? String } == FixtureRun.steps)
        #expect(steps[0][5] as? String == "alert 'Allow notifications?' dismissed")
        // Durations in whole microseconds: 1 s over four steps.
        #expect(steps[0][3] as? Int == 250_000)
    }
}
