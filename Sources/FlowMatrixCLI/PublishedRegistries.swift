import FlowSpec
import FlowVocabulary
import Foundation
import RunControl
import Worker

/// What a worker executable publishes about its registries: `<path> --list-registries --json` (manifests, for
/// `validate`, `plan` and `run`), which a worker from before manifests answers with one name per line.
struct PublishedRegistries: Sendable, Equatable {
    /// The registries it hosts.
    var names: Set<String>
    /// Their manifests (empty when the worker printed only names).
    var manifests: [RegistryManifest]

    /// Reads either answer: a `RegistryManifest.Document` (the JSON form), else one name per line.
    /// - Throws: `CommandFailure` when the document's `manifestVersion` is newer than this build reads.
    static func parse(_ data: Data) throws -> PublishedRegistries? {
        let text = String(decoding: data, as: UTF8.self)
        if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
            let document: RegistryManifest.Document
            do {
                document = try JSONDecoder().decode(RegistryManifest.Document.self, from: data)
            } catch {
                throw CommandFailure("the worker's registry manifest is not a valid document: \(error)")
            }
            guard document.manifestVersion <= RegistryManifest.Document.currentVersion else {
                throw CommandFailure("the worker's registry manifest has version \(document.manifestVersion); this "
                    + "flowmatrix reads version \(RegistryManifest.Document.currentVersion) at most")
            }
            let names = Set(document.registries.map(\.name))
            return names.isEmpty ? nil : PublishedRegistries(names: names, manifests: document.registries)
        }
        let names = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return names.isEmpty ? nil : PublishedRegistries(names: Set(names), manifests: [])
    }

    /// Asks `executable` (`--list-registries --json`); nil when it fails, prints nothing usable, or has not exited
    /// within `timeout` (then it is ended).
    static func ask(_ executable: URL, timeout: Duration = .seconds(10)) async -> PublishedRegistries? {
        let arguments = [WorkerMain.listRegistriesFlag, WorkerMain.jsonFlag]
        guard let data = await WorkerLaunch.output(of: executable, arguments: arguments, timeout: timeout) else { return nil }
        do {
            return try parse(data)
        } catch {
            FlowMatrixCLI.writeError("warning: \(executable.path): \((error as? CommandFailure)?.message ?? "\(error)"); "
                + "its steps are not checked\n")
            return nil
        }
    }

    /// The manifests `validate`, `plan` and `run` check with: the executable's when `--worker-executable` names one
    /// (none when it publishes none), else the built-in registries'.
    /// - Throws: `UsageError` when `path` is not an executable file.
    static func manifests(workerExecutable path: String?) async throws -> [RegistryManifest] {
        guard let path else { return BuiltInRegistries.manifests }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw UsageError("'--worker-executable' takes an executable file, not '\(path)'")
        }
        return await ask(url)?.manifests ?? []
    }
}
