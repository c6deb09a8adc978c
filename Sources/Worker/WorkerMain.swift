import FlowSpec
import FlowVocabulary
import Foundation
import UVTransport

/// The entry point of a worker executable: parse the command line, connect, serve, exit with a documented code.
///
/// A worker hosting your own registries is a few lines (see Workers/README.md):
/// ```swift
/// import Foundation
/// import Worker  // the module of the `FlowMatrixWorker` library product
/// exit(await WorkerMain.run(registries: [RegistryFactory(name: "myapp") { job in MyRegistry(job) }]))
/// ```
public enum WorkerMain {
    /// Exit codes: 0 drained or stopped, 2 gave up reconnecting, 3 still rejected when `--give-up-after` ran out
    /// (a rejection before the coordinator authenticated is never final on its own), 64 usage error.
    public static let usage = """
        USAGE: <worker> --connect <host:port> [--token-file <file>] [--slots <n>] [--label <key=value>]...
                        [--name <name>] [--give-up-after <seconds>] [--exit-after-drain]

        OPTIONS:
          --connect <host:port>   The coordinator's address (numeric IPv4 or [IPv6]:port).
          --token-file <file>     File holding the shared token (or set FLOWMATRIX_TOKEN).
          --slots <n>             Jobs run at once (default: the core count).
          --label <key=value>     A label matched against matrices' required labels (repeatable).
          --name <name>           The name shown in reports (default: <hostname>-<pid>).
          --give-up-after <s>     Exit (code 2) when no coordinator answered for this many seconds.
          --exit-after-drain      Exit (code 0) when the coordinator drains this worker, instead of reconnecting.
          --list-registries       Print the registries this worker hosts, one per line, and exit (code 0); a
                                  coordinator's `run --worker-executable` reads it to refuse a matrix none hosts.
          --list-registries --json
                                  Print their manifests instead (steps wired, assert clauses, axes honoured) as
                                  {"manifestVersion": 1, "registries": [...]}; `flowmatrix validate` checks with them.

        EXIT CODES: 0 drained or stopped, 2 gave up reconnecting, 3 still rejected (wrong token or protocol version)
        when --give-up-after ran out, 64 usage error. A rejection is retried with back-off until then: it arrives
        before the coordinator proved the token, so anyone on that address could have sent it.
        """

    /// Parses worker flags. - Throws: a message for a usage error.
    public static func parse(_ arguments: [String]) throws(WorkerUsageError) -> WorkerSettings {
        var connect: String?
        var tokenFile: String?
        var slots = ProcessInfo.processInfo.activeProcessorCount
        var labels: [String] = []
        var name = "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        var giveUp: Duration?
        var exitAfterDrain = false
        var i = 0
        func value(_ flag: String) throws(WorkerUsageError) -> String {
            guard i + 1 < arguments.count else { throw WorkerUsageError("missing value for '\(flag)'") }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--connect": connect = try value(arg)
            case "--token-file": tokenFile = try value(arg)
            case "--slots":
                let text = try value(arg)
                guard let n = Int(text), (1...1024).contains(n) else {
                    throw WorkerUsageError("'--slots' takes a whole number from 1 to 1024, not '\(text)'")
                }
                slots = n
            case "--label":
                let text = try value(arg)
                guard text.contains("="), !text.hasPrefix("=") else { throw WorkerUsageError("'--label' takes key=value, not '\(text)'") }
                labels.append(text)
            case "--name": name = try value(arg)
            case "--give-up-after":
                let text = try value(arg)
                guard let s = Double(text), s > 0 else { throw WorkerUsageError("'--give-up-after' takes seconds > 0, not '\(text)'") }
                giveUp = .milliseconds(Int64(s * 1000))
            case "--exit-after-drain": exitAfterDrain = true
            default: throw WorkerUsageError("unknown option '\(arg)'")
            }
            i += 1
        }
        guard let connect else { throw WorkerUsageError("missing '--connect <host:port>'") }
        guard let (host, port) = splitHostPort(connect) else {
            throw WorkerUsageError("'--connect' takes host:port (e.g. 127.0.0.1:7700 or [::1]:7700), not '\(connect)'")
        }
        let token: [UInt8]
        if let tokenFile {
            do {
                let read = try TokenFile.read(tokenFile)
                token = read.token
                if let warning = read.warning { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            } catch {
                throw WorkerUsageError((error as? TokenFileError)?.message ?? "\(error)")
            }
        } else if let env = ProcessInfo.processInfo.environment["FLOWMATRIX_TOKEN"] {
            token = Array(env.utf8)
        } else {
            throw WorkerUsageError("no token: pass '--token-file <file>' or set FLOWMATRIX_TOKEN")
        }
        if let problem = TokenFile.problem(with: token) { throw WorkerUsageError("the token: \(problem)") }
        var settings = WorkerSettings(host: host, port: port, token: token, name: name, slots: slots, labels: labels)
        settings.giveUpAfter = giveUp
        settings.exitAfterDrain = exitAfterDrain
        return settings
    }

