import FlowSpec
import FlowVocabulary

/// `policy.recording`: whether web jobs are screencast while they run, and whose recordings are kept
/// (docs/WEB.md, "Recording"; the report plays them in the job panel).
///
/// Recording costs every job its frames whatever its outcome (the outcome is known only at the end), so it is off
/// unless the matrix asks. The frames go with each step's evidence, which the keep policy keeps or drops.
public enum RecordingPolicy: String, Sendable, Hashable, CaseIterable {
    /// No recording (the default).
    case off
    /// Every web job is recorded; the recordings of attempts that did not pass are kept (with `keep: failures`).
    case failures
    /// Every web job is recorded and every recording kept: needs `keep: all` (its default with this value).
    case all

    /// `scenario` as a job of this policy runs it: with ``Scenario/recordingTag`` unless the policy is `off`. The tag
    /// is part of the job's scenario, so the jobs of a recorded matrix have ids of their own (as with `policy.audit`).
    public func applied(to scenario: Scenario) -> Scenario {
        guard self != .off, !scenario.tags.contains(Scenario.recordingTag) else { return scenario }
        var out = scenario
        out.tags.append(Scenario.recordingTag)
        return out
    }
}

extension MatrixParser {
    /// Reads `policy.recording` (MX044 for a value that is not off, failures or all, or one `keep` contradicts).
    /// - Parameter keep: the matrix's `keep` as written, nil when it has none.
    mutating func parseRecording(_ node: JSONNode, keep: KeepPolicy?) {
        guard let policy = parseNamedValue(node, as: RecordingPolicy.self, member: "recording", rule: .badRecording),
              let text = node.string
        else { return }
        if policy != .off, keep == KeepPolicy.none {
            add(.badRecording, "$.policy.recording", node.position,
                "recording is '\(text)' but keep is 'none', so no recording would be kept; remove keep or set recording off")
            return
        }
        if policy == .all, keep == .failures {
            add(.badRecording, "$.policy.recording", node.position,
                "recording 'all' keeps the recordings of passing attempts, but keep 'failures' drops their evidence;"
                    + " set keep to 'all' (or leave it out), or recording to 'failures'")
            return
        }
        recording = policy
    }
}
