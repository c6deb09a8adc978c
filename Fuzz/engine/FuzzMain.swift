// libFuzzer entry point for the coordinator engine: decoded message sequences from several peers, joins, closes,
// ticks and artifact-ingest events fed into `CoordinatorEngine`, its journal records checked by an in-memory model of
// the journal's rules (`JournalModel`).
// Built by Fuzz/run-engine-fuzz.sh against instrumented builds of the package's modules; not part of the package.
import Coordinator
import FlowCrypto
import Foundation
import Journal
import Wire

/// A run of 8 jobs with 2 retries, so assignments, retries, leases and flakiness all happen.
let fuzzDefinition: RunDefinition = {
    let body = Array("{\"id\":\"s\",\"steps\":[{\"target\":\"a\",\"verb\":\"tap\"},{\"target\":\"b\",\"verb\":\"tap\"}],\"title\":\"s\"}".utf8)
    let hash = Bytes32(SHA256.hash(body)) ?? .zero
    var jobs: [RunJob] = []
    for i in 0..<8 {
        let registry = i % 4 == 3 ? "other" : "test"
        let expected: Duration = i % 2 == 0 ? .seconds(2) : .zero
        jobs.append(RunJob(id: "j\(i)", scenarioID: "s", scenarioTitle: "s", scenarioHash: hash, stepKeys: ["tap:a", "tap:b"],
                           registry: registry, requiredLabels: [:], configuration: [ConfigurationPair("locale", "en")],
                           seed: UInt64(i), expectedDuration: expected))
    }
    var definition = RunDefinition(runID: "fuzz", jobs: jobs, scenarioBodies: [hash: body],
                                   scheduler: SchedulerSettings(retries: 2, jobTimeout: .seconds(5)))
    definition.journalStartDelay = .milliseconds(100)
    return definition
}()

/// The journal's rules, kept in memory: what the SQLite journal would refuse or what would make it contradict itself
/// (an attempt started twice, steps or a result for an attempt never started or already ended, a job finished twice
/// or started again after it finished, an attempt number outside 1…2^32−1) traps, so libFuzzer reports it.
struct JournalModel {
    var jobs: Set<String>
    var started = Set<String>()
    var ended = Set<String>()
    var finishedJobs = Set<String>()
    /// Jobs the engine announced final (`jobFinished`), and whether it said `runComplete`.
    var announced = Set<String>()
    var completed = false

    init(_ definition: RunDefinition) { jobs = Set(definition.jobs.map(\.id)) }

    /// A `jobFinished` action: once per job, after its result was journaled; never a quarantine caused by the close
    /// of a peer the engine `expelled`.
    mutating func announce(_ job: FinishedJob, expelled: Bool) {
        check(!(expelled && job.outcome == .quarantined), "\(job.id) quarantined by the close of a peer the engine expelled")
        check(finishedJobs.contains(job.id), "\(job.id) announced before its result was journaled")
        check(announced.insert(job.id).inserted, "\(job.id) announced twice")
    }

    /// The `runComplete` action: once, after every job's result was journaled.
    mutating func complete() {
        check(!completed, "the run completed twice")
        check(finishedJobs == jobs, "the run completed before every job's result was journaled")
        completed = true
    }

    private func key(_ job: String, _ attempt: Int) -> String {
        check(jobs.contains(job), "journal record for unknown job \(job)")
        check(attempt >= 1 && attempt <= Int(UInt32.max), "attempt \(attempt) of \(job) out of range")
        return job + "#" + String(attempt)
    }

    mutating func apply(_ record: JournalRecord) {
        switch record {
        case .attemptStarted(_, let job, let attempt, _, _):
            let k = key(job, attempt)
            check(!finishedJobs.contains(job), "attempt \(attempt) of \(job) started after the job finished")
            check(started.insert(k).inserted, "attempt \(attempt) of \(job) started twice")
        case .stepRecorded(_, let job, let attempt, _):
            let k = key(job, attempt)
            check(started.contains(k) && !ended.contains(k), "step for attempt \(attempt) of \(job), not running")
        case .attemptFinished(_, let job, let attempt, let result):
            let k = key(job, attempt)
            check(started.contains(k), "result for attempt \(attempt) of \(job), never started")
            // The journal ignores a second end of an attempt; only a superseded (late) result may be one.
            check(ended.insert(k).inserted || result.superseded, "attempt \(attempt) of \(job) ended twice")
        case .attemptCompleted(let c):
            let k = key(c.jobID, c.attempt)
            check(!finishedJobs.contains(c.jobID), "attempt \(c.attempt) of \(c.jobID) after the job finished")
            check(started.insert(k).inserted && ended.insert(k).inserted, "attempt \(c.attempt) of \(c.jobID) twice")
            if c.job != nil { check(finishedJobs.insert(c.jobID).inserted, "\(c.jobID) finished twice") }
        case .jobFinished(_, let job, _):
            check(jobs.contains(job), "unknown job \(job) finished")
            check(finishedJobs.insert(job).inserted, "\(job) finished twice")
        case .artifactStored(_, let job, let attempt, _):
            check(started.contains(key(job, attempt)), "artifact for attempt \(attempt) of \(job), never started")
        case .runStarted, .runResumed, .jobsPlanned, .runFinished:
            break
        }
    }
}

