import Foundation
import Isolation

/// Command jobs pivoted per test, not only per job: each JUnit test case a command's result file reports (a step
/// keyed `test:<classname>.<name>`, docs/COMMAND-JOBS.md) is a job of its own test's ``AxisPivot``, so two defects
/// in one job read "test_label_fits_button fails with locale=de; test_page_loads fails with network=offline".
/// A test's status is its JUnit verdict (``TestVerdict``): a failure or error fails, flaky stays flaky, skipped is
/// not counted.
public struct TestPivot: Sendable, Hashable, Codable {
    /// The test's name (`<classname>.<name>`).
    public var test: String
    /// Runs of the test with a verdict, and how many failed.
    public var jobs: Int
    public var failures: Int
    /// The test's pivot's sentence and patterns.
    public var headline: String
    public var patterns: [AxisPivot.Explanation]

    /// "test_page_loads fails exactly with network=offline", or the test's own headline when no pattern explains it.
    public var sentence: String {
        // The test's own headline is a sentence: its period would double the one the joined headline ends with.
        guard let first = patterns.first else { return "\(test): \(headline.hasSuffix(".") ? String(headline.dropLast()) : headline)" }
        return "\(test) fails \(first.exact ? "exactly " : "")with \(first.group.label)"
            + (first.exact ? "" : " (\(first.group.failures) of \(first.group.jobs))")
            + (PivotIsolation.note(first).map { ", " + $0 } ?? "")
    }

    /// The per-test sentences of the tests that failed, joined ("a fails with x; b fails with y"); nil when none did.
    public static func headline(_ pivots: [TestPivot]) -> String? {
        let failing = pivots.filter { $0.failures > 0 }
        return failing.isEmpty ? nil : failing.map(\.sentence).joined(separator: "; ") + "."
    }

    /// Collects each command job's tests as the jobs stream by (``JUnitReport/Cases`` feeds it), bounded: past
    /// ``limit`` test runs it stops collecting and the pivots say nothing.
    final class Collector {
        static let limit = 500_000
        private var inputs: [String: [AxisPivot.Input]] = [:]
        private var order: [String] = []
        private var count = 0
        private(set) var overflowed = false

        func add(_ job: JobReport) {
            guard !overflowed, JUnitReport.hasTests(job) else { return }
            let axes = [AxisValue(axis: AxisPivot.scenarioAxis, value: job.job.scenarioID)] + job.axes
            for test in JUnitReport.tests(of: job) {
                let verdict = TestVerdict(test.runs.map(\.step.outcome), job: job.status)
                let status: CellStatus = switch verdict {
                case .passed: .passed
                case .flaky: .flaky
                case .failure, .error: .failed
                case .skipped: .notRun
                }
                if inputs[test.name] == nil { order.append(test.name) }
                inputs[test.name, default: []].append(AxisPivot.Input(axes: axes, status: status))
                count += 1
            }
            if count > Self.limit {
                overflowed = true
                inputs = [:]
                order = []
            }
        }

        /// One pivot per test that failed at least once, most failures first (then by name).
        func pivots() -> [TestPivot] {
            let pivots = order.compactMap { name -> TestPivot? in
                guard let runs = inputs[name], runs.contains(where: { $0.status.isFailure }) else { return nil }
                let pivot = AxisPivot.compute(runs)
                var patterns = pivot.explanations
                // A single failure makes no pattern; the smallest group that is exactly it still names it.
                if patterns.isEmpty, let top = pivot.ranked.first, top.score == 1 {
                    patterns = [AxisPivot.Explanation(group: top, explains: top.failures, exact: true)]
                }
                return TestPivot(test: name, jobs: pivot.totalJobs, failures: pivot.totalFailures, headline: pivot.headline,
                                 patterns: patterns)
            }
            return pivots.sorted { $0.failures != $1.failures ? $0.failures > $1.failures : $0.test < $1.test }
        }
    }
}
