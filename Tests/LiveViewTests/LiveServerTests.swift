import Artifacts
import Coordinator
import FlowVocabulary
import Foundation
import Journal
import LiveView
import MatrixPlan
import Testing
import UVTransport

/// The live server over real loopback sockets: access by token and cookie, hostile bytes, slow clients.
@Suite("Live view server", .timeLimit(.minutes(2)))
struct LiveServerTests {
    /// A journal with one run of `jobs` planned jobs, in a temporary folder.
    final class Store {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-live-\(UUID().uuidString)")
        var journal: String { folder.appendingPathComponent("journal.sqlite").path }
        let runID = "20261201-2000-live"
        let ids: [String]

        init(jobs: Int = 4, title: String = "<script>alert(1)</script>") throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let writer = try JournalWriter(path: folder.appendingPathComponent("journal.sqlite").path)
            ids = (0..<jobs).map { String(format: "%016x", 0xabc000 + $0) }
            try writer.submit(.runStarted(RunInfo(runID: runID, matrixName: "<b>m</b>", matrixPath: "m.json", seed: 1,
                                                  startedAt: Date())))
            try writer.submit(.jobsPlanned(runID: runID, jobs: ids.enumerated().map { i, id in
                PlannedJob(jobID: id, scenarioID: "s", scenarioTitle: title, configuration: "skin=<i>\(i)</i>",
                           configurationJSON: "{\"skin\":\"<i>\(i)</i>\"}", registry: "test")
            }))
            try writer.close()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test("with a token: no credentials 401, a wrong token or cookie 403, the right token becomes an HttpOnly cookie")
    func tokenAndCookie() async throws {
        let store = try Store()
        let token = Array("0123456789abcdef0123456789abcdef".utf8)
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: token, runID: store.runID, jobs: 4,
                                                journalPath: store.journal)
        defer { server.stop() }
        let port = server.port
        #expect(try RawHTTP.get(port: port, "/").httpStatus == 401)
        #expect(try RawHTTP.get(port: port, "/events").httpStatus == 401)
        #expect(try RawHTTP.get(port: port, "/?token=wrong").httpStatus == 403)
        let exchanged = try RawHTTP.get(port: port, "/?token=0123456789abcdef0123456789abcdef")
        #expect(exchanged.httpStatus == 303)
        #expect(exchanged.contains("\r\nLocation: /\r\n"))
        let cookieLine = try #require(exchanged.split(separator: "\r\n").first { $0.hasPrefix("Set-Cookie: ") })
        #expect(cookieLine.contains("HttpOnly") && cookieLine.contains("SameSite=Strict"))
        #expect(!cookieLine.contains("0123456789abcdef"), "the cookie is a session secret, not the token")
        let cookie = try #require(cookieLine.dropFirst("Set-Cookie: ".count).split(separator: ";").first)
        let page = try RawHTTP.get(port: port, "/", headers: ["Cookie: \(cookie)"])
        #expect(page.httpStatus == 200)
        #expect(page.contains("<script src=\"live.js\"></script>"))
        #expect(page.contains("connect-src &#39;self&#39;"))
        #expect(try RawHTTP.get(port: port, "/live.js", headers: ["Cookie: \(cookie)"]).httpStatus == 200)
        #expect(try RawHTTP.get(port: port, "/", headers: ["Cookie: flowmatrix_live=forged"]).httpStatus == 403)
    }