/// `precondition` whose message survives an optimized build.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// What the ingest reports for `chunk` from `peer`: every chunk accepted, the last one stored.
func acknowledged(_ peer: UInt64, _ chunk: ArtifactChunk) -> IngestEvent {
    let ack = ArtifactAck(job: chunk.job, attempt: chunk.attempt, name: chunk.name, sha256: chunk.sha256,
                          kind: .acceptedThrough, offset: chunk.offset + UInt64(chunk.bytes.count))
    return chunk.last
        ? .stored(peer: peer, ack: ack, step: Int(chunk.step), mediaType: chunk.mediaType, size: chunk.bytes.count,
                  rawSize: Int(clamping: chunk.rawSize))
        : .accepted(peer: peer, ack: ack)
}

/// Input: a sequence of operations. Each starts with a byte: bits 0–1 pick the peer (1–4), bits 2–3 the operation:
/// 0 join (next byte: slots, protocol version 1–3 — peers of versions 2 and 3 mix —, labels: one of two worker
/// instances' proofs, advanced or replayed, or plain labels), 1 a frame (FrameDecoder over the rest: one frame,
/// decoded as a message and delivered), 2 close, 3 tick (next byte: seconds to advance) and acknowledge pending
/// ingests.
///
/// Beyond the journal model, two rules of the peer bounds (docs/PROTOCOL.md, "Bounds") trap when broken: a message
/// (or a status) of a version later than its peer's is answered with a close, and a peer the engine expelled never
/// causes blame — no job is quarantined when its close is heard, whichever version (1–3) it joined with. So does
/// the order of the engine's actions: a job is announced (`jobFinished`) only after its result was in a `journal`
/// action, once, and the run completes (`runComplete`) once, after every job's result.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var clock = Duration.zero
    var sent = 0
    var model = JournalModel(fuzzDefinition)
    let engine = CoordinatorEngine(definition: fuzzDefinition, now: { clock },
                                   wallClock: { Date(timeIntervalSince1970: 0) })
    var ingests: [(UInt64, ArtifactChunk)] = []
    var versions: [UInt64: UInt16] = [:]
    var instances = [WorkerInstance(), WorkerInstance()]
    /// - Parameters:
    ///   - expulsions: the actions answer what a peer sent, so a close in them expels it (a tick's close of a
    ///     silent peer is a loss that may blame).
    ///   - expelled: the actions answer the close of a peer the engine expelled: nothing in them may blame.
    func take(_ actions: [CoordinatorEngine.Action], expulsions: Bool = false, expelled: Bool = false) {
        for action in actions {
            switch action {
            case .ingest(let peer, let chunks): ingests += chunks.map { (peer, $0) }
            case .send(_, let messages): sent += messages.count
            case .journal(let batch): for record in batch { model.apply(record) }
            case .notice: break
            case .jobFinished(let job): model.announce(job, expelled: expelled)
            case .runComplete: model.complete()
            case .close(let peer, _):
                versions[peer] = nil
                take(engine.onPeerClosed(peer), expelled: expulsions)
            }
        }
    }
    var i = 0
    while i < bytes.count {
        let op = bytes[i]
        i += 1
        let peer = UInt64(op & 3) + 1
        switch (op >> 2) & 3 {
        case 0:
            let arg = i < bytes.count ? bytes[i] : 0
            i += 1
            let which = Int(arg >> 3 & 1)
            let labels = arg & 0x80 != 0 ? instances[which].labels : (arg & 0x40 != 0 ? ["="] : ["k=v"])
            // Bit 2 of the slots: the instance moves on (the connection was welcomed), or its labels are replayed.
            if arg & 0x80 != 0, arg & 0x04 != 0 { instances[which].welcomed() }
            let version = UInt16(arg >> 4 & 3) % 3 + 1
            let hello = Hello(version: version, name: "w\(peer)", slots: UInt32(arg & 3) + 1,
                              registries: ["test"], labels: labels, nonce: .zero, mac: .zero)
            take(engine.onPeerJoined(peer, hello: hello))
            versions[peer] = version
        case 1:
            var buffer = ByteBuffer()
            buffer.append(contentsOf: bytes[i...])
            var decoder = FrameDecoder(maxFrameSize: 1 << 16)
            let before = buffer.readableBytes
            guard let frame = try? decoder.decode(buffer: &buffer) else { return 0 }
            i += before - buffer.readableBytes
            if let message = try? Message(frame: frame) {
                let actions = engine.onMessages(peer, [message])
                if let version = versions[peer], message.introducedIn > version {
                    check(actions.contains { if case .close(peer, _) = $0 { true } else { false } },
                          "\(message.type) of version \(message.introducedIn) taken from a version \(version) peer")
                }
                take(actions, expulsions: true)
            }
        case 2:
            versions[peer] = nil
            take(engine.onPeerClosed(peer))
        default:
            let arg = i < bytes.count ? bytes[i] : 1
            i += 1
            clock += .milliseconds(Int64(arg) * 50)
            take(engine.onTick())
            defer { ingests.removeAll() }
            take(engine.onIngest(ingests.map(acknowledged)), expulsions: true)
        }
    }
    let progress = engine.progress  // invariant: progress adds up, and matches what was announced
    precondition(progress.done <= progress.total && progress.done == progress.outcomes.values.reduce(0, +))
    check(model.announced.count == progress.done, "\(model.announced.count) jobs announced, \(progress.done) done")
    check(model.completed == engine.isComplete, "runComplete: \(model.completed), the engine: \(engine.isComplete)")
    return 0
}
