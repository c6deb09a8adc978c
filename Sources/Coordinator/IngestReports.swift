import FlowCrypto
import FlowVocabulary
import Journal
import Wire

/// Artifact ingest on the engine's side: what the ingest reports (chunks accepted, artifacts stored, resends asked
/// for, peers refused) sorted into acknowledgements per peer, journal records of the stored artifacts, and the
/// peers to refuse; with the run's count of stored artifacts and resends. Pure.
struct IngestReports {
    /// One batch of ingest events, sorted.
    struct Sorted {
        /// Stored artifacts (each after its attempt's start, if that was held back): journaled before the acks.
        var records: [JournalRecord] = []
        /// ARTIFACT_ACKs per peer, in peer order.
        var acks: [(peer: UInt64, messages: [Message])] = []
        /// Peers that broke an ingest bound, in event order.
        var refused: [(peer: UInt64, reason: String)] = []
    }

    /// Artifacts stored in this session.
    private(set) var stored = 0
    /// Artifacts that failed verification and were asked for again.
    private(set) var resends = 0

    /// Sorts `events`; the stored artifacts' attempts get their start journaled first through `attempts`.
    mutating func sort(
        _ events: [IngestEvent], runID: String, numbering: AttemptNumbering, owners: AttemptOwners,
        attempts: inout AttemptJournal
    ) -> Sorted {
        var sorted = Sorted()
        var acks: [UInt64: [Message]] = [:]
        for event in events {
            switch event {
            case .refused(let peer, let reason):
                sorted.refused.append((peer, reason))
            case .accepted(let peer, let ack), .resend(let peer, let ack, _):
                acks[peer, default: []].append(.artifactAck(ack))
            case .stored(let peer, let ack, let step, let mediaType, let size, let rawSize):
                acks[peer, default: []].append(.artifactAck(ack))
                stored += 1
                let attempt = numbering.journaled(wire: ack.attempt)
                // The artifact's row needs its attempt's row.
                if let index = owners.knownIndex(of: ack.job) {
                    attempts.journalStart(job: index, attempt: attempt, into: &sorted.records)
                }
                sorted.records.append(.artifactStored(runID: runID, jobID: ack.job, attempt: attempt,
                    artifact: ArtifactReference(stepIndex: step, name: ack.name, mediaType: mediaType,
                                                sha256: Hex.encode(ack.sha256.bytes), compressedSize: size, rawSize: rawSize)))
            }
            if case .resend = event { resends += 1 }
        }
        sorted.acks = acks.keys.sorted().map { ($0, acks[$0] ?? []) }
        return sorted
    }
}
