import Artifacts
import FlowVocabulary
import Foundation
import Journal
import Reports

/// A web run for the job panel's review views: one scenario of four steps in three locales, with a screenshot
/// and the elements on screen (`elements.json`) after every step of every attempt, as the web registry stores them.
///
/// - `en` passes (its evidence is not carried: the strip says no picture was kept).
/// - `de` fails at step 3 (index 2): `checkout.pay` is on screen but clipped (the overlay outlines it).
/// - `ar` fails at step 3: `checkout.pay` is not on screen; `checkout.pay-button` is (did you mean).
/// `de`'s second attempt also carries screencast frames (three per step), as the web registry's recording.
enum ReviewFixture {
    static let steps = ["open:/checkout", "tap:cart.open", "assert:checkout.pay", "tap:checkout.pay"]
    static let locales = ["en", "de", "ar"]
    /// Viewport (and screenshot) size in CSS pixels.
    static let width = 320, height = 240

    static func job(_ locale: String) -> FixtureJob {
        FixtureJob(scenarioID: "checkout", title: "Check out", configuration: [("locale", locale), ("window", "phone")],
                   registry: "web", plan: locale == "en" ? .pass : .fail)
    }

    static var run: FixtureRun {
        FixtureRun(runID: "20261205-0900-review", startedAt: Date(timeIntervalSince1970: 1_796_547_600), matrixName: "review",
                   jobs: locales.map(job))
    }

    /// The elements on screen after step `step` in `locale`: ids and boxes, as the web registry's snapshot gives them.
    static func elements(locale: String, step: Int) -> [(id: String, box: [Double], text: String)] {
        var out: [(String, [Double], String)] = [("cart.total", [16, 20, 120, 24], "Total"), ("checkout.back", [16, 196, 90, 28], "Back")]
        if step >= 1 {
            out.append(locale == "ar" ? ("checkout.pay-button", [200, 150, 104, 32], "ادفع")
                                      : ("checkout.pay", [200, 150, 104, 32], locale == "de" ? "Bezahlen" : "Pay"))
        }
        return out
    }

    static func elementsJSON(locale: String, step: Int) -> String {
        let list = elements(locale: locale, step: step).map { e in
            #"{"id":"\#(e.id)","box":[\#(e.box.map { String(Int($0)) }.joined(separator: ","))],"text":"\#(e.text)"}"#
        }
        return #"{"viewport":[\#(width),\#(height)],"elements":[\#(list.joined(separator: ","))]}"#
    }

    /// Writes the run into a fresh store and writes its report.
    static func written() throws -> (fixture: StoreFixture, files: ReportFiles) {
        let fixture = try StoreFixture()
        let writer = try JournalWriter(path: fixture.journalPath)
        try writer.submit(try records(store: fixture.store))
        try writer.close()
        let rejected = writer.takeRejections()
        if !rejected.isEmpty { throw FixtureError("journal rejected \(rejected)") }
        let files = try ReportWriter.write(runID: run.runID, reader: try fixture.reader(), blobsRoot: fixture.directory,
                                           into: fixture.runFolder(run.runID))
        return (fixture, files)
    }

    static func records(store: BlobStore) throws -> [JournalRecord] {
        let run = run
        var records: [JournalRecord] = [
            .runStarted(RunInfo(runID: run.runID, matrixName: run.matrixName, matrixPath: "Matrices/review.json", seed: 1,
                                startedAt: run.startedAt)),
            .jobsPlanned(runID: run.runID, jobs: run.jobs.map(\.planned)),
        ]
        var clock = run.startedAt
        for (j, locale) in locales.enumerated() {
            let job = job(locale), fails = locale != "en"
            for attempt in 1...(fails ? 2 : 1) {
                records.append(.attemptStarted(runID: run.runID, jobID: job.jobID, attempt: attempt, worker: "w1", at: clock))
                let last = fails ? 2 : steps.count - 1
                for (i, key) in steps.enumerated() where i <= last {
                    let failing = fails && i == 2
                    let message = locale == "ar" ? "no element matches [data-testid=\"checkout.pay\"]"
                        : "checkout.pay: text is clipped ('Bezahlen' needs 131 px, has 104 px)"
                    records.append(.stepRecorded(runID: run.runID, jobID: job.jobID, attempt: attempt, step: StepResult(
                        index: i, key: key, outcome: failing ? .failed : .passed, duration: 0.25, message: failing ? message : nil)))
                    var pieces: [(String, String, [UInt8])] = [
                        ("screenshot.png", "image/png", PNG.checkerboard(width: width - 8 * i - j, height: height)),
                        ("elements.json", "application/json", Array(elementsJSON(locale: locale, step: i).utf8)),
                    ]
                    if locale == "de" && attempt == 2 {
                        for f in 0..<3 {
                            pieces.append(("screencast-\(String(format: "%04d", i * 3 + f)).jpg", "image/png",
                                           PNG.checkerboard(width: 160 - i * 3 - f, height: 120)))
                        }
                    }
                    let sink = ArtifactSink()
                    for (name, type, bytes) in pieces {
                        let artifact = try sink.attach(name: name, mediaType: type, bytes: bytes, step: i)
                        try store.store(artifact)
                        records.append(.artifactStored(runID: run.runID, jobID: job.jobID, attempt: attempt, artifact: ArtifactReference(
                            stepIndex: i, name: name, mediaType: type, sha256: artifact.sha256,
                            compressedSize: artifact.compressedSize, rawSize: artifact.rawSize)))
                    }
                }
                clock = clock.addingTimeInterval(1)
                records.append(.attemptFinished(runID: run.runID, jobID: job.jobID, attempt: attempt, result: AttemptResult(
                    outcome: fails ? .failed : .passed, finishedAt: clock, duration: 1, failureStep: fails ? 2 : nil,
                    message: fails ? "step failed" : nil)))
            }
            records.append(.jobFinished(runID: run.runID, jobID: job.jobID, result: JobResult(
                outcome: fails ? .failed : .passed, attempts: fails ? 2 : 1, duration: 1, failureStep: fails ? 2 : nil,
                failureMessage: fails ? "step failed" : nil, finishedAt: clock)))
        }
        records.append(.runFinished(runID: run.runID, status: .completed, at: clock.addingTimeInterval(1)))
        return records
    }
}
