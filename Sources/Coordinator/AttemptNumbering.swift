/// The one mapping between the scheduler's attempt numbers and the ones workers and the journal see.
///
/// The scheduler counts a job's attempts in this session (1, 2, …). A resumed run continues the numbering after the
/// highest attempt an earlier session journaled (``RunDefinition/attemptOffsets``), so on the wire (a `UInt32`,
/// 1…2^32−1) and in the journal (an `Int`) attempt *n* of this session is *offset + n*. Every conversion goes
/// through here.
struct AttemptNumbering: Sendable {
    /// Per job index, the attempts earlier sessions journaled; a job missing from it has none.
    private let offsets: [Int: Int]

    init(offsets: [Int: Int]) { self.offsets = offsets }

    /// The attempts earlier sessions journaled for job `index`.
    func offset(ofJob index: Int) -> Int { offsets[index] ?? 0 }

    /// The journal's number of `assignment`'s attempt.
    func journaled(_ assignment: Assignment) -> Int { assignment.attempt + offset(ofJob: assignment.job) }

    /// The wire number of `assignment`'s attempt (clamped to `UInt32`; a run never makes 2^32 attempts of a job).
    func wire(_ assignment: Assignment) -> UInt32 { UInt32(clamping: journaled(assignment)) }

    /// The journal's number of wire attempt `attempt` (the same number: both continue after earlier sessions).
    func journaled(wire attempt: UInt32) -> Int { Int(attempt) }

    /// The scheduler's assignment that wire attempt `attempt` of job `index` stands for.
    func assignment(job index: Int, wire attempt: UInt32) -> Assignment {
        Assignment(job: index, attempt: Int(attempt) - offset(ofJob: index))
    }

    /// Attempts of job `index` in all sessions, given `thisSession` made here: the journal's attempt count, and the
    /// highest wire number assigned so far.
    func total(job index: Int, thisSession: Int) -> Int { thisSession + offset(ofJob: index) }
}
