import Foundation
import Testing

@Suite("the CLI runs a matrix's items command (MatrixPlan only asks for it)")
struct ItemsCommandTests {
    @Test("'flowmatrix plan' runs items.command through the CLI's process runner: its lines become jobs, a failure is MX029")
    func planRunsItemsCommand() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Data(#"""
            {"name": "items", "command": {"argv": ["echo", "{item}"], "items": {"command": ["printf", "alpha\nbeta\n"]}},
             "axes": {"locale": ["en"]}}
            """#.utf8).write(to: ws.root.appendingPathComponent("items.json"))
        let (status, output) = try await ws.run(["plan", "items.json", "--json"], label: "plan")
        #expect(status == 0, "\(output)")
        #expect(output.contains("\"jobs\": 2"), "\(output)")
        try Data(#"{"name": "items", "command": {"argv": ["echo", "{item}"], "items": {"command": ["sh", "-c", "echo nope >&2; exit 4"]}}, "axes": {"locale": ["en"]}}"#.utf8)
            .write(to: ws.root.appendingPathComponent("items.json"))
        let (failed, problems) = try await ws.run(["validate", "items.json"], label: "validate")
        #expect(failed == 1)
        #expect(problems.contains("MX029") && problems.contains("status 4: nope"), "\(problems)")
    }
}
