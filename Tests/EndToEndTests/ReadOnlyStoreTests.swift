#if os(Linux)
import Foundation
import Testing

/// A store nobody may write: `runs` and `show` still read it, a writing command says it is read-only.
///
/// Tests run as root, which ignores permission bits; `chattr +i` makes a folder immutable even for root (no file
/// can be created in it, as on a read-only mount), so SQLite cannot create the journal's WAL index there.
@Suite("a read-only store", .enabled("needs chattr +i on the temporary folder's file system") {
    await ImmutableFolders.unavailable() == nil
})
struct ReadOnlyStoreTests {
    static func chattr(_ flag: String, _ path: String) async throws -> Int32 { try await ImmutableFolders.chattr(flag, path) }
}

/// `chattr ±i`, and whether it works here.
enum ImmutableFolders {
    static func chattr(_ flag: String, _ path: String) async throws -> Int32 {
        try await runProgram("/usr/bin/chattr", [flag, path]).0
    }

    /// Why immutable folders cannot be made here (no chattr, a file system without the flag), or nil.
    static func unavailable() async -> String? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-immutable-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return "no temp folder" }
        defer { try? FileManager.default.removeItem(at: dir) }
        guard (try? await chattr("+i", dir.path)) == 0 else { return "chattr +i is not available" }
        let writable = FileManager.default.createFile(atPath: dir.appendingPathComponent("x").path, contents: nil)
        _ = try? await chattr("-i", dir.path)
        return writable ? "an immutable folder still takes new files" : nil
    }
}

extension ReadOnlyStoreTests {
    @Test("runs and show read a read-only store; runs delete says the store is read-only")
    func readOnlyStore() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        _ = try InputAndSilenceTests.journalWithFailure(ws, message: "boom\nsecond line", title: "cart")
        let folder = ws.root.appendingPathComponent(".flowmatrix").path
        for leftover in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: ws.journalPath + leftover) }
        #expect(try await Self.chattr("+i", folder) == 0)
        // The folder is made mutable again however the checks end (a `defer` cannot await), before `ws.cleanUp()`.
        do {
            try await Self.checkReadOnly(ws)
        } catch {
            _ = try? await Self.chattr("-i", folder)
            throw error
        }
        _ = try? await Self.chattr("-i", folder)
    }

    /// What `readOnlyStore` checks while the store folder is immutable.
    static func checkReadOnly(_ ws: E2EWorkspace) async throws {
        let (runsStatus, runs) = try await ws.run(["runs"], label: "runs")
        #expect(runsStatus == 0 && runs.contains("r1"), "\(runs)")
        let (showStatus, show) = try await ws.run(["show", "r1"], label: "show")
        #expect(showStatus == 1 && show.contains("step 1: boom\n      second line"), "\(show)")
        #expect(!FileManager.default.fileExists(atPath: ws.journalPath + "-wal"))
        let (deleteStatus, delete) = try await ws.run(["runs", "delete", "r1"], label: "delete")
        #expect(deleteStatus == 2 && delete.contains("the store is read-only"), "\(delete)")
        #expect(!delete.contains("SQLite code"), "\(delete)")
        let matrix = try ws.matrix()
        let (runStatus, run) = try await ws.run(["run", matrix, "--workers", "1"], label: "run")
        #expect(runStatus != 0 && run.contains("is read-only: a run records in its journal"), "\(run)")
        #expect(!run.contains("SQLite code"), "\(run)")
    }
}
#endif
