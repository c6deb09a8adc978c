import Dispatch
import Foundation
import Synchronization
import UVTransport

/// A small HTTP/1.1 server for a folder of static files on 127.0.0.1 (GET and HEAD, one request per connection), so a
/// sample site is served over HTTP — the browser's network emulation (latency, throughput, offline) applies to
/// HTTP requests, not to `file://` loads. It is UVTransport's hardened `HTTPServer` on a libuv loop thread of its own
/// (started here, ended by `stop`); files are streamed from disk in 64 KiB parts as the socket takes them, never
/// held whole in memory (docs/WEB.md, "Pointing it at your own site").
public final class StaticFileServer: Sendable {
    public let root: URL
    public let port: Int
    private let loop: EventLoop
    private let server: HTTPServer

    /// The bounds the static server runs with: `HTTPLimits`' defaults, except up to 256 connections at once (a
    /// browser opens six per host and per context, and a worker runs several contexts).
    public static var limits: HTTPLimits {
        var limits = HTTPLimits()
        limits.maximumConnections = 256
        return limits
    }

    /// Serves `root` on an ephemeral port of 127.0.0.1.
    /// - Throws: `ServerError` when the loop cannot listen.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        let loop = EventLoop()
        loop.start()
        let listening = Listening()
        let root = self.root
        let accepted = loop.execute {
            listening.finish(Result {
                try HTTPServer.listenInLoop(
                    on: loop, host: "127.0.0.1", port: 0, limits: Self.limits,
                    handler: StaticFileResponder(root: root))
            })
        }
        if !accepted { listening.finish(.failure(ServerError("the event loop is shut down"))) }
        switch listening.wait() {
        case .success(let server):
            self.loop = loop
            self.server = server
            port = server.port
        case .failure(let error):
            loop.shutdown()
            throw (error as? ServerError) ?? ServerError("listen on 127.0.0.1: \(error)")
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>/`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Closes the listener and every connection, and ends the loop thread. Safe to call twice.
    public func stop() {
        _ = loop.execute { [server] in server.closeInLoop() }
        loop.shutdown()
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// The outcome of listening, handed from the loop thread to `init` (which waits for it: `init` is synchronous,
    /// and the loop answers within a turn).
    private final class Listening: Sendable {
        private let outcome = Mutex<Result<HTTPServer, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ result: Result<HTTPServer, any Error>) {
            outcome.withLock { $0 = result }
            done.signal()
        }

        func wait() -> Result<HTTPServer, any Error> {
            done.wait()
            return outcome.withLock { $0 } ?? .failure(ServerError("the event loop gave no answer"))
        }
    }
}
