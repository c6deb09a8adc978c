import FlowCrypto
import FlowSpec
import Foundation
import Visual

/// A baseline folder a team commits: `<registry>/<scenario>/<configuration>/step-N.png` plus `manifest.json`
/// (``BaselineManifest`` whose entries name their file and the PNG's SHA-256, width and height).
public enum BaselineFolder {
    /// Writes the store's baselines (those `selection` selects) into `folder` as PNG files and a manifest; returns how
    /// many. Pictures already in the folder are replaced; others are left alone.
    @discardableResult
    public static func export(_ store: BaselineStore, to folder: URL,
                              selection: BaselineStore.Selection = BaselineStore.Selection()) throws -> Int {
        let entries = try store.load().values.filter { selection.selects($0.key) }.sorted { $0.key < $1.key }
        var out: [BaselineEntry] = []
        for entry in entries {
            let png = try store.png(blob: entry.sha256)
            let path = entry.key.folderPath
            let url = folder.appendingPathComponent(path)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(png).write(to: url, options: .atomic)
            } catch {
                throw BaselineError(code: .io, message: "cannot write \(url.path): \(FileErrorText.reason(error))")
            }
            var exported = entry
            exported.sha256 = Hex.encode(SHA256.hash(png))
            exported.file = path
            out.append(exported)
        }
        try BaselineManifest(entries: out).write(folder.appendingPathComponent(BaselineManifest.fileName))
        return out.count
    }

    /// Reads a folder, checks every picture (present, a readable PNG, of the manifest's size and hash) and only then
    /// makes them the store's baselines for their keys; returns how many. Nothing is stored when anything is wrong,
    /// and the error names every bad picture.
    /// - Throws: ``BaselineError``: `.missingManifest`, `.badManifest`, `.missingImage`, `.corruptImage`,
    ///   `.imageMismatch` (with the first problem's code; the message lists them all).
    @discardableResult
    public static func importFolder(_ folder: URL, into store: BaselineStore) throws -> Int {
        let manifest = try BaselineManifest.read(folder.appendingPathComponent(BaselineManifest.fileName))
        var problems: [(BaselineError.Code, String)] = []
        var checked: [(BaselineEntry, [UInt8])] = []
        for entry in manifest.entries {
            let path = entry.file ?? entry.key.folderPath
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                problems.append((.badManifest, "\(path): a manifest file path must stay inside the folder"))
                continue
            }
            let url = folder.appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                problems.append((.missingImage, "\(path): the manifest lists it but the folder has no such file"))
                continue
            }
            let bytes = [UInt8](data)
            let image: VisualImage
            do {
                image = try PNGDecoder.decode(bytes)
            } catch {
                problems.append((.corruptImage, "\(path): not a readable PNG (\(error))"))
                continue
            }
            guard image.width == entry.width, image.height == entry.height else {
                problems.append((.imageMismatch, "\(path): the picture is \(image.width) × \(image.height) but the manifest "
                                 + "says \(entry.width) × \(entry.height); export the folder again or fix the manifest"))
                continue
            }
            let sha = Hex.encode(SHA256.hash(bytes))
            guard sha == entry.sha256.lowercased() else {
                problems.append((.imageMismatch, "\(path): its SHA-256 is \(sha), not the manifest's \(entry.sha256)"))
                continue
            }
            checked.append((entry, bytes))
        }
        if let first = problems.first {
            throw BaselineError(code: first.0, message: "the baseline folder \(folder.path) has \(problems.count) problem(s); "
                                + "nothing was imported:\n" + problems.map { "  \($0.1)" }.joined(separator: "\n"))
        }
        var entries = try store.load()
        for (entry, bytes) in checked {
            let blob = try store.storeBlob(bytes, name: entry.key.folderPath)
            var stored = entry
            stored.sha256 = blob
            stored.file = nil
            entries[entry.key] = stored
        }
        try store.save(entries)
        return checked.count
    }
}
