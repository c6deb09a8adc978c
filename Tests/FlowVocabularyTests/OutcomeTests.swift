import FlowVocabulary
import Testing

/// The raw values are the journal's strings: changing one would orphan every journal already written.
@Suite("Outcome vocabulary")
struct OutcomeTests {
    @Test("step outcomes keep their journal strings")
    func stepRawValues() {
        #expect(StepOutcome.allCases.map(\.rawValue)
            == ["passed", "failed", "skipped", "errored", "timedOut", "cancelled", "lost"])
    }

    @Test("job outcomes keep their journal strings")
    func jobRawValues() {
        #expect(JobOutcome.allCases.map(\.rawValue)
            == ["passed", "failed", "flaky", "timedOut", "quarantined", "cancelled", "notRun"])
    }

    @Test("attempt statuses keep their names")
    func attemptRawValues() {
        #expect(AttemptStatus.allCases.map(\.rawValue)
            == ["passed", "failed", "timedOut", "lost", "cancelled", "revoked"])
    }

    @Test("the journal records six step outcomes: a lost step is failed, an errored one stays errored")
    func journaled() {
        for outcome in StepOutcome.allCases {
            let expected: StepOutcome = outcome == .lost ? .failed : outcome
            #expect(outcome.journaled == expected, "\(outcome)")
        }
        #expect(Set(StepOutcome.allCases.map(\.journaled)) == [.passed, .failed, .skipped, .errored, .timedOut, .cancelled])
    }

    @Test("a reported attempt is counted as the scheduler counts it", arguments: StepOutcome.allCases)
    func reported(outcome: StepOutcome) {
        let status = AttemptStatus(reported: outcome)
        switch outcome {
        case .passed: #expect(status == .passed)
        case .failed, .errored, .skipped: #expect(status == .failed)
        case .timedOut: #expect(status == .timedOut)
        case .cancelled: #expect(status == .cancelled)
        case .lost: #expect(status == .lost)
        }
    }

    @Test("an attempt's journal outcome: lost is cancelled, revoked did not run")
    func attemptOutcome() {
        #expect(AttemptStatus.allCases.map { JobOutcome($0) }
            == [.passed, .failed, .timedOut, .cancelled, .cancelled, .notRun])
    }

    @Test("failing and measuring outcomes")
    func jobOutcomeProperties() {
        #expect(JobOutcome.allCases.filter(\.isFailure) == [.failed, .timedOut, .quarantined])
        #expect(JobOutcome.allCases.filter(\.measuresDuration) == [.passed, .failed, .flaky, .timedOut])
    }
}
