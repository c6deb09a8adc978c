import Foundation

/// A scenario that could not be loaded: every finding that stopped it.
public struct ScenarioLoadError: Error, Sendable, CustomStringConvertible {
    public var findings: [ValidationFinding]

    public init(findings: [ValidationFinding]) { self.findings = findings }

    public var description: String { findings.map(\.description).joined(separator: "\n") }
}

/// A scenario loaded from a corpus, with the file it came from.
public struct LoadedScenario: Sendable, Hashable {
    public var scenario: Scenario
    public var file: String
    /// The file's bytes as read (job identity hashes scenario content).
    public var contentDigestSource: [UInt8]
}

/// The outcome of loading a corpus: the scenarios that could be built and every finding, all in one pass.
public struct CorpusLoad: Sendable {
    public var scenarios: [LoadedScenario]
    public var findings: [ValidationFinding]
    /// The scenario files read, as resolved absolute paths (each once, however often it was named).
    public var files: [String] = []
    /// How many scenario files were read.
    public var filesRead: Int { files.count }
    public var isClean: Bool { findings.isEmpty }
}

/// Loads FlowSpec scenario files: single files, by id from a search folder, or whole corpus folders.
public enum ScenarioLoader {
    /// Decodes one scenario file. Rule findings (no steps, bad timeouts, …) are not checked; structure is.
    /// - Throws: `ScenarioLoadError` when the file is unreadable, malformed, or lacks a scenario's shape.
    public static func load(contentsOf url: URL) throws -> Scenario {
        let (scenario, findings, _) = read(url, displayName: url.path)
        guard let scenario else { throw ScenarioLoadError(findings: findings) }
        return scenario
    }

    /// Loads and validates one scenario file against every rule.
    /// - Throws: `ScenarioLoadError` with every finding when there is any.
    public static func loadValidated(contentsOf url: URL) throws -> Scenario {
        let (scenario, findings, _) = read(url, displayName: url.path)
        guard let scenario, findings.isEmpty else { throw ScenarioLoadError(findings: findings.sortedForDisplay()) }
        return scenario
    }

    /// Loads the scenario with `id` from `folder`: `<folder>/<id>.json` when it exists, else the corpus file
    /// whose `id` member matches.
    /// - Throws: `ScenarioLoadError` when no scenario has that id or it cannot be decoded.
    public static func load(id: String, searchFolder folder: URL) throws -> Scenario {
        let direct = folder.appendingPathComponent("\(id).json")
        if FileManager.default.fileExists(atPath: direct.path), let s = try? load(contentsOf: direct), s.id == id {
            return s
        }
        for file in scenarioFiles(in: folder) {
            let (scenario, _, _) = read(file, displayName: file.path)
            if let scenario, scenario.id == id { return scenario }
        }
        throw ScenarioLoadError(findings: [
            ValidationFinding(file: folder.path, code: ScenarioRule.unreadable.code, path: "$", position: nil,
                              message: "no scenario with id '\(id)' in this folder"),
        ])
    }

    /// Loads every scenario of a corpus folder (all `*.json` below it), decoding only.
    public static func loadCorpus(folder: URL) throws -> [Scenario] {
        let result = loadCorpus(paths: [folder], validate: false)
        if !result.findings.isEmpty { throw ScenarioLoadError(findings: result.findings) }
        return result.scenarios.map(\.scenario)
    }

