import FlowMatrixCLI
import Foundation
import Testing

/// Issue 33 §3: one option table per command parses its arguments and writes its help, for `flowmatrix` and for the
/// worker executables built on WorkerMain.
@Suite("option tables on the command line", .timeLimit(.minutes(3)))
struct OptionTableTests {
    /// The left column of a help text's OPTIONS section: `--store <dir>`, `-h, --help`.
    static func optionSynopses(_ help: String) -> [String] {
        guard let start = help.range(of: "\nOPTIONS:\n") else { return [] }
        var rows: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard line.hasPrefix("  -") else { continue }  // a wrapped help line is indented further
            let row = line.dropFirst(2)
            rows.append(String(row.range(of: "  ").map { row[..<$0.lowerBound] } ?? row))
        }
        return rows
    }

    static var parsingCommands: [CommandSpec] { FlowMatrixCLI.commands.filter { !$0.forwardsArguments } }

    @Test("every subcommand's --help and 'help <cmd>' list exactly the options of its table, then -h, --help")
    func helpListsTheTable() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for spec in Self.parsingCommands {
            let table = spec.options.map(\.synopsis) + ["-h, --help"]
            #expect(Set(table).count == table.count, "\(spec.name): an option listed twice")
            for invocation in [[spec.name, "--help"], ["help", spec.name]] {
                let label = "help-" + invocation.joined(separator: "-")
                let (status, _) = try await ws.run(invocation, label: label)
                let help = ws.streams(label).stdout
                #expect(status == 0, "\(invocation): \(help)")
                #expect(Self.optionSynopses(help) == table, "\(invocation)")
                #expect(help.contains("USAGE: flowmatrix \(spec.name)"), "\(invocation)")
            }
        }
    }

    @Test("test-worker's help lists WorkerMain's table: flowmatrix worker's without --allow-commands")
    func workerHelp() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let worker = try #require(FlowMatrixCLI.commands.first { $0.name == "worker" })
        let p = try ws.startTestWorker(["--help"], label: "help")
        try await ws.waitForExit(p, timeout: .seconds(30))
        #expect(p.terminationStatus == 0)
        let expected = worker.options.filter { $0.name != "--allow-commands" }.map(\.synopsis) + ["-h, --help"]
        #expect(Self.optionSynopses(ws.streams("help").stdout) == expected, "\(ws.output("help"))")
        #expect(ws.streams("help").stdout.contains("USAGE: test-worker --connect <host:port>"))
    }

    @Test("an unknown option, a missing value and a bad value exit 64 with Error:, the usage line and where help is")
    func usageErrors() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for spec in Self.parsingCommands {
            let label = "unknown-\(spec.name)"
            let (status, _) = try await ws.run([spec.name, "--no-such-option"], label: label)
            let stderr = ws.streams(label).stderr
            #expect(status == 64, "\(spec.name): \(stderr)")
            #expect(stderr.hasPrefix("Error: unknown option '--no-such-option'\nUsage: flowmatrix \(spec.name)"), "\(stderr)")
            #expect(stderr.hasSuffix("  See 'flowmatrix \(spec.name) --help' for more information.\n"), "\(stderr)")
        }
        let cases: [([String], String)] = [
            (["runs", "--store"], "Error: missing value for '--store' (<dir>)"),
            (["report", "last", "--artifacts", "some"], "Error: '--artifacts' takes failed, all or none, not 'some'"),
            (["worker", "--slots", "0", "--connect", "127.0.0.1:1"], "Error: '--slots' takes a whole number from 1 to 1024, not '0'"),
            (["worker", "--json"], "Error: '--json' goes with '--list-registries'"),
            (["plan", "--json=yes", "m.json"], "Error: '--json' takes no value"),
            (["show", "last", "--store", "a", "--store", "b"], "Error: '--store' given more than once"),
        ]
        for (arguments, message) in cases {
            let label = "bad-" + arguments.joined(separator: "_").replacingOccurrences(of: "/", with: "_")
            let (status, _) = try await ws.run(arguments, label: label)
            #expect(status == 64, "\(arguments): \(ws.output(label))")
            #expect(ws.streams(label).stderr.hasPrefix(message + "\nUsage: flowmatrix \(arguments[0])"), "\(ws.output(label))")
        }
    }

    @Test("worker --list-registries answers whatever connection options come with it, as every WorkerMain worker does")
    func listRegistries() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // The connection options of 'run --worker-executable' and of a fleet's unit file, with --list-registries.
        let connection = ["--connect", "127.0.0.1:1", "--slots", "2", "--label", "os=linux", "--name", "w1"]
        let (status, names) = try await ws.run(["worker", "--list-registries"] + connection, label: "names")
        #expect(status == 0, "\(ws.output("names"))")
        #expect(names == "catalog\nnoop\nweb\n")
        let (jsonStatus, _) = try await ws.run(["worker"] + connection + ["--allow-commands", "--list-registries", "--json"],
                                               label: "json")
        #expect(jsonStatus == 0, "\(ws.output("json"))")
        let document = try JSONSerialization.jsonObject(with: Data(ws.streams("json").stdout.utf8)) as? [String: Any]
        let registries = (document?["registries"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(registries ?? []) == ["catalog", "command", "noop", "web"], "\(ws.output("json"))")
        let (oneStatus, one) = try await ws.run(["worker", "--registry", "web", "--list-registries"], label: "one")
        #expect(oneStatus == 0 && one == "web\n", "\(one)")

        let p = try ws.startTestWorker(["--registry", "noop", "--list-registries"] + connection, label: "test-worker")
        try await ws.waitForExit(p, timeout: .seconds(30))
        #expect(p.terminationStatus == 0)
        #expect(ws.streams("test-worker").stdout == "noop\n", "\(ws.output("test-worker"))")
    }
}
