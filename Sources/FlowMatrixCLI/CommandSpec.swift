import Foundation
import MatrixPlan
import Worker

/// Exit codes shared by every subcommand and the worker executables: one table (`Worker.ExitCode`).
public typealias ExitCode = Worker.ExitCode

/// A usage error: printed as `Error: …` then the command's usage line, exit 64.
public struct UsageError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A runtime failure with a user-facing message and exit code (not a usage error).
public struct CommandFailure: Error, Sendable {
    public var message: String
    public var exitCode: Int32
    public init(_ message: String, exitCode: Int32 = ExitCode.ioError) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// A subcommand: its help text and what it does.
public struct CommandSpec: Sendable {
    public var name: String
    public var overview: String
    /// The usage line after `flowmatrix `, e.g. `validate [--json] <path> ...`.
    public var usage: String
    public var arguments: [(String, String)]
    public var options: [(String, String)]
    public var subcommands: [(String, String)]
    public var discussion: String?
    /// Whether `-h`/`--help` reaches `run` (a command that hands its arguments to another program).
    public var forwardsHelp = false
    public var run: @Sendable (inout ArgumentList) async throws -> Int32

    public init(
        name: String, overview: String, usage: String, arguments: [(String, String)] = [],
        options: [(String, String)] = [], subcommands: [(String, String)] = [], discussion: String? = nil,
        forwardsHelp: Bool = false, run: @escaping @Sendable (inout ArgumentList) async throws -> Int32
    ) {
        self.name = name
        self.overview = overview
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.discussion = discussion
        self.forwardsHelp = forwardsHelp
        self.run = run
    }

    /// The full `--help` text: OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS.
    public var helpText: String {
        var out = "OVERVIEW: \(overview)\n\nUSAGE: flowmatrix \(usage)\n"
        func section(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            out += "\n\(title):\n"
            let width = min(28, rows.map(\.0.count).max() ?? 0)
            for (name, text) in rows {
                if name.count > width {
                    out += "  \(name)\n" + String(repeating: " ", count: width + 4) + text + "\n"
                } else {
                    out += "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + text + "\n"
                }
            }
        }
        section("ARGUMENTS", arguments)
        section("OPTIONS", options + [("-h, --help", "Show help information.")])
        section("SUBCOMMANDS", subcommands)
        if let discussion { out += "\n\(discussion)\n" }
        return out
    }
}

/// Hand-written argument list: flags and options are taken out by name, what remains is positional.
///
/// Both `--name value` and `--name=value` are accepted; `--` ends option parsing.
public struct ArgumentList: Sendable {
    private var items: [String]
    private var afterDashDash: [String] = []

    public init(_ arguments: [String]) {
        if let i = arguments.firstIndex(of: "--") {
            items = Array(arguments[..<i])
            afterDashDash = Array(arguments[(i + 1)...])
        } else {
            items = arguments
        }
    }

    /// True when any of `names` is present (and removes it).
    public mutating func flag(_ names: String...) -> Bool {
        var found = false
        items.removeAll { item in
            if names.contains(item) { found = true; return true }
            return false
        }
        return found
    }

    /// Every value of a repeatable option.
    public mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var rest: [String] = []
        var i = 0
        while i < items.count {
            let item = items[i]
            if item == name {
                guard i + 1 < items.count else { throw UsageError("missing value for '\(name)'") }
                values.append(items[i + 1])
                i += 2
                continue
            }
            if item.hasPrefix(name + "=") {
                values.append(String(item.dropFirst(name.count + 1)))
            } else {
                rest.append(item)
            }
            i += 1
        }
        items = rest
        return values
    }

    /// The value of a single-valued option, or nil when absent; given twice is a usage error.
    public mutating func option(_ name: String) throws -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError("'\(name)' given more than once") }
        return values.first
    }

    /// An integer option within `range`.
    public mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("'\(name)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// Takes `--max-jobs <n>` (the plan's job limit, MX025) into plan settings; absent means the default.
    public mutating func planSettings() throws -> PlanSettings {
        var settings = PlanSettings()
        if let n = try intOption("--max-jobs", in: 1...Self.maximumJobLimit) { settings.maximumJobs = n }
        settings.registryManifests = BuiltInRegistries.manifests
        settings.itemsCommandRunner = ProcessItemsRunner()
        return settings
    }

    /// The largest `--max-jobs` accepted.
    public static let maximumJobLimit = 1_000_000_000

    /// Takes the remaining positional arguments; an unknown `-flag` left over is a usage error.
    /// Every argument not taken yet, as given (a `--` and what follows it kept), for a command that hands them on.
    public mutating func remaining() -> [String] {
        defer { items = []; afterDashDash = [] }
        return items + (afterDashDash.isEmpty ? [] : ["--"] + afterDashDash)
    }

    public mutating func positionals() throws -> [String] {
        if let unknown = items.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw UsageError("unknown option '\(unknown)'")
        }
        defer { items = []; afterDashDash = [] }
        return items + afterDashDash
    }

    /// Every remaining argument, unparsed (for commands that hand their flags to another parser).
    public mutating func takeAll() -> [String] {
        defer { items = []; afterDashDash = [] }
        return items + afterDashDash
    }

    /// Fails when anything is left unconsumed.
    public mutating func finish() throws {
        let rest = try positionals()
        if let first = rest.first { throw UsageError("unexpected argument '\(first)'") }
    }
}
