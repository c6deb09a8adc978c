import Foundation
import Journal
import Testing

/// A store on a full disk: the first failed journal commit stops dispatching at once and says so; what was
/// committed stays consistent, and once there is room again `run --resume` finishes the run.
/// Needs root (it mounts a small tmpfs); CI runs as root. Elsewhere the test records why it did not run.
@Suite("A full disk under the journal", .serialized, .timeLimit(.minutes(3)))
struct FullDiskTests {
    @Test("the first failed commit stops the run with a clear error (exit 2); after remounting larger, --resume finishes it")
    func fullDisk() async throws {
        guard getuid() == 0 else {
            Issue.record("not run: mounting a tmpfs needs root (CI runs as root)")
            return
        }
        let ws = try E2EWorkspace()
        let mount = ws.root.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let (mounted, why) = try await ws.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.path])
        guard mounted == 0 else {
            Issue.record("could not mount a tmpfs: \(why)")
            ws.cleanUp()
            return
        }
        // Unmounted however the checks end (a `defer` cannot await), then the workspace removed.
        do {
            try await Self.fill(ws, mount: mount)
        } catch {
            _ = try? await ws.runTool("/bin/umount", [mount.path])
            ws.cleanUp()
            throw error
        }
        _ = try? await ws.runTool("/bin/umount", [mount.path])
        ws.cleanUp()
    }

    /// Fills the store on the small mount until the journal fails, then resumes after remounting it larger.
    static func fill(_ ws: E2EWorkspace, mount: URL) async throws {
        // Many jobs whose steps attach artifacts: the journal and the blobs outgrow 1 MiB part-way through.
        for i in 0..<40 { try ws.scenario("fill-\(i)", ["attach:blob.bin:60000", "busy:20"]) }
        let matrix = try ws.matrix(locales: ["en", "de", "fr"], keep: "all")
        let store = mount.appendingPathComponent("store").path
        let (status, output) = try await ws.run(["run", matrix, "--workers", "2", "--store", store], label: "full")
        #expect(status == 2, "\(output)")
        #expect(output.contains("the journal cannot be written"), "\(output)")
        #expect(output.contains("--resume"))
        // Room again: the same store, resumed, completes with every job final and passed.
        let (grown, growWhy) = try await ws.runTool("/bin/mount", ["-o", "remount,size=256m", mount.path])
        #expect(grown == 0, "\(growWhy)")
        let reader = try JournalReader(path: store + "/journal.sqlite")
        let runID = try #require(try reader.latestRunID())
        let (resumed, resumedOutput) = try await ws.run(["run", "--resume", runID, "--workers", "2", "--store", store],
                                                        label: "resume")
        #expect(resumed == 0, "\(resumedOutput)")
        let rows = try JournalReader(path: store + "/journal.sqlite").jobs(run: runID)
        #expect(rows.count == 120)
        #expect(rows.allSatisfy { $0.result?.outcome == .passed })
    }
}