    @Test("loopback without a token: the page escapes hostile strings; a foreign Host is refused; unknown paths 404")
    func loopbackPage() async throws {
        let store = try Store()
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: nil, runID: store.runID, jobs: 4,
                                                journalPath: store.journal)
        defer { server.stop() }
        let page = try RawHTTP.get(port: server.port, "/")
        #expect(page.httpStatus == 200)
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!page.contains("<script>alert(1)</script>"))
        #expect(page.contains("&lt;i&gt;0&lt;/i&gt;") && !page.contains("<i>0</i>"))
        #expect(try RawHTTP.get(port: server.port, "/", host: "attacker.example:\(server.port)").httpStatus == 403)
        #expect(try RawHTTP.get(port: server.port, "/etc/passwd").httpStatus == 404)
        #expect(try RawHTTP.get(port: server.port, "/data/jobs-000.js").httpStatus == 200)
        #expect(try RawHTTP.get(port: server.port, "/blobs/pack-000.js").httpStatus == 404)
    }

    @Test("while the run goes, a failed job's screenshot is served from the store for its panel; nothing else is")
    func screenshot() async throws {
        let store = try Store(jobs: 2)
        let blobs = try BlobStore(root: store.folder, syncToDisk: false)
        // Job 0 failed with a screenshot, job 1 passed with one: only the failed job's is shown before the report.
        let shots = try (0..<2).map { i in
            try ArtifactSink().attach(name: "screen.png", mediaType: "image/png", bytes: (0..<3000).map { UInt8(truncatingIfNeeded: $0 * (i + 7)) },
                            step: 0)
        }
        for shot in shots { try blobs.store(shot) }
        let writer = try JournalWriter(path: store.journal)
        let at = Date()
        for (i, id) in store.ids.enumerated() {
            let outcome: JobOutcome = i == 0 ? .failed : .passed
            try writer.submit([
                .attemptStarted(runID: store.runID, jobID: id, attempt: 1, worker: "w", at: at),
                .stepRecorded(runID: store.runID, jobID: id, attempt: 1, step: StepResult(
                    index: 0, key: "look", outcome: i == 0 ? .failed : .passed, duration: 0.1, message: nil)),
                .artifactStored(runID: store.runID, jobID: id, attempt: 1, artifact: ArtifactReference(
                    stepIndex: 0, name: shots[i].name, mediaType: shots[i].mediaType, sha256: shots[i].sha256,
                    compressedSize: shots[i].compressedSize, rawSize: shots[i].rawSize)),
                .attemptFinished(runID: store.runID, jobID: id, attempt: 1, result: AttemptResult(
                    outcome: outcome, finishedAt: at, duration: 0.1, failureStep: i == 0 ? 0 : nil, message: nil)),
                .jobFinished(runID: store.runID, jobID: id, result: JobResult(
                    outcome: outcome, attempts: 1, duration: 0.1, failureStep: i == 0 ? 0 : nil, failureMessage: nil,
                    finishedAt: at)),
            ])
        }
        try writer.close()
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: nil, runID: store.runID, jobs: 2,
                                                journalPath: store.journal)
        defer { server.stop() }
        // No pack before a chunk names one.
        #expect(try RawHTTP.get(port: server.port, "/blobs/pack-000.js").httpStatus == 404)
        #expect(try RawHTTP.get(port: server.port, "/data/jobs-000.js").httpStatus == 200)
        let pack = try RawHTTP.get(port: server.port, "/blobs/pack-000.js")
        #expect(pack.httpStatus == 200)
        let body = try #require(pack.components(separatedBy: "\r\n\r\n").last)
        #expect(body.hasPrefix("FM.pack(0,[\n\"") && body.hasSuffix("\"\n]);\n"))
        // The blob's compressed bytes as Z85: a pad digit, then 5 characters per 4 bytes.
        let text = body.dropFirst("FM.pack(0,[\n\"".count).dropLast("\"\n]);\n".count)
        #expect(text.count == 1 + (shots[0].compressedSize + 3) / 4 * 5)
        #expect(!text.contains("\"") && !text.contains("\\"), "Z85 text cannot end its string literal")
        // The passed job's screenshot was not numbered, and nothing but numbered blobs is served.
        #expect(try RawHTTP.get(port: server.port, "/blobs/pack-001.js").httpStatus == 404)
        #expect(try RawHTTP.get(port: server.port, "/blobs/pack-\(shots[1].sha256).js").httpStatus == 404)
    }

    @Test("garbage, oversized and slow requests get 4xx or a closed socket, and the server still answers")
    func hostileBytes() async throws {
        let store = try Store()
        var limits = HTTPLimits()
        limits.requestTimeout = .milliseconds(300)
        var settings = LiveSettings()
        settings.limits = limits
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: nil, runID: store.runID, jobs: 4,
                                                journalPath: store.journal, settings: settings)
        defer { server.stop() }
        var generator = SplitMix64(seed: 7)
        for round in 0..<200 {
            let client = try RawHTTP(port: server.port)
            var bytes = (0..<Int(generator.next() % 3000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 3 == 0 { bytes = Array("GET /".utf8) + bytes }
            client.send(bytes)
            let answer = String(decoding: client.readAll(limit: 4096), as: UTF8.self)
            client.shut()
            if !answer.isEmpty { #expect((400...505).contains(answer.httpStatus), "\(answer.prefix(80))") }
        }
        let big = "GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        let client = try RawHTTP(port: server.port)
        client.send(Array(big.utf8))
        #expect(String(decoding: client.readAll(), as: UTF8.self).httpStatus == 414)
        client.shut()
        let manyHeaders = "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<100).map { "X-\($0): y\r\n" }.joined() + "\r\n"
        let second = try RawHTTP(port: server.port)
        second.send(Array(manyHeaders.utf8))
        #expect(String(decoding: second.readAll(), as: UTF8.self).httpStatus == 431)
        second.shut()
        // A client that never finishes its head is closed after the request timeout.
        let silent = try RawHTTP(port: server.port)
        silent.send(Array("GET / HTTP/1.1\r\n".utf8))
        #expect(silent.readAll().isEmpty)
        silent.shut()
        #expect(try RawHTTP.get(port: server.port, "/live.js").httpStatus == 200)
    }

    @Test("a stream client that stops reading is dropped; the feed and other clients go on")
    func slowClient() async throws {
        let store = try Store()
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: nil, runID: store.runID, jobs: 4,
                                                journalPath: store.journal)
        defer { server.stop() }
        let slow = try RawHTTP(port: server.port, receiveBuffer: 4096)
        defer { slow.shut() }
        slow.send(Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n".utf8))
        let progress = RunProgress(total: 4, done: 0, outcomes: [:], inFlight: 0, workers: 0, attempts: 0, retries: 0,
                                   supersededResults: 0)
        let batch = (0..<20_000).map { FinishedJob(id: String(format: "%016x", $0), outcome: .passed) }
        let deadline = ContinuousClock.now + .seconds(60)
        var seen = await server.statistics()
        while seen.droppedSlowClients == 0 {
            #expect(ContinuousClock.now < deadline, "the slow client was never dropped")
            if ContinuousClock.now >= deadline { return }
            server.feed.onRunEvents(RunEvents(finished: batch, progress: progress, workers: nil, complete: false))
            // The next batch once this one went out (one flush interval later).
            let before = seen
            while seen == before, ContinuousClock.now < deadline { seen = await server.statistics() }
        }
        #expect(try RawHTTP.get(port: server.port, "/live.js").httpStatus == 200)
    }
}
