/// The tests of a command job that did not pass in some attempt, as `summary.json` lists them on the job's entry
/// (`tests`): what each test's verdict is by junit.xml's rules, its outcome in each attempt, and its own assertion
/// text — so a reader sees "test_label_fits_button: AssertionError: 'Bestellen' is wider than its button", not only
/// that the job failed.
extension SummaryDocument {
    public struct TestRecord: Sendable, Hashable, Codable {
        /// `<classname>.<name>`, as in junit.xml.
        public var name: String
        /// `failed`, `errored` or `flaky` (junit.xml's `<failure>`, `<error>`, or a rerun that passed).
        public var verdict: String
        /// The test's step outcome in each attempt that ran it, in attempt order.
        public var outcomes: [String]
        /// The last failing run's message (the assertion text from the result file).
        public var message: String?
    }

    /// The job's tests that did not pass in some attempt, in order of first appearance; nil when there are none (every
    /// scenario job, and command jobs whose tests all passed).
    static func testRecords(_ job: JobReport) -> [TestRecord]? {
        let records = JUnitReport.tests(of: job).compactMap { test -> TestRecord? in
            let outcomes = test.runs.map(\.step.outcome)
            let verdict: String
            switch TestVerdict(outcomes, job: job.status) {
            case .passed, .skipped: return nil
            case .flaky: verdict = "flaky"
            case .failure: verdict = "failed"
            case .error: verdict = "errored"
            }
            let failing = test.runs.last { TestVerdict.failing.contains($0.step.outcome) }
            return TestRecord(name: test.name, verdict: verdict, outcomes: outcomes.map(\.rawValue),
                              message: failing?.step.message)
        }
        return records.isEmpty ? nil : records
    }
}
