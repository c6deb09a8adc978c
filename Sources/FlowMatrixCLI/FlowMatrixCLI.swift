import FlowSpec
import FlowVocabulary
import Foundation
import Journal

/// The `flowmatrix` command line: dispatch, help and error reporting.
public enum FlowMatrixCLI {
    public static let version = "0.1.0"

    /// Every subcommand, in the order `--help` lists them. Add a command by adding its spec here.
    public static var commands: [CommandSpec] {
        [
            PlanCommand.spec,
            RunCommand.spec,
            RunCommand.serveSpec,
            MergeCommand.spec,
            CICommand.spec,
            WorkerCommand.spec,
            RunsCommand.spec,
            RunsCommand.showSpec,
            ArtifactsCommand.spec,
            ArtifactsCommand.gcSpec,
            ValidateCommand.spec,
            ReportCommand.spec,
            DiffCommand.spec,
            BaselineCommand.spec,
            IsolateCommand.spec,
            BenchLauncher.spec,
        ]
    }

    static var topHelp: String {
        var out = """
            OVERVIEW: FlowMatrix runs a FlowSpec scenario corpus across a configuration matrix
            (locale, direction, orientation, window, network, custom axes) on local or remote workers.

            USAGE: flowmatrix <subcommand> [options]

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:

            """
        for c in commands {
            out += "  " + c.name.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + c.overview + "\n"
        }
        out += "\n  See 'flowmatrix help <subcommand>' for detailed help.\n"
        return out
    }

    /// Runs the CLI with `arguments` (without the program name) and returns the exit code.
    /// - Parameter commands: the subcommands to dispatch to (every `flowmatrix` command by default;
    ///   `flowmatrix-bench` passes its own).
    public static func main(_ arguments: [String], commands: [CommandSpec] = commands) async -> Int32 {
        guard let first = arguments.first else {
            writeError("Error: missing subcommand\nUsage: flowmatrix <subcommand> [options]\n  See 'flowmatrix --help' for more information.\n")
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            print(topHelp, terminator: "")
            return ExitCode.success
        case "--version":
            print(version)
            return ExitCode.success
        case "help":
            guard arguments.count > 1 else { print(topHelp, terminator: ""); return ExitCode.success }
            guard let spec = commands.first(where: { $0.name == arguments[1] }) else {
                writeError("Error: unknown subcommand '\(arguments[1])'\nUsage: flowmatrix help <subcommand>\n  See 'flowmatrix --help' for more information.\n")
                return ExitCode.usage
            }
            if spec.forwardsArguments { return await main([spec.name, "--help"], commands: commands) }
            print(spec.helpText, terminator: "")
            return ExitCode.success
        default:
            break
        }
        guard let spec = commands.first(where: { $0.name == first }) else {
            writeError("Error: unknown subcommand '\(first)'\nUsage: flowmatrix <subcommand> [options]\n  See 'flowmatrix --help' for more information.\n")
            return ExitCode.usage
        }
        do {
            let arguments = try spec.parse(Array(arguments.dropFirst()))
            if !spec.forwardsArguments, arguments.has(CommandOption.help.name) {
                print(spec.helpText, terminator: "")
                return ExitCode.success
            }
            return try await spec.run(arguments)
        } catch let error as UsageError {
            writeError(usageError(error, of: spec))
            return ExitCode.usage
        } catch let failure as CommandFailure {
            writeError("Error: \(failure.message)\n")
            return failure.exitCode
        } catch let error as JournalError where error.isReadOnly {
            writeError("Error: the store is read-only (\(error.operation)): '\(spec.name)' records in the journal, so it needs "
                + "a store it can write; 'runs' and 'show' still read this one\n")
            return ExitCode.ioError
        } catch let error as JournalError where error.isDamaged {
            // What failed and how to go on, not the query that met the damage.
            writeError("Error: \(error.userText)\n")
            return ExitCode.ioError
        } catch {
            writeError("Error: \(FileErrorText.sentence(error))\n")
            return ExitCode.ioError
        }
    }

    /// What a usage error prints: `Error: …`, the command's usage line, and where its help is.
    static func usageError(_ error: UsageError, of spec: CommandSpec) -> String {
        "Error: \(error.message)\nUsage: \(spec.usage)\n  See 'flowmatrix \(spec.name) --help' for more information.\n"
    }

    /// Prints a line to standard output and flushes it, so progress reaches files and pipes as it happens.
    public static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Writes to standard error, unbuffered.
    public static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
