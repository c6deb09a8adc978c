import FlowSpec

/// The accessibility audit's findings pivoted by axis (the report's "Accessibility findings by axis"): for each rule
/// code, the jobs whose failure names it, the elements named, and, of the axis values every such job shares that the
/// run also ran without, those whose jobs have the finding most often — "AX002 contrast fails only with
/// appearance=dark (2 of 2 jobs with appearance=dark)".
///
/// A job counts once per code (its failure is the first audit that found something: a scenario stops at its
/// failing step, so a finding that would come later in the same job is not seen).
struct AuditPivot: Sendable {
    /// One rule's row.
    struct Row: Sendable {
        var rule: AuditRule
        /// Jobs whose failure names the rule.
        var jobs: Int
        /// Elements named, in order of first appearance (at most ``AuditPivot/elementLimit``).
        var elements: [String]
        /// Axis values every such job has and some job of the run has not, with the highest share of their jobs
        /// failing with the rule, each with the number of jobs that have it and the finding (all of ``jobs``).
        var only: [(value: AxisValue, withValue: Int)]
    }

    var rows: [Row]
    /// Jobs of the run, and jobs per axis value.
    var jobCount: Int
    var jobsWith: [AxisValue: Int]

    static let elementLimit = 8

    /// The sentence of a row: `AX002 contrast fails only with appearance=dark (2 of 2 jobs with it)`.
    func sentence(_ row: Row) -> String {
        let jobs = row.jobs == 1 ? "1 job" : "\(row.jobs) jobs"
        guard !row.only.isEmpty else { return "\(row.rule) fails in \(jobs) sharing no axis value" }
        let values = row.only.map { "\($0.value)" }.joined(separator: " and ")
        let counts = row.only.map { "\($0.withValue) of \(jobsWith[$0.value] ?? 0) jobs with \($0.value)" }
        return "\(row.rule) fails only with \(values) (\(counts.joined(separator: ", ")))"
    }

    /// Collects the pivot job by job (the report's job pass).
    struct Tally: Sendable {
        private var jobCount = 0
        private var jobsWith: [AxisValue: Int] = [:]
        private var perRule: [AuditRule: (jobs: Int, elements: [String], shared: Set<AxisValue>?)] = [:]

        mutating func add(_ job: JobReport) {
            jobCount += 1
            for value in job.axes { jobsWith[value, default: 0] += 1 }
            guard let message = job.row.result?.failureMessage else { return }
            let found = AuditFinding.parse(message)
            var seen = Set<AuditRule>()
            for (rule, element) in found {
                var entry = perRule[rule] ?? (0, [], nil)
                if seen.insert(rule).inserted {
                    entry.jobs += 1
                    let values = Set(job.axes)
                    entry.shared = entry.shared.map { $0.intersection(values) } ?? values
                }
                if !entry.elements.contains(element) && entry.elements.count < AuditPivot.elementLimit {
                    entry.elements.append(element)
                }
                perRule[rule] = entry
            }
        }

        /// The pivot; nil when no job's failure names an audit finding.
        func pivot() -> AuditPivot? {
            guard !perRule.isEmpty else { return nil }
            let rows = perRule.sorted { $0.key.rawValue < $1.key.rawValue }.map { rule, entry in
                // Of the values every such job has, the ones whose jobs have the finding most often (a value every
                // job of the run has explains nothing; a baseline value shared with the culprit explains less).
                let shared = (entry.shared ?? []).filter { (jobsWith[$0] ?? 0) < jobCount }
                let rate = { (v: AxisValue) in Double(entry.jobs) / Double(max(1, jobsWith[v] ?? 0)) }
                let best = shared.map(rate).max() ?? 0
                let only = shared.filter { rate($0) == best }.sorted()
                return Row(rule: rule, jobs: entry.jobs, elements: entry.elements,
                           only: only.map { ($0, entry.jobs) })
            }
            return AuditPivot(rows: rows, jobCount: jobCount, jobsWith: jobsWith)
        }
    }
}
