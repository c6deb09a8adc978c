import Journal

extension IsolateSource {
    /// The follow-up rounds of earlier isolations of run `source` (completed ones, oldest first): `isolate` run again on
    /// the same run numbers its rounds after theirs, because a round's seed comes from its number (a second isolation's
    /// first round replayed the first one's seeded draws). Their outcomes are not reused: fed to a new session as
    /// plain evidence (tried on the shipped nightly, 812 jobs of 105 rounds), the follow-ups' own logic was lost and
    /// a planted defect went unconfirmed that a fresh isolation confirms.
    static func earlierRounds(_ reader: JournalReader, source: String) throws -> [String] {
        try reader.runs(limit: 1_000_000, countingOutcomes: false).filter { $0.status == .completed && followUpSource(of: $0) == source }.sorted { ($0.info.startedAt, $0.info.runID) < ($1.info.startedAt, $1.info.runID) }.map(\.info.runID)
    }
}
