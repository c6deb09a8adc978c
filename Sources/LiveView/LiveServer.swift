import Coordinator
import Foundation
import Journal
import UVTransport

/// The live view of one run (docs/REPORTS.md, "Live view"): an HTTP server on its own libuv loop thread that serves
/// the report page while the run goes, keeps it current over server-sent events, and serves the static report once
/// it is written. Hand ``feed`` to the coordinator (`CoordinatorSettings.observer`).
public final class LiveServer: Sendable {
    /// The bound port.
    public let port: Int
    /// What the coordinator reports to.
    public let feed: LiveFeed
    private let loop: EventLoop
    private let core: LoopBound<LiveCore>

    private init(port: Int, feed: LiveFeed, loop: EventLoop, core: LoopBound<LiveCore>) {
        self.port = port
        self.feed = feed
        self.loop = loop
        self.core = core
    }

    /// Listens on `host:port` (0: an ephemeral port).
    /// - Parameters:
    ///   - token: required of every client when set (see ``LiveAccess``); nil only on loopback.
    ///   - jobs: the run's job count.
    ///   - journalPath: the journal the page is drawn from.
    /// - Throws: `TransportError` (bad address), `UVError` (port in use), `JournalError`.
    public static func start(
        host: String, port: Int, token: [UInt8]?, runID: String, jobs: Int, journalPath: String,
        settings: LiveSettings = LiveSettings()
    ) async throws -> LiveServer {
        let reader = try JournalReader(path: journalPath)
        let feed = LiveFeed()
        let loop = EventLoop()
        loop.start()
        do {
            let (bound, core) = try await withCheckedThrowingContinuation {
                (c: CheckedContinuation<(Int, LoopBound<LiveCore>), any Error>) in
                let accepted = loop.execute {
                    let core = LiveCore(loop: loop, feed: feed, runID: runID, jobs: jobs, reader: reader,
                                        storeRoot: URL(fileURLWithPath: journalPath).deletingLastPathComponent(),
                                        settings: settings)
                    do {
                        let server = try HTTPServer.listenInLoop(on: loop, host: host, port: port, limits: settings.limits,
                                                                 handler: core)
                        core.begin(server: server, access: LiveAccess(token: token, port: server.port))
                        c.resume(returning: (server.port, LoopBound(core, loop: loop)))
                    } catch {
                        c.resume(throwing: error)
                    }
                }
                if !accepted { c.resume(throwing: TransportError(.loopShutDown, "the event loop is shut down")) }
            }
            return LiveServer(port: bound, feed: feed, loop: loop, core: core)
        } catch {
            loop.shutdown()
            throw error
        }
    }

    /// The run's reports are in `folder`: from now on the page is the static `report.html` (and its `data/` and
    /// `blobs/`); connected pages are told to reload.
    public func finish(reportFolder folder: URL) {
        loop.execute { [core] in core.value.finish(folder: folder) }
    }

    /// Requests answered so far, and SSE clients dropped for not keeping up (for tests and the bench).
    public func statistics() async -> LiveStatistics {
        await withCheckedContinuation { c in
            let accepted = loop.execute { [core] in c.resume(returning: core.value.statistics) }
            if !accepted { c.resume(returning: LiveStatistics()) }
        }
    }

    /// Closes every connection and stops the loop thread.
    public func stop() {
        loop.execute { [core] in core.value.close() }
        loop.shutdown()
    }
}

/// Counters of a live server.
public struct LiveStatistics: Sendable, Hashable {
    public var requests = 0
    public var streams = 0
    public var droppedSlowClients = 0
    public var eventsSent = 0
    /// Recomputations of the failures by axis.
    public var pivots = 0
}
