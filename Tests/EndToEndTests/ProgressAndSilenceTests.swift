import Coordinator
@testable import FlowMatrixCLI
import Foundation
import Testing

/// What a person watching a run is told: honest counts, and no silence.
@Suite("Progress and silences", .serialized, .timeLimit(.minutes(2)))
struct ProgressAndSilenceTests {
    @Test("the progress line counts jobs that never ran apart, and a resumed run's rate is its own")
    func progressCounts() {
        var p = RunProgress(total: 100, done: 60, outcomes: [.passed: 30, .notRun: 10, .failed: 20], inFlight: 2, workers: 2,
                            attempts: 60, retries: 0, supersededResults: 0)
        let line = ProgressLine.text(p, total: 100, alreadyDone: 40, elapsed: .seconds(10))
        #expect(line.hasPrefix("[ 50/100]"), "\(line)")
        #expect(line.contains("not run 10"))
        // 20 jobs finished in this session's 10 s: 2 jobs/s, not 6.
        #expect(line.contains("| 2 jobs/s |"), "\(line)")
        p.done = 100
        #expect(ProgressLine.text(p, total: 100, elapsed: .seconds(1)).contains("| done |"))
    }

    @Test("a fail-fast run says it stopped, not that it completed; --quiet silences the local workers too")
    func failFastAndQuiet() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("a-fails", ["fail"])
        for i in 0..<6 { try ws.scenario("slow-\(i)", ["busy:300"]) }
        let text = """
            {"name": "ff", "corpus": "corpus", "registry": "test",
             "policy": {"retries": 0, "timeout": 30, "seed": 7, "failFast": true}, "axes": {"locale": ["en"]}}
            """
        try Data(text.utf8).write(to: ws.root.appendingPathComponent("ff.json"))
        let (status, output) = try await ws.run(["run", "ff.json", "--workers", "1", "--slots", "1"], label: "ff")
        #expect(status == 1, "\(output)")
        #expect(output.contains("stopped by fail-fast"), "\(output)")
        #expect(!output.contains("completed in"), "\(output)")
        let (quietStatus, quietOutput) = try await ws.run(["run", "ff.json", "--workers", "2", "--quiet"], label: "quiet")
        #expect(quietStatus == 1)
        #expect(!quietOutput.contains("drained"), "\(quietOutput)")
    }
}
