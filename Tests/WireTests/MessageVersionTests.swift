import Testing
import Wire

/// Statuses and messages belong to the protocol version that introduced them (docs/PROTOCOL.md, "Versioning rules").
@Suite("The version a message needs")
struct MessageVersionTests {
    private let lostResult = JobResult(job: "j", attempt: 1, status: .lost, failure: nil, durationMicros: 1)

    @Test("a message needs its type's version: REVOKED and NOTICE are version 3, RESULT_STEPS version 2")
    func typeVersions() {
        #expect(Message.revoked([]).introducedIn == 3)
        #expect(Message.notice("n").introducedIn == 3)
        #expect(Message.resultSteps(AttemptReport(result: JobResult(job: "j", attempt: 1, status: .passed, failure: nil,
                                                                   durationMicros: 1), steps: [])).introducedIn == 2)
        #expect(Message.credit(1).introducedIn == 1)
    }

    @Test("status lost (6) is version 3, in a RESULT, a STEP or any step of a RESULT_STEPS; every other status is version 1")
    func statusVersions() {
        var other = lostResult
        var versions: [UInt16] = []
        other.status = .passed; versions.append(Message.result(other).introducedIn)
        other.status = .failed; versions.append(Message.result(other).introducedIn)
        other.status = .skipped; versions.append(Message.result(other).introducedIn)
        other.status = .errored; versions.append(Message.result(other).introducedIn)
        other.status = .cancelled; versions.append(Message.result(other).introducedIn)
        other.status = .timedOut; versions.append(Message.result(other).introducedIn)
        #expect(versions == [1, 1, 1, 1, 1, 1])
        #expect(Message.result(lostResult).introducedIn == 3)
        #expect(Message.step(StepEvent(job: "j", attempt: 1, index: 0, status: .lost, durationMicros: 1, message: "")).introducedIn == 3)
        var passed = lostResult
        passed.status = .passed
        let step = StepReport(index: 0, status: .lost, durationMicros: 1, message: "")
        #expect(Message.resultSteps(AttemptReport(result: passed, steps: [step])).introducedIn == 3)
        #expect(Message.result(passed).introducedIn == 1)
    }
}
