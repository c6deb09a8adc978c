import FlowVocabulary
import Foundation
import MatrixPlan

/// Exit codes shared by every subcommand and the worker executables: one table (`FlowVocabulary.ExitCode`).
public typealias ExitCode = FlowVocabulary.ExitCode

/// A runtime failure with a user-facing message and exit code (not a usage error).
public struct CommandFailure: Error, Sendable {
    public var message: String
    public var exitCode: Int32
    public init(_ message: String, exitCode: Int32 = ExitCode.ioError) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// A subcommand: its option table (which parses its arguments and writes its help), its help text and what it does.
public struct CommandSpec: Sendable {
    public var name: String
    public var overview: String
    /// What follows `flowmatrix <name>` besides the options, one line per form (`<matrix>`,
    /// `--resume <run-id> [<matrix>]`); the usage line adds the options (``CommandHelp/usage``).
    public var forms: [String]
    public var arguments: [(String, String)]
    /// The option table: parsing and the OPTIONS section both come from it (`-h, --help` is added).
    public var options: [CommandOption]
    public var subcommands: [(String, String)]
    public var discussion: String?
    /// Whether the arguments, `-h`/`--help` included, reach `run` unparsed, as positionals (a command that hands
    /// them to another program).
    public var forwardsArguments = false
    public var run: @Sendable (ParsedArguments) async throws -> Int32

    public init(
        name: String, overview: String, forms: [String] = [], arguments: [(String, String)] = [],
        options: [CommandOption] = [], subcommands: [(String, String)] = [], discussion: String? = nil,
        forwardsArguments: Bool = false, run: @escaping @Sendable (ParsedArguments) async throws -> Int32
    ) {
        self.name = name
        self.overview = overview
        self.forms = forms
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.discussion = discussion
        self.forwardsArguments = forwardsArguments
        self.run = run
    }

    /// The help, written from the option table.
    public var help: CommandHelp {
        CommandHelp(command: "flowmatrix \(name)", overview: overview, forms: forms, arguments: arguments,
                    options: options, subcommands: subcommands, discussion: discussion)
    }

    /// The full `--help` text: OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS.
    public var helpText: String { help.text }

    /// The usage line(s) a usage error prints after `Usage: `.
    public var usage: String { help.usage }

    /// Parses `arguments` (after the subcommand's name) with the option table; a forwarding command gets them all
    /// as positionals.
    /// - Throws: ``UsageError`` (see ``ParsedArguments/init(_:options:)``).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments(forwardsArguments ? ["--"] + arguments : arguments, options: forwardsArguments ? [] : options)
    }
}

extension CommandOption {
    /// The largest `--max-jobs` accepted.
    static let maximumJobLimit = 1_000_000_000

    /// `--max-jobs <n>`: the plan's job limit (MX025), as `plan`, `run`, `serve` and `validate` take it.
    static func maxJobs(_ help: String) -> CommandOption {
        CommandOption("--max-jobs", value: .integer("<n>", 1...maximumJobLimit), help: help,
                      default: .value(String(PlanSettings.defaultMaximumJobs)))
    }

    /// `--store <dir>`: the store folder (journal, blobs, reports).
    static func store(_ help: String = "The store: journal, blobs and reports.") -> CommandOption {
        CommandOption("--store", value: .text("<dir>"), help: help, default: .value(".flowmatrix"))
    }
}

extension ParsedArguments {
    /// Plan settings from `--max-jobs <n>` (the plan's job limit, MX025), with the built-in registries' manifests.
    var planSettings: PlanSettings {
        var settings = PlanSettings()
        if let n = integer("--max-jobs") { settings.maximumJobs = n }
        settings.registryManifests = BuiltInRegistries.manifests
        settings.webSiteManifest = BuiltInRegistries.webSiteManifest
        settings.itemsCommandRunner = ProcessItemsRunner()
        return settings
    }

    /// The positional arguments, at most `count` of them.
    /// - Throws: ``UsageError`` naming the first one too many.
    func positionals(atMost count: Int) throws(UsageError) -> [String] {
        guard positionals.count <= count else { throw UsageError("unexpected argument '\(positionals[count])'") }
        return positionals
    }
}
