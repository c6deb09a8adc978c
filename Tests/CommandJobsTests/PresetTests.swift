@testable import CommandJobs
import Foundation
import MatrixPlan
import Testing
import Worker

/// The documented presets (Workers/CommandSamples, docs/COMMAND-JOBS.md) that cannot run here (no Mac, no npm):
/// checked by the argv and environment their jobs get.
@Suite("xcodebuild and Playwright presets")
struct PresetTests {
    static func invocation(_ file: String, where wanted: [String: String], item: String? = nil) throws
        -> (CommandInvocation, output: String)
    {
        let (plan, findings) = MatrixPlanner.load(matrixAt: Samples.root.appendingPathComponent(file))
        #expect(findings.isEmpty, "\(findings)")
        let jobs = try #require(plan).jobs
        let job = try #require(jobs.first { job in
            wanted.allSatisfy { job.configuration[$0.key] == $0.value } && (item == nil || job.scenario.title == item)
        }, "no job with \(wanted) among \(jobs.map(\.configuration.canonicalString))")
        #expect(job.registry == CommandTemplate.registry)
        let command = try CommandJob.decode(job.scenario.steps[0].arg)
        let context = JobContext(jobID: job.id, attempt: 1, configuration: job.configuration.values, seed: 1,
                                 timeout: .seconds(60), scenario: job.scenario)
        let output = "/tmp/out/\(job.id)/attempt-1"
        return (command.invocation(PlaceholderValues(context: context, item: command.item, output: output), inherited: [:]),
                output)
    }

    @Test("xcodebuild test-without-building gets -testLanguage/-testRegion and the app's launch arguments")
    func xcodebuild() throws {
        let (run, output) = try Self.invocation("xcuitest-locales.json", where: ["locale": "ar-SA", "direction": "auto"],
                                               item: "CartTests")
        #expect(run.argv == ["sh", "xcuitest.sh", output, "-only-testing:CatalogUITests/CartTests",
                             "-testLanguage", "ar", "-testRegion", "SA"])
        #expect(run.environment["TEST_RUNNER_APP_LAUNCH_ARGUMENTS"] == "-AppleLanguages (ar-SA) -AppleLocale ar_SA")
        #expect(run.environment["TEST_RUNNER_APP_WINDOW"] != nil)
        #expect(run.timeout == .seconds(1800))
        let (pseudo, _) = try Self.invocation("xcuitest-locales.json", where: ["locale": "de", "direction": "pseudo-double"],
                                             item: "SearchTests")
        #expect(pseudo.argv.suffix(4) == ["-testLanguage", "de", "-testRegion", "DE"])
        #expect(pseudo.environment["TEST_RUNNER_APP_LAUNCH_ARGUMENTS"]
            == "-AppleLanguages (de) -AppleLocale de_DE -NSDoubleLocalizedStrings YES")
    }

    @Test("Playwright gets its project, the JUnit reporter's output file and the configuration in its environment")
    func playwright() throws {
        let (run, output) = try Self.invocation("playwright-locales.json", where: ["locale": "ar"])
        let browser = try #require(run.argv.first { $0.hasPrefix("--project=") })
        #expect(["--project=chromium", "--project=firefox", "--project=webkit"].contains(browser))
        #expect(run.argv == ["npx", "playwright", "test", browser, "--reporter=junit"])
        #expect(run.environment["PLAYWRIGHT_JUNIT_OUTPUT_NAME"] == output + "/junit.xml")
        #expect(run.environment["APP_LOCALE"] == "ar")
        #expect(["390x844", "1280x800"].contains(run.environment["APP_VIEWPORT"] ?? ""))
        #expect(run.workingDirectory == "web-tests")
    }
}
