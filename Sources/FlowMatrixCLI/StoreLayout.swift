import Foundation
import RunControl

/// Where a coordinator keeps its state (the embedded default is `.flowmatrix` in the current directory):
/// `journal.sqlite`, `blobs/ab/<sha256>.gz`, `runs/<run-id>/` (reports).
struct StoreLayout: Sendable {
    var root: URL

    init(_ path: String?) {
        root = URL(fileURLWithPath: path ?? ".flowmatrix").standardizedFileURL
    }

    /// The same folder as the run API names it (one place for the layout).
    var runStore: RunStore { RunStore(root: root) }

    var journalPath: String { runStore.journalPath }
    var blobsRoot: URL { runStore.blobsRoot }
    func runFolder(_ runID: String) -> URL { runStore.runFolder(runID) }

    /// Creates the store folder.
    /// - Throws: `CommandFailure` (exit 2) when it cannot be created.
    func create() throws {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the store folder \(root.path): \(error.localizedDescription)")
        }
    }

    /// - Throws: `CommandFailure` (exit 2) when there is no journal yet.
    func requireJournal() throws {
        guard FileManager.default.fileExists(atPath: journalPath) else {
            throw CommandFailure("no journal at \(journalPath): run a matrix first, or pass --store DIR")
        }
    }
}
