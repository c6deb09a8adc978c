import Coordinator
import FlowVocabulary
import Journal
import Testing
import Wire

/// The holes a hostile or older authenticated peer found in protocol version 3 (issue 33 §2): version rules, blame,
/// unsolicited answers, instance labels, step floods and terminal escapes.
@Suite("Coordinator engine against version-mixing and lying peers")
struct ProtocolHoleTests {
    private func hello(_ name: String, version: UInt16 = 3, registries: [String] = ["test"], labels: [String] = [])
        -> Hello {
        Hello(version: version, name: name, slots: 1, registries: registries, labels: labels, nonce: .zero, mac: .zero)
    }

    private func assigned(_ actions: [CoordinatorEngine.Action]) -> [JobAssignment] {
        var jobs: [JobAssignment] = []
        for case .send(_, let messages) in actions {
            for case .assign(let batch) in messages { jobs += batch }
        }
        return jobs
    }

    private func closed(_ actions: [CoordinatorEngine.Action], _ peer: UInt64) -> Bool {
        actions.contains { if case .close(peer, _) = $0 { true } else { false } }
    }

    private func errors(_ actions: [CoordinatorEngine.Action], _ peer: UInt64) -> [ErrorMessage] {
        var found: [ErrorMessage] = []
        for case .send(peer, let messages) in actions { for case .error(let e) in messages { found.append(e) } }
        return found
    }

    private func result(_ a: JobAssignment, _ status: StepOutcome) -> Message {
        .result(Wire.JobResult(job: a.job, attempt: a.attempt, status: status, failure: nil, durationMicros: 10))
    }

