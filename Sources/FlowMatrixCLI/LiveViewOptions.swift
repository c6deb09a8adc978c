import FlowVocabulary
import Foundation
import LiveView
import Worker

/// `--http [ADDR:]PORT`, `--http-token-file <file>`, `--http-linger <seconds>` of `run` and `serve`: the live view
/// (docs/REPORTS.md, "Live view").
struct LiveViewOptions: Sendable {
    var host = "127.0.0.1"
    var port = 0
    /// Required off loopback (the rule of `serve --listen`).
    var token: [UInt8]?
    /// How long the finished report stays served after the run (default 0: the command exits).
    var linger: Duration = .zero

    static let options: [CommandOption] = [
        CommandOption("--http", value: .text("<[addr:]port>"),
                      help: "Serve the live report page while the run goes (loopback unless an address is given)."),
        CommandOption("--http-token-file", value: .text("<f>"),
                      help: "The token browsers present once as ?token= (required off loopback; no TLS)."),
        CommandOption("--http-linger", value: .integer("<s>", 0...86_400),
                      help: "Keep serving the finished report this many seconds after the run.", default: .described("0")),
    ]

    /// Reads the options; nil when `--http` is not given.
    /// - Throws: `UsageError` for a malformed address, a non-loopback address without a token file, or options
    ///   without `--http`.
    static func parse(_ args: ParsedArguments) throws -> LiveViewOptions? {
        let address = args.value("--http")
        let tokenFile = args.value("--http-token-file")
        let linger = args.integer("--http-linger")
        guard let address else {
            if tokenFile != nil || linger != nil { throw UsageError("'--http-token-file' and '--http-linger' go with '--http'") }
            return nil
        }
        var options = LiveViewOptions()
        if let port = Int(address), (0...65535).contains(port) {
            options.port = port
        } else if let (host, port) = WorkerMain.splitHostPort(address) {
            (options.host, options.port) = (host, port)
        } else {
            throw UsageError("'--http' takes a port or addr:port (e.g. 8080, 127.0.0.1:8080, 0.0.0.0:8080), not '\(address)'")
        }
        if let tokenFile {
            options.token = try RunCommand.readToken(tokenFile)
        } else if !RunCommand.isLoopback(options.host) {
            throw UsageError("serving the live view on \(options.host) (not loopback) needs --http-token-file: "
                + "browsers must present a token")
        }
        options.linger = .seconds(linger ?? 0)
        return options
    }

    /// Starts the live server for a run.
    func start(runID: String, jobs: Int, journalPath: String) async throws -> LiveServer {
        do {
            return try await LiveServer.start(host: host, port: port, token: token, runID: runID, jobs: jobs,
                                              journalPath: journalPath)
        } catch {
            throw CommandFailure("cannot serve the live view on \(host):\(port): \(error)")
        }
    }

    /// The URL to open (a token is not printed: the person has its file).
    func url(port bound: Int) -> String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown == "0.0.0.0" || shown == "[::]" ? "<this host>" : shown):\(bound)/" + (token == nil ? "" : "?token=<token>")
    }
}
