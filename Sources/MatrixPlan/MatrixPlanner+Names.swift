import FlowSpec
import Foundation

/// What `validate` still says about a matrix whose other findings stop it from planning: the registry names it lists
/// and the corpus folders it names are read from the file's JSON, so one pass reports a misspelt axis, a misspelt
/// registry and a missing corpus together rather than one per run of `validate`.
extension MatrixPlanner {
    /// MX059 per listed registry that no known manifest publishes (`settings.registryManifests`): an error with
    /// "did you mean" when a published name is close (a typo would leave that renderer out of the run), a warning
    /// otherwise (a registry of the user's own worker, which `validate --worker-executable` checks). Nothing when no
    /// manifest is known.
    static func registryNameFindings(_ root: JSONNode?, file: String, settings: PlanSettings) -> [ValidationFinding] {
        let known = settings.registryManifests.map(\.name)
        guard let node = root?["registry"], !known.isEmpty else { return [] }
        let listed: [(name: String, path: String, node: JSONNode)] = node.string.map { [($0, "$.registry", node)] }
            ?? (node.array ?? []).enumerated().compactMap { i, item in item.string.map { ($0, "$.registry[\(i)]", item) } }
        return listed.filter { !$0.name.trimmingSpaces.isEmpty && !known.contains($0.name) }.map { entry in
            let published = known.sorted().joined(separator: ", ")
            if let guess = Spelling.suggestion(for: entry.name, among: known) {
                return ValidationFinding(
                    file: file, code: MatrixRule.unpublishedRegistry.code, path: entry.path, position: entry.node.position,
                    message: "registry '\(entry.name)' is not one a worker publishes (did you mean '\(guess)'?); "
                        + "as written its jobs could never run. Known registries: \(published)")
            }
            return ValidationFinding(
                file: file, code: MatrixRule.unpublishedRegistry.code, path: entry.path, position: entry.node.position,
                message: "registry '\(entry.name)' is not built in (built in: \(published)), so its scenarios were not "
                    + "checked for unwired steps; check them with 'validate --worker-executable <your worker>'",
                warning: true)
        }
    }

    /// MX017 per corpus entry of a matrix that did not parse, when the entry names nothing on disk (a matrix that
    /// parses gets these from `MatrixFile.load`). Returns the findings and the entries that exist.
    static func rawCorpus(_ root: JSONNode?, url: URL, file: String) -> (findings: [ValidationFinding], urls: [URL]) {
        guard let node = root?["corpus"] else { return ([], []) }
        let entries: [(String, JSONNode)] = node.string.map { [($0, node)] }
            ?? (node.array ?? []).compactMap { item in item.string.map { ($0, item) } }
        let directory = url.deletingLastPathComponent()
        var findings: [ValidationFinding] = []
        var urls: [URL] = []
        for (i, (entry, item)) in entries.enumerated() where !entry.isEmpty {
            let resolved = entry.hasPrefix("/") ? URL(fileURLWithPath: entry)
                : directory.appendingPathComponent(entry).standardizedFileURL
            if FileManager.default.fileExists(atPath: resolved.path) {
                urls.append(resolved)
            } else {
                findings.append(ValidationFinding(
                    file: file, code: MatrixRule.missingCorpus.code, path: "$.corpus[\(i)]", position: item.position,
                    message: "corpus '\(entry)' does not exist (resolved to \(resolved.path)); paths are relative to the matrix file"))
            }
        }
        return (findings, urls)
    }
}
