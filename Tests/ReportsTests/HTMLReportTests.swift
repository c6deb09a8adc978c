import Foundation
import Reports
import Testing

@Suite("HTML report")
struct HTMLReportTests {
    @Test("the heat map has one cell per job; jobs that did not pass link to panels in the page, the rest are bare")
    func oneCellPerJob() throws {
        let written = try WrittenReport()
        #expect(occurrences(" data-job=\"", in: written.html) == 36)
        // Failed ×3, flaky, timed out, quarantined: in the page. Passed ×29 and not run: in the data island.
        #expect(occurrences("<section class=\"job-panel\"", in: written.html) == 6)
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
        // Three header rows (one per axis) and three scenario rows.
        #expect(written.html.contains("<th class=\"axis\">direction</th><th colspan=\"6\">ltr</th><th colspan=\"6\">rtl</th>"))
        #expect(occurrences("<tr data-failing=", in: written.html) == 3)
    }

    @Test("a scenario titled <script>alert(1)</script> shows as text; the page runs only its own script")
    func escaping() throws {
        let written = try WrittenReport()
        #expect(!written.html.contains(Sweep.xssTitle))
        #expect(written.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // One script runs; the data island is JSON with `<` escaped, so no tag can close it early.
        #expect(occurrences("<script>", in: written.html) == 1)
        #expect(occurrences("<script type=\"application/json\" id=\"job-data\">", in: written.html) == 1)
        #expect(occurrences("<script", in: written.html) == 2)
        #expect(occurrences("</script>", in: written.html) == 2)
        #expect(try written.island().contains("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"))
        #expect(written.html.contains("script-src &#39;sha256-"))
        // Logs are text too.
        #expect(written.html.contains("&lt;b&gt;not bold&lt;/b&gt;"))
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
        let panel = try written.panel(run.jobs[index].jobID)
        #expect(panel.contains("total [U+202E]live[U+202C] shown"))
        #expect(panel.contains("Check [U+2067]out"))
        for scalar in ["\u{202E}", "\u{202C}", "\u{2067}"] {
            #expect(!written.html.contains(scalar), "a raw bidi control reached the page")
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
        #expect(html.contains("<dt>Workers</dt><dd>4: worker-1, worker-2, worker-a, worker-b</dd>"))
        #expect(html.contains("<dt>Jobs/s</dt>"))
        #expect(html.contains("<dt>Duration</dt>"))
        #expect(html.contains("&quot;workers&quot; : 2"))
    }

    @Test("the pivot says which axis values the failures follow")
    func pivot() throws {
        let written = try WrittenReport()
        #expect(written.html.contains(
            "4 failures follow scenario=checkout + direction=rtl + orientation=landscape (3 of 3 jobs fail); 1 other failure."))
        let values = "[[&quot;scenario&quot;,&quot;checkout&quot;],[&quot;direction&quot;,&quot;rtl&quot;],"
            + "[&quot;orientation&quot;,&quot;landscape&quot;]]"
        #expect(written.html.contains(
            "<tr data-group=\"scenario=checkout + direction=rtl + orientation=landscape\" data-values=\"\(values)\">"))
        #expect(written.html.contains(
            "<tr data-pattern=\"scenario=checkout + direction=rtl + orientation=landscape\" data-values=\"\(values)\">"))
        #expect(written.html.contains("data-axis=\"direction\""))
        #expect(written.html.contains("data-axis=\"locale\""))
    }

    @Test("a failed job's panel: attempts with workers, step timeline, failing step and message, interruptions, artifacts")
    func failedPanel() throws {
        let written = try WrittenReport()
        let job = try written.job("checkout", "ar", "rtl", "landscape")
        let panel = try written.panel(job.jobID)
        #expect(panel.contains("Check out"))
        #expect(panel.contains("<p class=\"failure\" data-failure-step=\"2\"><strong>step 2 (expect &#39;Total&#39; visible):"
            + " expected &#39;Total&#39; to be visible; it is clipped at the trailing edge</strong></p>"))
        #expect(panel.contains("Attempt 1: failed on worker <span class=\"mono\">worker-a</span>"))
        #expect(panel.contains("Attempt 2: failed on worker <span class=\"mono\">worker-b</span>"))
        #expect(occurrences("<tr class=\"step failing\" data-step=\"2\">", in: panel) == 2)
        #expect(occurrences("<tr class=\"step\" data-step=\"", in: panel) == 4)
        #expect(panel.contains("interruptions handled: alert &#39;Allow notifications?&#39; dismissed"))
        #expect(panel.contains("1 with interruptions handled"))
        #expect(panel.contains("<img data-artifact=\"wireframe.png\" src=\"artifacts/\(job.jobID)/a1/s2-wireframe.png\""))
        #expect(panel.contains("<img data-artifact=\"wireframe.png\" src=\"artifacts/\(job.jobID)/a2/s2-wireframe.png\""))
        // The deciding attempt's failing-step wireframe also sits right under the failure message.
        #expect(panel.contains("data-failing-step=\"2\" src=\"artifacts/\(job.jobID)/a2/s2-wireframe.png\""))
        #expect(panel.contains("wireframe.png at the failing step 2, attempt 2"))
        // The snapshot is pretty-printed JSON, open under the failing step; the log is its text.
        #expect(panel.contains("<details class=\"artifact\" data-kind=\"json\" open>"))
        #expect(panel.contains("&quot;clipped&quot; : true"))
        #expect(panel.contains("attempt 1 step 2: expected &#39;Total&#39;"))
        #expect(panel.contains("href=\"artifacts/\(job.jobID)/a1/s2-surface.json\""))
    }

    @Test("a flaky job's panel shows the failed attempt and the passing retry on another worker")
    func flakyPanel() throws {
        let written = try WrittenReport()
        let job = try written.job("browse", "en-US", "ltr", "portrait")
        let panel = try written.panel(job.jobID)
        #expect(panel.contains("Attempt 1: failed on worker <span class=\"mono\">worker-a</span>"))
        #expect(panel.contains("Attempt 2: passed on worker <span class=\"mono\">worker-b</span>"))
        #expect(panel.contains("s1-wireframe.png"))
        #expect(!panel.contains("data-failure-step"))
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

    @Test("passed and not-run jobs are carried by the data island with their attempts and steps, the others are not")
    func dataIsland() throws {
        let written = try WrittenReport()
        let island = try #require(try JSONSerialization.jsonObject(with: Data(written.island().utf8)) as? [String: Any])
        let jobs = try #require(island["jobs"] as? [String: [Any]])
        let strings = try #require(island["strings"] as? [String])
        let carried = Set(written.run.jobs.filter { $0.plan == .pass || $0.plan == .cancelled }.map(\.jobID))
        #expect(Set(jobs.keys) == carried)
        #expect(carried.count == 30)
        for job in written.run.jobs where !carried.contains(job.jobID) {
            #expect(written.html.contains("<section class=\"job-panel\" id=\"job-\(job.jobID)\""))
        }
        #expect(island["axes"] as? [String] == ["direction", "locale", "orientation"])
        // A passed checkout job: one attempt on worker-a with four steps, the first with its interruption.
        let passed = try written.job("checkout", "en-US", "ltr", "portrait")
        let entry = try #require(jobs[passed.jobID])
        #expect(strings[try #require(entry[1] as? Int)] == "Check out")
        #expect(strings[try #require(entry[3] as? Int)] == "passed")
        let attempts = try #require(entry[8] as? [[Any]])
        #expect(attempts.count == 1)
        #expect(strings[try #require(attempts[0][1] as? Int)] == "worker-a")
        let steps = try #require(attempts[0][8] as? [[Any]])
        #expect(steps.count == 4)
        #expect(steps.map { strings[($0[1] as? Int) ?? 0] } == FixtureRun.steps)
        #expect(strings[try #require(steps[0][5] as? Int)] == "alert 'Allow notifications?' dismissed")
        // Durations in whole microseconds: 1 s over four steps.
        #expect(steps[0][3] as? Int == 250_000)
    }
}
