import FlowVocabulary
import Testing
import Wire

/// The protocol's byte values of the shared vocabulary (docs/PROTOCOL.md, "Messages"), through the public codec.
@Suite("Vocabulary on the wire")
struct WireMappingTests {
    /// docs/PROTOCOL.md: `status` values 0 passed, 1 failed, 2 skipped, 3 errored, 4 cancelled, 5 timed-out, 6 lost.
    static let statusBytes: [StepOutcome: UInt8] = [
        .passed: 0, .failed: 1, .skipped: 2, .errored: 3, .cancelled: 4, .timedOut: 5, .lost: 6,
    ]
    /// docs/PROTOCOL.md: `keep` 0 failures, 1 all, 2 none.
    static let keepBytes: [KeepPolicy: UInt8] = [.failures: 0, .all: 1, .none: 2]

    @Test("every step outcome is one status byte, in STEP, RESULT and RESULT_STEPS, and decodes back",
          arguments: StepOutcome.allCases)
    func status(outcome: StepOutcome) throws {
        let byte = try #require(Self.statusBytes[outcome])
        let step = Message.step(
            StepEvent(job: "j", attempt: 1, index: 0, status: outcome, durationMicros: 0, message: ""))
        // payload: job (01 6a), attempt (01), index (00), status
        #expect(step.encodePayload()[4] == byte)
        let result = Message.result(JobResult(job: "j", attempt: 1, status: outcome, failure: nil, durationMicros: 0))
        #expect(result.encodePayload()[3] == byte)
        let report = Message.resultSteps(AttemptReport(
            result: JobResult(job: "j", attempt: 1, status: outcome, failure: nil, durationMicros: 0),
            steps: [StepReport(index: 0, status: outcome, durationMicros: 0, message: "")]))
        for message in [step, result, report] {
            #expect(try Message.decodeAll(message.encoded()) == [message])
        }
    }

    @Test("the status bytes are the seven the protocol defines, each once")
    func statusBytesDistinct() {
        #expect(Set(StepOutcome.allCases.compactMap { Self.statusBytes[$0] }) == Set(0...6))
    }

    @Test("every keep policy is one keep byte in ASSIGN, and decodes back", arguments: KeepPolicy.allCases)
    func keep(policy: KeepPolicy) throws {
        let byte = try #require(Self.keepBytes[policy])
        let assign = Message.assign([JobAssignment(
            job: "j", attempt: 1, scenarioHash: .zero, registry: "r", configuration: [],
            timeoutMillis: 0, seed: 0, keep: policy)])
        #expect(assign.encodePayload().last == byte)
        #expect(try Message.decodeAll(assign.encoded()) == [assign])
    }
}
