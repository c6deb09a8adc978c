import Artifacts
import Baselines
import FlowVocabulary
import Foundation
import Journal
import RunControl

/// `flowmatrix artifacts` (list, extract) and `flowmatrix gc`.
enum ArtifactsCommand {
    static let spec = CommandSpec(
        name: "artifacts",
        overview: "List a run's stored artifacts, or extract them decompressed.",
        forms: ["<run-id> [<job-id>]", "extract <run-id> [<job-id>] [--attempt <n>] --out <dir> [--store <dir>]"],
        arguments: [("<run-id>", "A run id (or 'last')."), ("<job-id>", "Only this job's artifacts.")],
        options: [
            CommandOption("--attempt", value: .integer("<n>", 1...10_000), help: "Only this attempt's artifacts."),
            CommandOption("--out", value: .text("<dir>"), help: "With 'extract': where to write <job>/attempt-<n>/step-<i>/<name>."),
            .store(),
        ],
        discussion: "EXIT CODES: 0 success, 2 no such run or a blob is missing or corrupt, 64 usage error.",
        run: { args in
            let store = RunStore(path: args.value("--store"))
            let attempt = args.integer("--attempt")
            let out = args.value("--out")
            var positional = args.positionals
            let extract = positional.first == "extract"
            if extract { positional.removeFirst() }
            guard (1...2).contains(positional.count) else { throw UsageError("give <run-id> and optionally <job-id>") }
            if extract && out == nil { throw UsageError("'extract' needs --out <dir>") }
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            let runID = try resolveRun(positional[0], reader: reader)
            let rows = try reader.artifacts(run: runID, job: positional.count > 1 ? positional[1] : nil, attempt: attempt)
            if !extract {
                if rows.isEmpty { print("no artifacts stored for this selection (the matrix's keep policy decides which attempts keep them)") }
                for row in rows {
                    let a = row.artifact
                    print("\(row.jobID)  attempt \(row.attempt)  step \(a.stepIndex + 1)  \(a.name.terminalSafe)  \(a.mediaType.terminalSafe)  "
                          + "\(a.rawSize) B (\(a.compressedSize) B gz)  \(a.sha256.prefix(16))")
                }
                return ExitCode.success
            }
            let blobs = try BlobStore(root: store.blobsRoot)
            let destination = URL(fileURLWithPath: out ?? ".")
            var written = 0
            for row in rows {
                let a = row.artifact
                let file = destination.appendingPathComponent(row.jobID).appendingPathComponent("attempt-\(row.attempt)")
                    .appendingPathComponent("step-\(a.stepIndex)").appendingPathComponent(safeName(a.name))
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                do {
                    try blobs.extract(a.sha256, to: file, maxSize: 1 << 31)
                } catch {
                    throw CommandFailure("cannot extract \(a.name) of \(row.jobID) (blob \(a.sha256)): \(error)")
                }
                written += 1
            }
            print("extracted \(written) artifact(s) to \(destination.path)")
            return ExitCode.success
        }
    )

    static let gcSpec = CommandSpec(
        name: "gc",
        overview: "Delete stored blobs no run references any more (and stale partial uploads).",
        forms: [],
        options: [
            .store(),
            CommandOption("--grace", value: .integer("<seconds>", 0...(365 * 86_400)),
                          help: "Keep unreferenced blobs and partial uploads younger than this.", default: .value("3600")),
        ],
        discussion: """
            A blob stays while any run in the journal references it: delete old runs first with
            'flowmatrix runs delete --older-than 30d' (or --keep <n>, or run ids) to let gc free their blobs.
            EXIT CODES: 0 done, 2 no journal or an I/O error in the store, 64 usage error.
            """,
        run: { args in
            let store = RunStore(path: args.value("--store"))
            let grace = args.integer("--grace") ?? 3600
            _ = try args.positionals(atMost: 0)
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            let blobs = try BlobStore(root: store.blobsRoot)
            // Visual baselines and the pictures of reported changes are kept too (docs/VISUAL.md).
            let visual = try BaselineStore(root: store.root).referencedBlobs(runsFolder: store.root.appendingPathComponent("runs"))
            let result = try blobs.gc(referenced: try reader.referencedBlobs().union(visual), now: Date(),
                                      gracePeriod: TimeInterval(grace))
            print("gc: removed \(result.removed) blob(s) (\(result.bytesFreed) bytes) and \(result.temporariesRemoved) "
                  + "partial upload(s); \(result.kept) blob(s) kept")
            return ExitCode.success
        }
    )

    static func resolveRun(_ text: String, reader: JournalReader) throws -> String {
        guard let runID = try reader.resolveRunID(text) else {
            throw CommandFailure(text == "last" ? "the journal has no runs" : "no run '\(text)'")
        }
        return runID
    }

    /// A file name that cannot escape its folder (names come from workers).
    static func safeName(_ name: String) -> String {
        let cleaned = name.map { c -> Character in (c == "/" || c == "\\" || c == "\0") ? "_" : c }
        let text = String(cleaned)
        return text.isEmpty || text == "." || text == ".." ? "artifact" : text
    }
}