    /// `host:port` or `[v6]:port` → parts.
    public static func splitHostPort(_ text: String) -> (String, Int)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
            return (host, port)
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let host = String(text[..<colon])
        guard !host.isEmpty, !host.contains(":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        return (host, port)
    }

    /// Asks a worker executable for the registries it hosts (`run --worker-executable` checks a matrix against them).
    public static let listRegistriesFlag = "--list-registries"

    /// With `--list-registries`: print the manifests as JSON (`RegistryManifest.Document`) instead of names.
    public static let jsonFlag = "--json"

    /// The `--list-registries --json` document of `registries`: sorted keys, one manifest per registry.
    /// - Throws: `EncodingError` (not expected: the document holds only strings, arrays and an integer).
    public static func manifestJSON(_ registries: [RegistryFactory]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = RegistryManifest.Document(registries: registries.map(\.manifest))
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    /// Parses `arguments`, runs the worker with `registries`, and returns the process exit code.
    public static func run(registries: [RegistryFactory], arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            print("OVERVIEW: A FlowMatrix worker hosting: \(registries.map(\.name).sorted().joined(separator: ", "))\n\n\(usage)")
            return ExitCode.success
        }
        if arguments.contains(listRegistriesFlag) {
            guard arguments.contains(jsonFlag) else {
                print(registries.map(\.name).sorted().joined(separator: "\n"))
                return ExitCode.success
            }
            do {
                print(try manifestJSON(registries))
                return ExitCode.success
            } catch {
                FileHandle.standardError.write(Data("Error: cannot encode the registry manifests: \(error)\n".utf8))
                return ExitCode.failures
            }
        }
        let settings: WorkerSettings
        do {
            settings = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.message)\n\(usage)\n".utf8))
            return ExitCode.usage
        }
        return await serve(registries: registries, settings: settings)
    }

    /// Runs the worker with `registries` and parsed `settings` (a host with its own command line, such as
    /// `flowmatrix worker`, parses with `parse` and reports usage errors its own way), and returns the exit code.
    public static func serve(registries: [RegistryFactory], settings: WorkerSettings) async -> Int32 {
        InheritedDescriptors.closeOnExec()
        var settings = settings
        let name = settings.name
        settings.onNotice = { line in FileHandle.standardError.write(Data("worker \(name): \(line)\n".utf8)) }
        let runtime = WorkerRuntime(settings: settings, registries: registries)
        // SIGTERM (a fleet manager stopping the worker) or Ctrl-C: stop cleanly — the jobs it holds are cancelled,
        // their process groups killed, and the connection closed so the coordinator runs them again elsewhere; the
        // worker exits 0 ("stopped"). A second signal exits at once (130).
        let notice = settings.onNotice
        let interrupts = InterruptHandler { count in
            guard count == 1 else { Foundation.exit(ExitCode.interrupted) }
            notice?("stopping: cancelling the jobs it holds (the coordinator runs them again)")
            runtime.stop()
        }
        let exit = await runtime.run()
        interrupts.cancel()
        FileHandle.standardError.write(Data("worker \(settings.name): \(exit) after \(runtime.jobsRun) attempt(s)\n".utf8))
        switch exit {
        case .drained, .stopped: return ExitCode.success
        case .gaveUp: return ExitCode.gaveUp
        case .rejected: return ExitCode.rejected
        }
    }
}

/// A worker command-line error.
public struct WorkerUsageError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
