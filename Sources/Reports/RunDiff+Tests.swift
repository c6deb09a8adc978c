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

    /// A test's verdict over a job's attempts, in attempt order: the last attempt that ran it decides; a failure
    /// before a final pass makes it flaky.
    static func testStatus(_ outcomes: [StepOutcome]) -> CellStatus {
        guard let last = outcomes.last else { return .notRun }
        let failedBefore = outcomes.dropLast().contains { $0 == .failed || $0 == .timedOut }
        switch last {
        case .passed: return failedBefore ? .flaky : .passed
        case .failed, .errored, .lost: return .failed
        case .timedOut: return .timedOut
        case .skipped, .cancelled: return .notRun
        }
    }

    /// Each test of a command job in run `runID` with its verdict and last message, from the journal.
    static func tests(reader: JournalReader, run runID: String, job jobID: String)
        throws -> [String: (status: CellStatus, message: String?)]
    {
        var outcomes: [String: [StepOutcome]] = [:], messages: [String: String?] = [:]
        for attempt in try reader.attempts(run: runID, job: jobID)
        where attempt.result != nil && attempt.result?.superseded != true {
            for step in try reader.steps(run: runID, job: jobID, attempt: attempt.attempt)
            where CommandTemplate.isTestStep(step.key) {
                let name = String(step.key.dropFirst(CommandTemplate.testStepPrefix.count))
                outcomes[name, default: []].append(step.outcome)
                messages[name] = step.message
            }
        }
        var out: [String: (status: CellStatus, message: String?)] = [:]
        for (name, list) in outcomes { out[name] = (testStatus(list), messages[name] ?? nil) }
        return out
    }

    /// Compares the tests of the command jobs that both runs have.
    /// - Parameter commandJobs: head's command jobs that base has too, in plan order.
    static func testChanges(reader: JournalReader, base: String, head: String, commandJobs: [JobRow]) throws -> TestChanges {
        var changes = TestChanges()
        for row in commandJobs {
            let before = try tests(reader: reader, run: base, job: row.job.jobID)
            let after = try tests(reader: reader, run: head, job: row.job.jobID)
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
