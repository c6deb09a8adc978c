import Foundation
import Testing

/// The CLI's output contract, stream by stream: results and help on stdout, errors and what was checked on
/// stderr (docs/STYLE.md "CLI"), so `flowmatrix … > file` and pipes get only the result.
@Suite("Output streams of the command line", .timeLimit(.minutes(2)))
struct OutputStreamsTests {
    @Test("help goes to stdout alone, exit 0")
    func helpOnStdout() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for (args, label) in [(["help", "plan"], "help"), (["plan", "--help"], "flag")] {
            let (status, _) = try await ws.run(args, label: label)
            let (stdout, stderr) = ws.streams(label)
            #expect(status == 0)
            #expect(stdout.hasPrefix("OVERVIEW:") && stdout.contains("USAGE:") && stdout.contains("OPTIONS:"), "\(stdout)")
            #expect(stderr.isEmpty, "help wrote to stderr: \(stderr)")
        }
    }

    @Test("a usage error goes to stderr alone as Error, Usage and a pointer to --help, exit 64")
    func usageErrorOnStderr() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, _) = try await ws.run(["plan", "--no-such-flag"], label: "usage")
        let (stdout, stderr) = ws.streams("usage")
        #expect(status == 64)
        #expect(stdout.isEmpty, "a usage error wrote to stdout: \(stdout)")
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4, "\(stderr)")
        #expect(lines.first?.hasPrefix("Error: ") == true)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: flowmatrix plan ") == true)
        #expect(lines.dropFirst(2).first == "  See 'flowmatrix plan --help' for more information.")
    }

    @Test("a failure goes to stderr alone (no run in an empty store: exit 2)")
    func failureOnStderr() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, _) = try await ws.run(["show", "last"], label: "show")
        let (stdout, stderr) = ws.streams("show")
        #expect(status == 2)
        #expect(stdout.isEmpty, "a failure wrote to stdout: \(stdout)")
        #expect(stderr.hasPrefix("Error: no journal at "), "\(stderr)")
    }

    @Test("validate --json: stdout is exactly one JSON document, the summary of what was checked is on stderr")
    func jsonOnStdout() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("good", ["pass"])
        let (status, _) = try await ws.run(["validate", "--json", "corpus"], label: "json")
        let (stdout, stderr) = ws.streams("json")
        #expect(status == 0)
        let document = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        #expect((document as? [Any])?.isEmpty == true, "\(stdout)")
        #expect(stderr == "checked 1 scenario file, 0 matrices: 0 findings\n")
    }
}
