import Coordinator
import Foundation
import Journal
import Synchronization
import Testing
import Wire

/// Records handed to the journal, kept for inspection.
final class RecordBox: Sendable {
    private let box = Mutex<[JournalRecord]>([])
    var records: [JournalRecord] { box.withLock { $0 } }
    func append(_ r: [JournalRecord]) { box.withLock { $0 += r } }
    func take() -> [JournalRecord] {
        box.withLock { records in
            defer { records.removeAll() }
            return records
        }
    }
}

@Suite("What the coordinator journals about attempts")
struct AttemptJournalTests {
    @Test("a short attempt is one record with its steps and the job's result; a long one is journaled on the tick")
    func shortAndLongAttempts() async {
        var t = Duration.zero
        let box = RecordBox()
        let engine = EngineHarness(definition: makeDefinition([["pass", "pass"], ["pass"]]),
                                       journal: { box.append($0) }, now: { t })
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1, slots: 2, credit: 2)
        #expect(box.take().isEmpty, "starts are held back")

        _ = await fleet.runOne(on: 1)
        let short = box.take()
        #expect(short.count == 1)
        guard case .attemptCompleted(let completed) = short.first else {
            Issue.record("expected one attemptCompleted, got \(short.map(\.kind))")
            return
        }
        #expect(completed.jobID == "job0")
        #expect(completed.worker == "worker-1")
        #expect(completed.steps.map(\.key) == ["tap:pass", "tap:pass"])
        #expect(completed.result.outcome == .passed)
        #expect(completed.job?.outcome == .passed)

        // job1 has waited past the delay: its start is journaled on the tick, its result follows separately.
        t += .milliseconds(499)
        _ = engine.onTick()
        #expect(box.take().isEmpty)
        t += .milliseconds(1)
        _ = engine.onTick()
        #expect(box.take().map(\.kind) == ["attemptStarted"])
        _ = await fleet.runOne(on: 1)
        #expect(box.take().map(\.kind) == ["stepRecorded", "attemptFinished", "jobFinished"])
        #expect(engine.isComplete)
    }

    @Test("storing an artifact journals its attempt's start first, so the artifact row has its attempt row")
    func artifactForcesStart() async {
        let t = Duration.zero
        let box = RecordBox()
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { box.append($0) }, now: { t })
        var fleet = InMemoryFleet(engine: engine)
        await fleet.join(1)
        let ack = ArtifactAck(job: "job0", attempt: 1, name: "log", sha256: .zero, kind: .acceptedThrough, offset: 3)
        _ = engine.onIngest([.stored(peer: 1, ack: ack, step: 0, mediaType: "text/plain", size: 3, rawSize: 3)])
        #expect(box.take().map(\.kind) == ["attemptStarted", "artifactStored"])
        _ = await fleet.runOne(on: 1)
        #expect(box.take().map(\.kind) == ["stepRecorded", "attemptFinished", "jobFinished"])
    }
}