    @Test("a version 2 peer expelled for a version 3 message is not blamed: three of them quarantine nothing")
    func expelledOlderPeerIsNotBlamed() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        for peer in UInt64(1)...4 {
            _ = engine.onPeerJoined(peer, hello: hello("old\(peer)", version: 2))
            let jobs = assigned(engine.onMessages(peer, [.credit(1)]))
            let job = try #require(jobs.first)
            let actions = engine.onMessages(peer, [.revoked([RevokeAnswer(job: job.job, attempt: job.attempt, taken: false)])])
            #expect(closed(actions, peer))
            #expect(errors(actions, peer).first?.knownCode == .unknownType)
            _ = engine.onPeerClosed(peer)
        }
        #expect(finals.isEmpty, "the job was never at fault: \(finals)")
        _ = engine.onPeerJoined(9, hello: hello("good"))
        let job = try #require(assigned(engine.onMessages(9, [.credit(1)])).first)
        _ = engine.onMessages(9, [result(job, .passed)])
        #expect(finals == [.passed])
    }

    @Test("a REVOKED for an attempt nobody revoked is ignored: the worker's real RESULT still decides the job")
    func unsolicitedRevokedIsIgnored() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        _ = engine.onPeerJoined(1, hello: hello("w"))
        let job = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        let answered = engine.onMessages(1, [.revoked([RevokeAnswer(job: job.job, attempt: job.attempt, taken: true)])])
        #expect(!closed(answered, 1))
        let actions = engine.onMessages(1, [result(job, .passed)])
        #expect(!closed(actions, 1))
        #expect(finals == [.passed])
        #expect(engine.progress.supersededResults == 0)
    }

    @Test("status lost is version 3: a version 2 connection sending it is refused and three of them quarantine nothing",
          arguments: [UInt16(1), 2])
    func lostStatusBelongsToVersion3(version: UInt16) throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        for peer in UInt64(1)...3 {
            _ = engine.onPeerJoined(peer, hello: hello("old\(peer)", version: version))
            let job = try #require(assigned(engine.onMessages(peer, [.credit(1)])).first)
            let actions = engine.onMessages(peer, [result(job, .lost)])
            #expect(closed(actions, peer))
            #expect(errors(actions, peer).first?.knownCode == .invalidValue)
            _ = engine.onPeerClosed(peer)
        }
        #expect(finals.isEmpty, "lost from an older connection counted: \(finals)")
        // On version 3 the same status is taken.
        _ = engine.onPeerJoined(8, hello: hello("new"))
        let job = try #require(assigned(engine.onMessages(8, [.credit(1)])).first)
        #expect(!closed(engine.onMessages(8, [result(job, .lost)]), 8))
    }

    @Test("a STEP with status lost is version 3 too")
    func lostStepStatus() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        _ = engine.onPeerJoined(1, hello: hello("old", version: 2))
        let job = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        let step = StepEvent(job: job.job, attempt: job.attempt, index: 0, status: .lost, durationMicros: 1, message: "")
        #expect(closed(engine.onMessages(1, [.step(step)]), 1))
    }

    @Test("a second connection announcing another process's instance label does not excuse that process's crashes")
    func instanceLabelNotClaimableWhileLive() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        var peer: UInt64 = 1
        for crash in 0..<4 where finals.isEmpty {
            let instance = WorkerInstance()
            let labels = instance.labels
            _ = engine.onPeerJoined(peer, hello: hello("real\(crash)", labels: labels))
            #expect(assigned(engine.onMessages(peer, [.credit(1)])).count == 1)
            // The impostor copies the labels while the real process is connected, then the real process crashes.
            _ = engine.onPeerJoined(peer + 1, hello: hello("impostor\(crash)", registries: ["none"], labels: labels))
            _ = engine.onPeerClosed(peer)
            _ = engine.onPeerClosed(peer + 1)
            peer += 2
        }
        #expect(finals == [.quarantined])
    }

    @Test("a connection announcing the label of a crashed process does not undo its crash")
    func instanceLabelNotClaimableAfterLoss() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        var peer: UInt64 = 1
        for crash in 0..<4 where finals.isEmpty {
            var instance = WorkerInstance()
            _ = engine.onPeerJoined(peer, hello: hello("real\(crash)", labels: instance.labels))
            #expect(assigned(engine.onMessages(peer, [.credit(1)])).count == 1)
            _ = engine.onPeerClosed(peer)
            _ = engine.onPeerJoined(peer + 1, hello: hello("impostor\(crash)", registries: ["none"], labels: instance.labels))
            // Even with the next labels of the same process, minus its secret (replaying an old key).
            instance.welcomed()
            let replay = instance.labels.filter { !$0.hasPrefix(WorkerInstance.keyLabel) }
            _ = engine.onPeerJoined(peer + 2, hello: hello("impostor\(crash)b", registries: ["none"], labels: replay))
            for closing in [peer + 1, peer + 2] { _ = engine.onPeerClosed(closing) }
            peer += 3
        }
        #expect(finals == [.quarantined])
    }

    @Test("the same process reconnecting proves it with the key of its last connection: its lost jobs are excused")
    func provenReconnectionIsExcused() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var finals: [JobOutcome] = []
        engine.onJobFinished = { finals.append($0.outcome) }
        var instance = WorkerInstance()
        for peer in UInt64(1)...5 {
            _ = engine.onPeerJoined(peer, hello: hello("w", labels: instance.labels))
            instance.welcomed()
            _ = engine.onMessages(peer, [.credit(1)])
            _ = engine.onPeerClosed(peer)
        }
        #expect(finals.isEmpty, "five broken connections of one live process are not crashes: \(finals)")
    }

    @Test("steps per attempt are bounded: the frame past the declared steps plus the cap is refused, nothing after it journaled")
    func stepFloodIsBounded() throws {
        let records = MessageBox.Records()
        let engine = EngineHarness(definition: makeDefinition([["pass", "pass"]]), journal: { records.append($0) },
                                       now: { .zero })
        _ = engine.onPeerJoined(1, hello: hello("w"))
        let job = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        let cap = 2 + CoordinatorEngine.maximumExtraStepsPerAttempt
        let steps = (0..<(cap + 10)).map {
            Message.step(StepEvent(job: job.job, attempt: job.attempt, index: UInt32($0), status: .passed,
                                   durationMicros: 1, message: ""))
        }
        let actions = engine.onMessages(1, steps)
        #expect(closed(actions, 1))
        #expect(errors(actions, 1).first?.message.contains("steps") == true)
        var journaled = 0
        for case .stepRecorded in records.all { journaled += 1 }
        #expect(journaled <= cap, "journaled \(journaled) steps, cap \(cap)")
        // The same bound holds for the steps of a RESULT_STEPS.
        _ = engine.onPeerClosed(1)
        _ = engine.onPeerJoined(2, hello: hello("w2"))
        let again = try #require(assigned(engine.onMessages(2, [.credit(1)])).first)
        let many = (0..<(cap + 1)).map { StepReport(index: UInt32($0), status: .passed, durationMicros: 1, message: "") }
        let report = AttemptReport(result: Wire.JobResult(job: again.job, attempt: again.attempt, status: .passed,
                                                          failure: nil, durationMicros: 1), steps: many)
        #expect(closed(engine.onMessages(2, [.resultSteps(report)]), 2))
    }

    @Test("terminal escapes in a worker's name and labels are escaped in notices and in the NOTICE sent back")
    func escapesInNotices() throws {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        var notices: [String] = []
        engine.onNotice = { notices.append($0) }
        let actions = engine.onPeerJoined(1, hello: hello("evil\u{1B}]0;owned\u{07}", registries: ["x\u{1B}[2J"],
                                                           labels: ["k=\u{1B}[31mred", "\u{9B}31m"]))
        var sent: [String] = []
        for case .send(1, let messages) in actions { for case .notice(let text) in messages { sent.append(text) } }
        #expect(notices.count == 1 && sent.count == 1)
        for text in notices + sent {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(text.debugDescription)")
            #expect(text.contains("evil\\u{1B}]0;owned\\u{7}"))
        }
    }
}
