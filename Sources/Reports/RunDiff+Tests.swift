import FlowVocabulary
import Journal
import MatrixPlan

extension RunDiff {
    /// One test of a command job (a step keyed `test:…`, docs/COMMAND-JOBS.md) whose verdict differs between runs.
    public struct TestChange: Sendable, Hashable, Codable {
        public var jobID: String
        public var scenarioID: String
        public var configuration: String
        /// The test's name (`classname.name`).
        public var test: String
        /// `passed`, `failed`, `flaky`, `timedOut` or `notRun`; nil when the run does not have the test.
        public var baseStatus: String?
        public var headStatus: String?
        /// The head's (or, for a fixed test, the base's) failure message.
        public var message: String?

        var line: String {
            "\(jobID)  \(scenarioID) [\(configuration.isEmpty ? "-" : configuration)]  \(test)  "
                + "\(baseStatus ?? "absent") -> \(headStatus ?? "absent")" + (message.map { "  (\($0))" } ?? "")
        }
    }

    /// Command jobs' tests compared one by one, for jobs in both runs: the same categories as for jobs.
    public struct TestChanges: Sendable, Hashable, Codable {
        public var newFailures: [TestChange] = []
        public var fixed: [TestChange] = []
        public var newlyFlaky: [TestChange] = []
        public var noLongerFlaky: [TestChange] = []
        public var added: [TestChange] = []
        public var removed: [TestChange] = []

        public var isEmpty: Bool {
            newFailures.isEmpty && fixed.isEmpty && newlyFlaky.isEmpty && noLongerFlaky.isEmpty && added.isEmpty && removed.isEmpty
        }

        /// The non-empty categories with their titles, in display order.
        var sections: [(title: String, changes: [TestChange])] {
            [("TESTS: NEW FAILURES", newFailures), ("TESTS: NEWLY FLAKY", newlyFlaky), ("TESTS: FIXED", fixed),
             ("TESTS: NO LONGER FLAKY", noLongerFlaky), ("TESTS: ADDED", added), ("TESTS: REMOVED", removed)]
                .filter { !$0.1.isEmpty }
        }
    }

    /// A test's status for `diff`: its junit.xml verdict (``TestVerdict``, over the job's attempts and within what its
    /// job's outcome allows), with a timed-out last run kept apart from a failed one.
    static func testStatus(_ outcomes: [StepOutcome], job: CellStatus) -> CellStatus {
        switch TestVerdict(outcomes, job: job) {
        case .passed: .passed
        case .flaky: .flaky
        case .failure: .failed
        case .error: outcomes.last == .timedOut ? .timedOut : .failed
        case .skipped: .notRun
        }
    }

    /// Each test of a command job (`row`) in run `runID` with its verdict and message, from the journal: its last
    /// failing run's message (a flaky test's failure says why), else its last run's.
    static func tests(reader: JournalReader, run runID: String, job row: JobRow)
        throws -> [String: (status: CellStatus, message: String?)]
    {
        let jobID = row.job.jobID
        let attempts = try reader.attempts(run: runID, job: jobID).filter { $0.result != nil && $0.result?.superseded != true }
        let steps = try attempts.map { try reader.steps(run: runID, job: jobID, attempt: $0.attempt) }
        var out: [String: (status: CellStatus, message: String?)] = [:]
        for test in CommandJobTests.runs(Array(steps.indices), steps: { steps[$0] }) {
            let failing = test.runs.last { TestVerdict.failing.contains($0.step.outcome) }
            out[test.name] = (testStatus(test.runs.map(\.step.outcome), job: CellStatus(row)),
                              (failing ?? test.runs.last)?.step.message)
        }
        return out
    }

    /// Compares the tests of the command jobs that both runs have.
    /// - Parameter commandJobs: head's command jobs that base has too, with base's, in plan order.
    static func testChanges(reader: JournalReader, base: String, head: String, commandJobs: [(head: JobRow, base: JobRow)])
        throws -> TestChanges
    {
        var changes = TestChanges()
        for (row, old) in commandJobs {
            let before = try tests(reader: reader, run: base, job: old)
            let after = try tests(reader: reader, run: head, job: row)
            for name in Set(before.keys).union(after.keys).sorted() {
                let b = before[name], h = after[name]
                var change = TestChange(jobID: row.job.jobID, scenarioID: row.job.scenarioID, configuration: row.job.configuration,
                                        test: name, baseStatus: b?.status.rawValue, headStatus: h?.status.rawValue,
                                        message: h?.message ?? b?.message)
                let failing: (CellStatus?) -> Bool = { $0 == .failed || $0 == .timedOut }
                switch (b?.status, h?.status) {
                case (nil, _): changes.added.append(change)
                case (_, nil): changes.removed.append(change)
                case let (was, now) where failing(now) && !failing(was): changes.newFailures.append(change)
                case let (was, now) where failing(was) && (now == .passed || now == .flaky):
                    change.message = b?.message
                    changes.fixed.append(change)
                case (.passed?, .flaky?), (.notRun?, .flaky?): changes.newlyFlaky.append(change)
                case (.flaky?, .passed?): changes.noLongerFlaky.append(change)
                default: break
                }
            }
        }
        return changes
    }
}
