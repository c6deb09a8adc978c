import FlowSpec
import Foundation
import RunControl

/// The commands' checks on a store folder (`RunStore`, the run API's one description of its layout).
extension RunStore {
    /// Creates the store folder.
    /// - Throws: `CommandFailure` (exit 2) when it cannot be created.
    func create() throws {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the store folder \(root.path): \(FileErrorText.reason(error))")
        }
    }

    /// - Throws: `CommandFailure` (exit 2) when there is no journal yet.
    func requireJournal() throws {
        guard FileManager.default.fileExists(atPath: journalPath) else {
            throw CommandFailure("no journal at \(journalPath): run a matrix first, or pass --store DIR")
        }
    }
}