    /// Loads files and folders (recursively, `*.json`), validating every scenario and the corpus as a
    /// whole (duplicate ids). Every finding of every file is reported in one pass; nothing throws.
    /// - Parameters:
    ///   - paths: scenario files or corpus folders.
    ///   - validate: when false, only structural findings (that prevent building a scenario) are kept.
    public static func loadCorpus(paths: [URL], validate: Bool = true) -> CorpusLoad {
        var scenarios: [LoadedScenario] = []
        var findings: [ValidationFinding] = []
        var files: [(url: URL, path: String, walked: Bool)] = []
        var resolved = Set<String>()
        for path in paths {
            var isDirectory: ObjCBool = false
            let found: [URL]
            let exists = FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory)
            let folder = exists && isDirectory.boolValue
            if folder {
                found = scenarioFiles(in: path)
                if found.isEmpty {
                    findings.append(ValidationFinding(
                        file: path.relativePathForDisplay, code: ScenarioRule.emptyCorpus.code, path: "$", position: nil,
                        message: "the corpus folder holds no scenario file (*.json); add scenarios or name another folder"))
                }
            } else {
                found = [path]
            }
            // A file named twice (a folder and a file inside it, or through a symlink) is read once.
            for file in found {
                let path = file.resolvingSymlinksInPath().standardizedFileURL.path
                if resolved.insert(path).inserted { files.append((file, path, folder)) }
            }
        }
        var resolvedPaths: [String] = []
        var firstFileForID: [String: (String, SourcePosition?)] = [:]
        for (file, path, walked) in files {
            let name = file.relativePathForDisplay
            let (scenario, fileFindings, bytes) = read(file, displayName: name)
            // A matrix file kept in its corpus folder (`"corpus": "."`) is not a scenario of it.
            if walked, scenario == nil || !fileFindings.isEmpty, isMatrixDocument(bytes) { continue }
            resolvedPaths.append(path)
            if validate || scenario == nil { findings += fileFindings }
            guard let scenario else { continue }
            if let (other, _) = firstFileForID[scenario.id] {
                let position = idPosition(bytes)
                findings.append(ValidationFinding(
                    file: name, code: ScenarioRule.duplicateID.code, path: "$.id", position: position,
                    message: "scenario id '\(scenario.id)' is already used by \(other); ids must be unique in a corpus"))
                continue
            }
            firstFileForID[scenario.id] = (name, nil)
            scenarios.append(LoadedScenario(scenario: scenario, file: name, contentDigestSource: bytes))
        }
        var load = CorpusLoad(scenarios: scenarios, findings: findings.sortedForDisplay())
        load.files = resolvedPaths
        return load
    }

    /// Whether a file's JSON is a matrix (an object with an `axes` member and no `steps`): a corpus folder may hold
    /// the matrix that names it, which is not one of its scenarios.
    static func isMatrixDocument(_ bytes: [UInt8]) -> Bool {
        guard let root = try? JSONParser.parse(bytes) else { return false }
        return root["axes"] != nil && root["steps"] == nil
    }

    /// Every `*.json` file below `folder`, sorted by path so loading order is deterministic.
    public static func scenarioFiles(in folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        var out: [URL] = []
        for case let url as URL in walker where url.pathExtension == "json" {
            out.append(url)
        }
        return out.sorted { $0.path < $1.path }
    }

    private static func idPosition(_ bytes: [UInt8]) -> SourcePosition? {
        guard let root = try? JSONParser.parse(bytes) else { return nil }
        return root["id"]?.position
    }

    private static func read(_ url: URL, displayName: String) -> (Scenario?, [ValidationFinding], [UInt8]) {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            let reason = FileErrorText.reason(error)
            return (nil, [ValidationFinding(file: displayName, code: ScenarioRule.unreadable.code, path: "$",
                                            position: nil, message: "cannot read the file: \(reason)")], [])
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return (nil, [ValidationFinding(file: displayName, code: ScenarioRule.malformedJSON.code, path: "$",
                                            position: error.position,
                                            message: "malformed JSON at line \(error.position.line), column \(error.position.column): \(error.message)")], bytes)
        }
        let (scenario, findings) = Scenario.validated(from: root, file: displayName)
        return (scenario, findings, bytes)
    }
}

extension URL {
    /// The path relative to the current directory when it lies below it, else the full path (the one helper for
    /// file names in findings; MatrixPlan uses it too).
    package var relativePathForDisplay: String {
        let cwd = FileManager.default.currentDirectoryPath
        let p = standardizedFileURL.path
        if p.hasPrefix(cwd + "/") { return String(p.dropFirst(cwd.count + 1)) }
        return p
    }
}
