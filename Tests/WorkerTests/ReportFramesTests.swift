import Testing
import Wire
import Worker

/// How a runner's reports become frames on each protocol version.
@Suite("Report frames")
struct ReportFramesTests {
    func step(_ job: String, _ index: UInt32, attempt: UInt32 = 1) -> StepEvent {
        StepEvent(job: job, attempt: attempt, index: index, status: .passed, durationMicros: 10, message: "")
    }

    func result(_ job: String, attempt: UInt32 = 1) -> JobResult {
        JobResult(job: job, attempt: attempt, status: .passed, failure: nil, durationMicros: 30)
    }

    func decode(_ frames: ReportFrames) throws -> [Message] { try Message.decodeAll(frames.bytes) }

    @Test("version 2: a job's steps go with its result as one RESULT_STEPS frame")
    func held() throws {
        var frames = ReportFrames(protocolVersion: 2)
        for i in 0..<3 { frames.step(step("a", UInt32(i))) }
        #expect(frames.bytes.isEmpty)
        frames.result(result("a"))
        let expected = AttemptReport(result: result("a"), steps: (0..<3).map { StepReport(step("a", UInt32($0))) })
        #expect(try decode(frames) == [.resultSteps(expected)])
    }

    @Test("version 2: steps handed over early go as STEP frames, and the result then follows alone")
    func early() throws {
        var frames = ReportFrames(protocolVersion: 2)
        frames.step(step("a", 0))
        frames.encodeHeldSteps()
        frames.step(step("a", 1))
        frames.result(result("a"))
        #expect(try decode(frames) == [
            .step(step("a", 0)),
            .resultSteps(AttemptReport(result: result("a"), steps: [StepReport(step("a", 1))])),
        ])
        frames.removeBytes()
        frames.step(step("b", 0))
        frames.append(.bye)
        frames.result(result("b"))
        #expect(try decode(frames) == [.step(step("b", 0)), .bye, .result(result("b"))])
    }

    @Test("version 2: a step of another attempt sends the held ones first; a result of another attempt does too")
    func otherAttempt() throws {
        var frames = ReportFrames(protocolVersion: 2)
        frames.step(step("a", 0))
        frames.step(step("a", 0, attempt: 2))
        frames.result(result("b"))
        #expect(try decode(frames) == [.step(step("a", 0)), .step(step("a", 0, attempt: 2)), .result(result("b"))])
    }

    @Test("version 1: every report is its own frame at once")
    func version1() throws {
        var frames = ReportFrames(protocolVersion: 1)
        frames.step(step("a", 0))
        #expect(try decode(frames) == [.step(step("a", 0))])
        frames.step(step("a", 1))
        frames.result(result("a"))
        #expect(try decode(frames) == [.step(step("a", 0)), .step(step("a", 1)), .result(result("a"))])
    }
}
