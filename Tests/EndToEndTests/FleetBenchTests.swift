import Foundation
import Testing

/// `flowmatrix bench fleet --quick`: 20 fake workers on one loop against a real `serve` process; the suite runs, every
/// worker connects, nothing is dropped, and jobs are done in the window (figures themselves are the bench's, not
/// asserted).
@Suite("bench fleet", .serialized, .timeLimit(.minutes(2)))
struct FleetBenchTests {
    @Test("the quick fleet connects all 20 workers over the real protocol and drops none")
    func quickFleet() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await runProgram(E2EWorkspace.binary.path, ["bench", "--quick", "fleet"], in: ws.root)
        #expect(status == 0, "\(output)")
        let row = try #require(output.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("20 |") },
                               "\(output)")
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(cells.last == "0", "dropped: \(row)")
        #expect(cells[cells.count - 2].hasSuffix(" s"), "all connected: \(row)")
        #expect((Int(cells[1].split(separator: " ").first ?? "") ?? 0) > 0, "jobs done in the window: \(row)")
    }

    @Test("--workers takes fleet sizes; a bad list is a usage error (64)")
    func badWorkers() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await runProgram(E2EWorkspace.binary.path, ["bench", "--workers", "10,x", "fleet"], in: ws.root)
        #expect(status == 64, "\(output)")
        #expect(output.contains("'--workers' takes fleet sizes"), "\(output)")
    }
}
