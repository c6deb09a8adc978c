import FlowMatrixTestKit
import Testing
import Wire
import Worker

/// The worker session's shell with real runner tasks and the test registry, over an in-memory transport with a
/// manual clock: credit, queueing, REVOKE, the watchdog and DRAIN without a socket or an event loop.
@Suite("Worker session without sockets", .timeLimit(.minutes(5)))
struct InMemoryWorkerSessionTests {
    let quick = ScenarioFixture("quick", targets: ["pass", "pass"])
    let hang = ScenarioFixture("hang", targets: ["pass", "hang"])

    func session(slots: Int, prefetch: Int, version: UInt16 = ProtocolVersion.current)
        -> (WorkerSession, InMemoryWorkerTransport, ManualClock)
    {
        let transport = InMemoryWorkerTransport(protocolVersion: version)
        // The executor judges a cancelled run against the real clock (the session's epoch + the deadline): starting
        // the manual clock an hour before the epoch puts every deadline in the real past, so what the watchdog
        // cancels on the manual clock is reported timed out, as it is in production.
        let clock = ManualClock(.seconds(-3600))
        let session = WorkerSession(transport: transport, executor: JobExecutor(factories: [TestRegistry.factory]),
                                    slots: slots, prefetch: prefetch, clock: clock.reading)
        session.start()
        return (session, transport, clock)
    }

    /// How long a wait may take: generous, since a loaded machine may run the runner tasks late (a wait ends as soon
    /// as its condition holds, so this costs nothing when all is well).
    static let patience = Duration.seconds(120)

    static func result(_ job: String, in messages: [Message]) -> JobResult? {
        messages.lazy.compactMap {
            switch $0 {
            case .result(let r) where r.job == job: r
            case .resultSteps(let report) where report.result.job == job: report.result
            default: nil
            }
        }.first
    }

    static func credit(in messages: [Message]) -> UInt32 {
        messages.reduce(0) { if case .credit(let n) = $1 { $0 + n } else { $0 } }
    }

    @Test("the first CREDIT is slots + prefetch; every job reports one result and earns its credit back")
    func creditAndResults() async throws {
        let (session, transport, _) = session(slots: 2, prefetch: 4)
        #expect(Self.credit(in: transport.sent) == 6)
        let ids = (0..<6).map { "j\($0)" }
        _ = session.onMessages([quick.message, .assign(ids.map { quick.job($0) })])
        try await transport.wait("six results and their credit", timeout: Self.patience) { sent in
            ids.allSatisfy { Self.result($0, in: sent) != nil } && Self.credit(in: sent) == 12
        }
        for id in ids { #expect(Self.result(id, in: transport.sent)?.status == .passed) }
        #expect(session.runnersStarted <= 2)
        #expect(await session.finish() == false)
        #expect(transport.liveTimers == 0)
    }

    @Test("REVOKE gives back a queued attempt (taken) and keeps the running one (not taken), which still reports")
    func revoke() async throws {
        let (session, transport, clock) = session(slots: 1, prefetch: 1)
        // One slot: "running" starts when the first batch ends, "queued" waits.
        _ = session.onMessages([hang.message, quick.message,
                                .assign([hang.job("running", timeoutMillis: 1), quick.job("queued")])])
        _ = session.onMessages([.revoke([AttemptRef(job: "running", attempt: 1), AttemptRef(job: "queued", attempt: 1)])])
        let answers = transport.sent.compactMap { if case .revoked(let a) = $0 { a } else { nil } }.first
        #expect(answers == [RevokeAnswer(job: "running", attempt: 1, taken: false),
                            RevokeAnswer(job: "queued", attempt: 1, taken: true)])
        // The running attempt goes on until the watchdog stops it; the taken one never runs here.
        clock.advance(by: .seconds(1))
        session.onTick()
        try await transport.wait("the running job's RESULT", timeout: Self.patience) { Self.result("running", in: $0) != nil }
        #expect(Self.result("running", in: transport.sent)?.status == .timedOut)
        #expect(Self.result("queued", in: transport.sent) == nil)
        // Credit: the window (2), the taken attempt's (1), the finished job's (1).
        try await transport.wait("the finished job's credit", timeout: Self.patience) { Self.credit(in: $0) == 4 }
        _ = await session.finish()
    }

    @Test("the watchdog cancels a job only once the manual clock passes its deadline; the next job then runs")
    func watchdog() async throws {
        let (session, transport, clock) = session(slots: 1, prefetch: 1)
        _ = session.onMessages([hang.message, quick.message,
                                .assign([hang.job("slow", timeoutMillis: 5_000), quick.job("next")])])
        // Ticks before the deadline stop nothing (they hand over what the job reported so far).
        for _ in 0..<3 {
            clock.advance(by: .seconds(1))
            session.onTick()
        }
        #expect(Self.result("slow", in: transport.sent) == nil)
        clock.advance(by: .seconds(3))
        session.onTick()
        try await transport.wait("both results", timeout: Self.patience) {
            Self.result("next", in: $0) != nil && Self.result("slow", in: $0) != nil
        }
        let slow = Self.result("slow", in: transport.sent)
        #expect(slow?.status == .timedOut)
        #expect(Self.result("next", in: transport.sent)?.status == .passed)
        _ = await session.finish()
    }

    @Test("after DRAIN the session grants no more credit and says BYE once, after the last RESULT")
    func drain() async throws {
        let (session, transport, _) = session(slots: 2, prefetch: 2)
        _ = session.onMessages([quick.message, .assign((0..<4).map { quick.job("d\($0)") }), .drain])
        try await transport.wait("BYE", timeout: Self.patience) { $0.contains { if case .bye = $0 { true } else { false } } }
        let sent = transport.sent
        let byes = sent.indices.filter { if case .bye = sent[$0] { true } else { false } }
        let lastResult = sent.lastIndex {
            switch $0 {
            case .result, .resultSteps: true
            default: false
            }
        }
        #expect(byes.count == 1)
        #expect(lastResult.map { $0 < byes[0] } == true)
        #expect(Self.credit(in: sent) == 4)
        #expect(await session.finish() == true)
    }

    @Test("CANCEL of a queued job reports it cancelled before it started, with its credit back")
    func cancelQueued() async throws {
        let (session, transport, clock) = session(slots: 1, prefetch: 1)
        _ = session.onMessages([hang.message, .assign([hang.job("running", timeoutMillis: 1), hang.job("queued")]),
                                .cancel(Cancel(job: "queued", attempt: 1, reason: "test"))])
        let queued = Self.result("queued", in: transport.sent)
        #expect(queued?.status == .cancelled)
        #expect(queued?.failure?.message.contains("before it started") == true)
        #expect(Self.credit(in: transport.sent) == 2 + 1)
        clock.advance(by: .seconds(1))
        session.onTick()
        _ = await session.finish()
        #expect(transport.liveTimers == 0)
    }
}
