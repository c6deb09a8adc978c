import Foundation
import Testing

/// The `test` registry (its `crash` target ends the process) lives in `test-worker`, not in `flowmatrix worker`.
@Suite("test-worker and the production worker", .timeLimit(.minutes(2)))
struct TestWorkerTests {
    @Test("flowmatrix worker does not host 'test'; its local workers refuse a test matrix before anything runs")
    func productionWorkerRefusesTest() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await ws.run(["worker", "--registry", "test", "--connect", "127.0.0.1:1"], label: "w")
        #expect(status == 64, "\(output)")
        #expect(output.contains("Error: unknown registry 'test'; built in: noop, catalog, web"), "\(output)")
        let (help, helpText) = try await ws.run(["help", "worker"], label: "help")
        #expect(help == 0 && helpText.contains("Built-in registries: noop, catalog, web"), "\(helpText)")

        try ws.scenario("passes", ["pass"])
        let matrix = try ws.matrix()
        let (run, runOutput) = try await ws.run(["run", matrix, "--workers", "1"], label: "run", localWorkers: .flowmatrix)
        #expect(run == 65, "\(runOutput)")
        #expect(runOutput.contains("the matrix needs registry 'test', which local workers do not host"), "\(runOutput)")
        #expect(try ws.latestRunID() == nil, "nothing was journaled")
    }

    @Test("run --worker-executable test-worker runs the test matrix; a missing program is a usage error")
    func runWithTestWorker() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("passes", ["pass"])
        try ws.scenario("fails", ["fail"])
        let matrix = try ws.matrix()
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1"], label: "run")
        #expect(status == 1, "\(output)")
        #expect(output.contains("2 passed, 2 failed"), "\(output)")
        let (missing, missingOutput) = try await ws.run(
            ["run", matrix, "--worker-executable", ws.root.appendingPathComponent("nothing").path], label: "missing",
            localWorkers: .flowmatrix)
        #expect(missing == 64, "\(missingOutput)")
        #expect(missingOutput.contains("'--worker-executable' takes an executable file"), "\(missingOutput)")
    }

    @Test("run --worker-executable asks the program for its registries and refuses a matrix none of them serves")
    func workerExecutableRegistries() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let lister = try ws.startTestWorker(["--registry", "noop", "--list-registries"], label: "list")
        try await ws.waitForExit(lister, timeout: .seconds(30))
        #expect(lister.terminationStatus == 0)
        #expect(ws.output("list").split(separator: "\n") == ["noop"], "\(ws.output("list"))")

        try ws.scenario("passes", ["pass"])
        let matrix = try ws.matrix(registry: "catalog")
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1"], label: "run")
        #expect(status == 65, "\(output)")
        #expect(output.contains("the matrix needs registry 'catalog', which local workers do not host"), "\(output)")
        #expect(try ws.latestRunID() == nil, "nothing was journaled")
    }

    @Test("test-worker refuses a registry it does not host with a usage error")
    func testWorkerUsage() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let p = try ws.startTestWorker(["--registry", "catalog", "--connect", "127.0.0.1:1"], label: "tw")
        try await ws.waitForExit(p, timeout: .seconds(30))
        #expect(p.terminationStatus == 64)
        #expect(ws.output("tw").contains("'--registry' takes test, test-ui or noop, not 'catalog'"), "\(ws.output("tw"))")
    }
}
