import Coordinator
import Foundation
import Reports
import UVTransport

/// The event stream: `cells` (`[[job id, status], …]`, new finals only), `progress`, `workers`
/// (`[[name, jobs held, [job id…]], …]`), `pivot` (the failures-by-axis section, escaped HTML as a JSON string) and
/// `final` (the static report is written: reload).
extension LiveCore {
    func openStream(_ request: HTTPRequest, _ connection: HTTPConnection) {
        guard folder == nil else {
            // 204 tells an EventSource to stop reconnecting: the run is over.
            return connection.respond(status: 204, body: [], contentType: "text/plain; charset=utf-8", headOnly: true)
        }
        guard !request.isHead else {
            return connection.respond(status: 200, body: [], contentType: "text/event-stream", headOnly: true)
        }
        connection.startStream(headers: [("X-Accel-Buffering", "no")], contentType: "text/event-stream")
        streams[connection.id] = connection
        statistics.streams += 1
        // A new client first gets everything final so far, then the latest progress and workers.
        var first = "retry: 2000\n\n" + Self.event("cells", Self.cellsJSON(finished[...]))
        if !lastProgress.isEmpty { first += Self.event("progress", lastProgress) }
        if !lastWorkers.isEmpty { first += Self.event("workers", lastWorkers) }
        send(Array(first.utf8), to: connection)
    }

    static func event(_ name: String, _ json: String) -> String { "event: \(name)\ndata: \(json)\n\n" }

    static func cellsJSON(_ cells: ArraySlice<(id: String, status: String)>) -> String {
        "[" + cells.map { "[" + LivePage.jsonString($0.id) + ",\"" + $0.status + "\"]" }.joined(separator: ",") + "]"
    }

    static func progressJSON(_ p: RunProgress) -> String {
        var counts: [String: Int] = [:]
        for (outcome, n) in p.outcomes { counts[LivePage.status(outcome), default: 0] += n }
        let countText = counts.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
        return "{\"total\":\(p.total),\"done\":\(p.done),\"inFlight\":\(p.inFlight),\"workers\":\(p.workers),"
            + "\"attempts\":\(p.attempts),\"retries\":\(p.retries),\"counts\":{\(countText)}}"
    }

    static func workersJSON(_ workers: [WorkerActivity]) -> String {
        "[" + workers.map { w in
            "[" + LivePage.jsonString(w.name) + ",\(w.held),[" + w.jobs.map(LivePage.jsonString).joined(separator: ",") + "]]"
        }.joined(separator: ",") + "]"
    }

    /// Writes to one client; a client that does not keep up is closed (it reconnects and starts from a snapshot).
    func send(_ bytes: [UInt8], to connection: HTTPConnection) {
        if connection.write(bytes) {
            statistics.eventsSent += 1
        } else {
            statistics.droppedSlowClients += 1
            streams[connection.id] = nil
        }
    }

    func broadcast(_ text: String) {
        guard !streams.isEmpty, !text.isEmpty else { return }
        let bytes = Array(text.utf8)
        for connection in Array(streams.values) { send(bytes, to: connection) }
    }

    /// Every flush interval: what the coordinator reported since the last one, as at most one event of each kind.
    func flush() {
        let inbox = feed.take()
        var out = ""
        if !inbox.finished.isEmpty {
            let start = finished.count
            for job in inbox.finished { finished.append((job.id, LivePage.status(job.outcome))) }
            out += Self.event("cells", Self.cellsJSON(finished[start...]))
            pivotDirty = true
        }
        if let progress = inbox.progress {
            let json = Self.progressJSON(progress)
            if json != lastProgress {
                lastProgress = json
                out += Self.event("progress", json)
            }
        }
        if let workers = inbox.workers {
            let json = Self.workersJSON(workers)
            if json != lastWorkers {
                lastWorkers = json
                out += Self.event("workers", json)
            }
        }
        broadcast(out)
        refreshPivot()
    }

    /// Recomputes the failures by axis from the journal, off the loop: at most every `pivotInterval`, and never
    /// more than a tenth of the time (a pivot of a big run takes a while; it must not take a core from the run).
    func refreshPivot() {
        guard pivotDirty, !pivotBusy, !streams.isEmpty, folder == nil, ContinuousClock.now >= nextPivot else { return }
        pivotDirty = false
        pivotBusy = true
        let (runID, reader, interval) = (self.runID, self.reader, settings.pivotInterval)
        let bound = LoopBound(self, loop: loop)
        DispatchQueue.global(qos: .utility).async { [loop] in
            let started = ContinuousClock.now
            let section = try? LivePage.pivotSection(runID: runID, reader: reader)
            let took = ContinuousClock.now - started
            loop.execute {
                let core = bound.value
                core.pivotBusy = false
                core.nextPivot = ContinuousClock.now + max(interval, took * 10)
                core.statistics.pivots += 1
                if let section, core.folder == nil { core.broadcast(Self.event("pivot", LivePage.jsonString(section))) }
            }
        }
    }

    func finish(folder: URL) {
        flush()
        self.folder = folder
        broadcast(Self.event("final", "{}"))
        for connection in Array(streams.values) { connection.endStream() }
        streams = [:]
    }
}
