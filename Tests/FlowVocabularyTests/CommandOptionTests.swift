import FlowVocabulary
import Testing

/// The option table: one declaration parses a command line and writes its help.
@Suite("Command option tables")
struct CommandOptionTests {
    static let table: [CommandOption] = [
        CommandOption("--json", help: "Print JSON."),
        CommandOption("--store", value: .text("<dir>"), help: "The store.", default: .value(".flowmatrix")),
        CommandOption("--slots", value: .integer("<n>", 1...8), help: "Jobs at once.", default: .described("the core count")),
        CommandOption("--label", value: .text("<key=value>"), help: "A label.", repeatable: true),
        CommandOption("--artifacts", value: .choice(["failed", "all", "none"]), help: "Which artifacts."),
    ]

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments(arguments, options: Self.table)
    }

    func error(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("options are read by name, in either spelling, anywhere before '--'; the rest is positional in order")
    func values() throws {
        let parsed = try parse(["a", "--slots", "3", "--label=os=linux", "-", "--label", "gpu=no", "--json", "--", "--json", "b"])
        #expect(parsed.has("--json"))
        #expect(parsed.integer("--slots") == 3)
        #expect(parsed.values("--label") == ["os=linux", "gpu=no"])
        #expect(parsed.positionals == ["a", "-", "--json", "b"])
        #expect(parsed.givenNames == ["--json", "--slots", "--label"])
    }

    @Test("an absent option gives its default value; a described default is only said in help")
    func defaults() throws {
        let parsed = try parse([])
        #expect(parsed.value("--store") == ".flowmatrix")
        #expect(!parsed.has("--store"))
        #expect(parsed.integer("--slots") == nil)
        #expect(parsed.values("--label") == [])
        #expect(try parse(["--store", "elsewhere"]).value("--store") == "elsewhere")
    }

    @Test("unknown options, missing values and bad values are plain-language usage errors")
    func errors() {
        #expect(error(["--wrokers", "2"]) == "unknown option '--wrokers'")
        #expect(error(["-x"]) == "unknown option '-x'")
        #expect(error(["--store"]) == "missing value for '--store' (<dir>)")
        #expect(error(["--slots", "nine"]) == "'--slots' takes a whole number from 1 to 8, not 'nine'")
        #expect(error(["--slots=0"]) == "'--slots' takes a whole number from 1 to 8, not '0'")
        #expect(error(["--artifacts", "some"]) == "'--artifacts' takes failed, all or none, not 'some'")
        #expect(error(["--json=yes"]) == "'--json' takes no value")
        #expect(error(["--store", "a", "--store", "b"]) == "'--store' given more than once")
        #expect(error(["--json", "--json", "--label", "a=b", "--label", "c=d"]) == nil, "flags and repeatable options repeat")
    }

    @Test("an attached-value option is a flag alone, takes its value only after '=', and never takes the next word")
    func attachedValue() throws {
        let table = Self.table + [CommandOption("--isolate", value: .attachedText("<budget>"), help: "Isolate.")]
        let alone = try ParsedArguments(["--isolate", "m.json"], options: table)
        #expect(alone.has("--isolate") && alone.value("--isolate") == "" && alone.positionals == ["m.json"])
        let given = try ParsedArguments(["m.json", "--isolate=30%"], options: table)
        #expect(given.value("--isolate") == "30%" && given.positionals == ["m.json"])
        #expect(try ParsedArguments([], options: table).value("--isolate") == nil)
        #expect(table.last?.synopsis == "--isolate[=<budget>]" && table.last?.usageSynopsis == "[--isolate[=<budget>]]")
    }

    @Test("-h and --help are in every table")
    func help() throws {
        #expect(try parse(["-h"]).has("--help"))
        #expect(try parse(["x", "--help"]).has("--help"))
        #expect(try ParsedArguments(["--help"], options: []).has("--help"))
    }

    @Test("help lists every option of the table with its value, default and repeatability, then -h, --help")
    func helpText() {
        let help = CommandHelp(command: "tool", overview: "Does things.", forms: ["<path>"],
                               arguments: [("<path>", "A file.")], options: Self.table, discussion: "EXIT CODES: 0.")
        #expect(help.usage == "tool <path> [--json] [--store <dir>] [--slots <n>] [--label <key=value> ...] "
            + "[--artifacts failed|all|none]")
        let text = help.text
        #expect(text.hasPrefix("OVERVIEW: Does things.\n\nUSAGE: tool <path> [--json]"))
        // The widest name (`--artifacts failed|all|none`) sets the column.
        func row(_ name: String, _ help: String) -> String {
            "  " + name + String(repeating: " ", count: 27 - name.count) + "  " + help + "\n"
        }
        #expect(text.contains("\nOPTIONS:\n" + row("--json", "Print JSON.")))
        #expect(text.contains(row("--slots <n>", "Jobs at once (default: the core count).")))
        #expect(text.contains(row("--label <key=value>", "A label (repeatable).")))
        #expect(text.contains(row("--store <dir>", "The store (default: .flowmatrix).")))
        #expect(text.contains(row("-h, --help", "Show help information.")))
        #expect(text.hasSuffix("\nEXIT CODES: 0.\n"))
    }

    @Test("a usage line too wide for one line names [<options>]; later forms go under the first")
    func wideUsage() {
        let many = (1...30).map { CommandOption("--option-\($0)", value: .text("<value>"), help: "An option.") }
        let help = CommandHelp(command: "tool", overview: "", forms: ["<a>", "--other <b>"], options: many)
        #expect(help.usage == "tool <a> [<options>]\n       tool --other <b>")
    }

    @Test("long help text wraps under itself within the usage width")
    func wrapping() {
        let text = String(repeating: "word ", count: 60)
        let section = CommandHelp.section("OPTIONS", [("--x", text)])
        let lines = section.split(separator: "\n").dropFirst()
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.count <= CommandHelp.usageWidth })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 7)) })
    }
}
