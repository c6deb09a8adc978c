import Foundation
import Isolation
import Journal
import MatrixPlan

/// What `flowmatrix isolate` checks of its source run before any follow-up (that it is a finished run of its own, not
/// a follow-up round, and that its matrix and failing scenarios are still the ones it ran), what it reads of it, and
/// the earlier isolations of it (IsolateEarlierRounds.swift).
enum IsolateSource {}

extension IsolateSource {
    /// Why run `run` cannot be isolated, or nil when it can. A run still `running` (live in another process, or its
    /// coordinator died) has evidence still to come, and `isolate last` during a nightly picked that nightly; a
    /// follow-up round of an earlier `isolate` holds only its follow-ups (`isolate last` after `isolate` picked it).
    static func unfit(_ run: RunSummary) -> String? {
        let id = run.info.runID
        if run.status == .running {
            return "run \(id) has not finished: it is still running, or its coordinator stopped before the end "
                + "('flowmatrix run --resume \(id)' finishes it). Isolate a finished run"
        }
        if let source = followUpSource(of: run) {
            return "run \(id) is a follow-up round of 'flowmatrix isolate' (of run \(source)), not a run of its own: "
                + "isolate \(source)"
        }
        return nil
    }

    /// The run a follow-up round isolates (its settings' `isolates.source`; "?" when unreadable), or nil for a run of
    /// its own.
    static func followUpSource(of run: RunSummary) -> String? {
        let settings = (try? JSONSerialization.jsonObject(with: Data(run.info.settingsJSON.utf8))) as? [String: Any]
        guard let isolates = settings?["isolates"] as? [String: Any] else { return nil }
        return isolates["source"] as? String ?? "?"
    }

    /// Why `matrix` no longer describes the run whose jobs are `source`, or nil when it still does: every key of the
    /// run's configurations is one of the matrix's axes or a key its includes add, with a value the matrix still
    /// gives it, and the matrix would still plan every one of them (``MatrixSpace/whyNotPlanned(_:)``: no exclude or
    /// constraint added since removes it, the includes still give it). Follow-ups are made from the matrix as it is
    /// now: with an axis renamed or a value removed since the run, they held both the old and the new axis, broke the
    /// matrix's constraints, and confirmed combinations the run's own evidence did not support. (An exclude or
    /// constraint removed since the run is not detected: the run's configurations are all still allowed.)
    static func mismatch(_ matrix: MatrixFile, source: [Observation]) -> String? {
        var values: [String: Set<String>] = [:]
        for axis in matrix.axes { values[axis.name, default: []].formUnion(axis.values) }
        for entry in matrix.include { for (key, value) in entry { values[key, default: []].insert(value) } }
        let space = MatrixSpace(matrix)
        var seen = Set<[String: String]>()
        for o in source where seen.insert(o.configuration).inserted {
            for (key, value) in o.configuration.sorted(by: { $0.key < $1.key }) {
                guard let allowed = values[key] else {
                    return "the run's jobs have the axis '\(key)', which the matrix no longer has"
                }
                if !allowed.contains(value) {
                    return "the run's jobs have \(key)=\(value), which the matrix no longer has"
                }
            }
            if let why = space.whyNotPlanned(o.configuration) { return why }
        }
        return nil
    }

    /// Why a scenario of the run that did not pass cannot be run again as the run ran it, or nil when each can: it
    /// must still be one of the matrix's planned scenarios under its registry, with the same content (steps, title,
    /// tags, preconditions; a command job's command), which is what its job id hashes (``JobIdentity``). A
    /// follow-up of a scenario edited since the run tests other steps, and its passing would retract or confirm
    /// combinations for failures it never had.
    static func changedScenario(_ plan: Plan, failing rows: [PlannedJob]) -> String? {
        var current: [Subject: String] = [:]
        for job in plan.jobs where current[Subject(scenario: job.scenario.id, registry: job.registry)] == nil {
            current[Subject(scenario: job.scenario.id, registry: job.registry)] = JobIdentity.canonicalJSON(job.scenario)
        }
        var checked = Set<Subject>()
        for row in rows where checked.insert(Subject(scenario: row.scenarioID, registry: row.registry)).inserted {
            guard let scenario = current[Subject(scenario: row.scenarioID, registry: row.registry)] else {
                return "its scenario '\(row.scenarioID)' (registry \(row.registry)), which failed in the run, is no "
                    + "longer one the matrix plans (removed from its corpus, or no longer selected by its tags or registries)"
            }
            let id = JobIdentity.id(canonicalScenario: scenario, configurationJSON: row.configurationJSON,
                                    registry: row.registry)
            if id != row.jobID {
                return "its scenario '\(row.scenarioID)' (registry \(row.registry)), which failed in the run, has "
                    + "been edited since: its follow-ups would run other steps than the ones that failed"
            }
        }
        return nil
    }

    /// Observations with the keys only the matrix's includes add left out (`banner=shown`, which an include adds to
    /// every configuration with `network=offline`): they follow from the axes, so a combination of them is no evidence
    /// of its own. Kept, `banner=shown` and `network=offline` each held the other in every follow-up, and neither was
    /// confirmed. Follow-ups get them back as the matrix gives them (``MatrixSpace/withIncludes(_:)``). The axes of
    /// one value are left out too (``FollowUpGenerator/constantAxes(of:)``): every job holds them.
    static func axesOnly(_ observations: [Observation], matrix: MatrixFile) -> [Observation] {
        let axes = Set(matrix.axes.map(\.name))
        let derived = Set(matrix.include.flatMap(\.keys)).subtracting(axes)
            .union(FollowUpGenerator.constantAxes(of: matrix).keys)
        guard !derived.isEmpty else { return observations }
        return observations.map { o in
            var o = o
            o.configuration = o.configuration.filter { !derived.contains($0.key) }
            return o
        }
    }
}
