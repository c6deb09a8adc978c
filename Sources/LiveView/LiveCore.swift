import Coordinator
import Dispatch
import Foundation
import Journal
import Reports
import UVTransport

/// The live server's loop-confined half: routes, access, the event-stream clients, and the coalescing flush.
/// Rendering (pages, chunks, the pivot) and file reads happen on a serial background queue; answers hop back.
final class LiveCore: HTTPHandler {
    let loop: EventLoop
    let feed: LiveFeed
    let runID: String
    let jobs: Int
    let reader: JournalReader
    let settings: LiveSettings
    var server: HTTPServer?
    var access = LiveAccess(token: nil, port: 0)
    var streams: [UInt64: HTTPConnection] = [:]
    /// Every job final so far as (id, page status), in order: what a new client gets first.
    var finished: [(id: String, status: String)] = []
    var lastProgress = ""
    var lastWorkers = ""
    var folder: URL?
    var statistics = LiveStatistics()
    /// Requests waiting for a chunk being built, by chunk.
    var chunkWaiters: [Int: [(head: Bool, connection: HTTPConnection)]] = [:]
    private var ticker: ScheduledTimer?
    var pivotDirty = false
    var pivotBusy = false
    /// When the failures by axis may next be recomputed.
    var nextPivot = ContinuousClock.now
    private let work = DispatchQueue(label: "flowmatrix.live-render")
    /// The store directory (holding `blobs/`) the live panels' screenshots are read from.
    let storeRoot: URL
    let screenshots = LiveScreenshots()

    init(loop: EventLoop, feed: LiveFeed, runID: String, jobs: Int, reader: JournalReader, storeRoot: URL,
         settings: LiveSettings) {
        self.loop = loop
        self.storeRoot = storeRoot
        self.feed = feed
        self.runID = runID
        self.jobs = jobs
        self.reader = reader
        self.settings = settings
    }

    func begin(server: HTTPServer, access: LiveAccess) {
        self.server = server
        self.access = access
        ticker = loop.scheduleRepeatingInLoop(every: settings.flushInterval) { [weak self] in self?.flush() }
    }

    func close() {
        ticker?.cancel()
        server?.closeInLoop()
        streams = [:]
    }

    // MARK: - Requests

    func onRequest(_ request: HTTPRequest, on connection: HTTPConnection) {
        statistics.requests += 1
        switch access.decide(request) {
        case .deny(let status, let reason):
            return connection.respond(status: status, body: Array((reason + "\n").utf8), contentType: "text/plain; charset=utf-8",
                                      headOnly: request.isHead)
        case .exchange(let location, let cookie):
            return connection.respond(status: 303, headers: [("Location", location), ("Set-Cookie", cookie)], body: [],
                                      contentType: "text/plain; charset=utf-8")
        case .allow:
            break
        }
        switch request.path {
        case "/", "/report.html": page(request, connection)
        case "/live.js":
            connection.respond(status: 200, body: Array(LivePage.script.utf8), contentType: "text/javascript; charset=utf-8",
                               headOnly: request.isHead)
        case "/events": openStream(request, connection)
        default:
            if let (kind, n) = Self.numberedScript(request.path) {
                script(kind: kind, n, request, connection)
            } else {
                notFound(request, connection)
            }
        }
    }

    func onClose(_ connection: HTTPConnection) {
        streams[connection.id] = nil
    }

    private func notFound(_ request: HTTPRequest, _ connection: HTTPConnection) {
        connection.respond(status: 404, body: Array("not found\n".utf8), contentType: "text/plain; charset=utf-8",
                           headOnly: request.isHead)
    }

    /// `/data/jobs-007.js` → ("data/jobs-", 7); `/blobs/pack-012.js` → ("blobs/pack-", 12); nil for anything else.
    static func numberedScript(_ path: String) -> (String, Int)? {
        for prefix in ["/data/jobs-", "/blobs/pack-"] where path.hasPrefix(prefix) && path.hasSuffix(".js") {
            let digits = path.dropFirst(prefix.count).dropLast(3)
            guard (3...6).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits) else {
                return nil
            }
            return (String(prefix.dropFirst()), n)
        }
        return nil
    }

    /// Runs `body` on the render queue and answers with its result on the loop; nil is 404, a thrown error 503.
    private func answer(_ request: HTTPRequest, _ connection: HTTPConnection, contentType: String,
                        _ body: @escaping @Sendable () throws -> [UInt8]?) {
        let bound = LoopBound(connection, loop: loop)
        let head = request.isHead
        work.async { [loop] in
            let result = Result { try body() }
            loop.execute { Self.respond(result, contentType: contentType, headOnly: head, on: bound.value) }
        }
    }

    /// 200 with the bytes, 404 for nil, 503 (retry in a second) for an error: the journal may not have the run yet.
    static func respond(_ result: Result<[UInt8]?, any Error>, contentType: String, headOnly: Bool, on connection: HTTPConnection) {
        switch result {
        case .success(let bytes?):
            connection.respond(status: 200, body: bytes, contentType: contentType, headOnly: headOnly)
        case .success(nil):
            connection.respond(status: 404, body: Array("not found\n".utf8), contentType: "text/plain; charset=utf-8",
                               headOnly: headOnly)
        case .failure(let error):
            connection.respond(status: 503, headers: [("Retry-After", "1")], body: Array("not ready: \(error)\n".utf8),
                               contentType: "text/plain; charset=utf-8", headOnly: headOnly)
        }
    }

    private func page(_ request: HTTPRequest, _ connection: HTTPConnection) {
        let html = "text/html; charset=utf-8"
        if let folder {
            let file = folder.appendingPathComponent("report.html")
            return answer(request, connection, contentType: html) { try Data(contentsOf: file).map { $0 } }
        }
        let (runID, reader) = (self.runID, self.reader)
        answer(request, connection, contentType: html) { try LivePage.html(runID: runID, reader: reader) }
    }

    private func script(kind: String, _ n: Int, _ request: HTTPRequest, _ connection: HTTPConnection) {
        let javascript = "text/javascript; charset=utf-8"
        if let folder {
            let digits = String(n)
            let file = folder.appendingPathComponent(kind + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".js")
            return answer(request, connection, contentType: javascript) {
                FileManager.default.fileExists(atPath: file.path) ? try Data(contentsOf: file).map { $0 } : nil
            }
        }
        // While the run goes, panels come from the journal, and a pack is one screenshot a chunk numbered, read from
        // the store. A chunk is one pass over the journal: requests for a chunk already being built wait for that
        // build.
        if kind == "blobs/pack-" {
            guard let sha = screenshots.blob(n) else { return notFound(request, connection) }
            let root = storeRoot
            return answer(request, connection, contentType: javascript) {
                LivePage.screenshotPack(n, sha256: sha, store: root)
            }
        }
        guard kind == "data/jobs-" else { return notFound(request, connection) }
        if chunkWaiters[n] != nil {
            chunkWaiters[n]?.append((request.isHead, connection))
            return
        }
        chunkWaiters[n] = [(request.isHead, connection)]
        let (runID, reader, jobs, screenshots) = (self.runID, self.reader, self.jobs, self.screenshots)
        let bound = LoopBound(self, loop: loop)
        work.async { [loop] in
            let result = Result {
                try LivePage.chunk(n, jobs: jobs, runID: runID, reader: reader) { screenshots.number(for: $0.sha256) }
            }
            loop.execute {
                let core = bound.value
                for (head, connection) in core.chunkWaiters.removeValue(forKey: n) ?? [] {
                    Self.respond(result, contentType: javascript, headOnly: head, on: connection)
                }
            }
        }
    }
}
