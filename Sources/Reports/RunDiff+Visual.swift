import Foundation
import Visual

/// A step whose picture changed against its visual baseline in the head run and not (or not the same way) in the
/// base run: keyed by registry, scenario, configuration and step, not by job id. `flowmatrix diff` lists them under
/// NEW VISUAL CHANGES; under `policy.visual.onChange: fail` they count as regressions.
public struct VisualChange: Sendable, Hashable, Codable {
    public var jobID: String
    public var scenarioID: String
    public var configuration: String
    public var registry: String
    public var step: Int
    public var differentPixels: Int
    /// `changed`, `size` or `unreadable` (``VisualRunResults/Step/kind``).
    public var kind: String

    /// The line `flowmatrix diff` prints.
    public var line: String {
        "\(jobID)  \(scenarioID) [\(configuration.isEmpty ? "-" : configuration)]  step \(step): "
            + (kind == "changed" ? "\(differentPixels) pixel(s) differ" : kind == "size" ? "size changed" : "unreadable")
    }
}

extension RunDiff {
    /// Adds the new visual changes from the two runs' `visual.json` in `runsFolder` (`.flowmatrix/runs`).
    public mutating func addVisualChanges(runsFolder: URL) {
        addVisualChanges(base: try? VisualRunResults.read(in: runsFolder.appendingPathComponent(base)),
                         head: try? VisualRunResults.read(in: runsFolder.appendingPathComponent(head)))
    }

    /// Adds the new visual changes of `head` against `base` (either may be nil: nothing compared).
    mutating func addVisualChanges(base: VisualRunResults?, head: VisualRunResults?) {
        guard let head else { return }
        struct Key: Hashable { var registry, scenario, configuration: String; var step: Int }
        var before: [Key: String] = [:]
        for job in base?.jobs ?? [] {
            for s in job.changes {
                before[Key(registry: job.registry, scenario: job.scenarioID, configuration: job.configuration, step: s.step)] = s.current
            }
        }
        for job in head.jobs {
            for s in job.changes {
                let key = Key(registry: job.registry, scenario: job.scenarioID, configuration: job.configuration, step: s.step)
                // The same picture already differed in the base run: not new.
                if before[key] == s.current { continue }
                newVisualChanges.append(VisualChange(
                    jobID: job.jobID, scenarioID: job.scenarioID, configuration: job.configuration, registry: job.registry,
                    step: s.step, differentPixels: s.differentPixels, kind: s.kind))
            }
        }
        visualChangesFail = head.onChange == "fail"
    }

    /// The NEW VISUAL CHANGES block of the text form (empty when there are none).
    var visualText: String {
        guard !newVisualChanges.isEmpty else { return "" }
        return "\nNEW VISUAL CHANGES (\(newVisualChanges.count))\n" + newVisualChanges.map { "  " + $0.line + "\n" }.joined()
    }
}
