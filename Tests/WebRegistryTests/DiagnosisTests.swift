import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

extension RealChromium {
    @Suite("web registry: a failing step says what the page did wrong (real Chromium)", .serialized)
    struct DiagnosisTests {
        static func failure(_ r: WebRegistry, _ verb: Verb, _ target: String, _ arg: String? = nil) async throws
            -> String?
        {
            do {
                try await r.step(verb, target, arg)
                return nil
            } catch let error as StepError {
                return error.description
            }
        }

        @Test("page errors and failed requests of the step before and this one are in the failure message, then gone")
        func troublesInTheMessage() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "broken.html")
                try await r.step(.tap, "break")
                let message = try await Self.failure(r, .assert, "result", "text=done;timeout=1")
                let thrown = "page error: ReferenceError: nothingHere is not defined at broken.js:3"
                #expect(message?.contains(thrown) == true, "\(message ?? "passed")")
                #expect(message?.contains("GET /api/missing 404") == true, "\(message ?? "passed")")
                // Reported once: a later failure after a calm step does not repeat them.
                try await r.step(.tap, "calm")
                let later = try await Self.failure(r, .assert, "result", "text=done;timeout=0.2")
                #expect(later != nil && later?.contains("ReferenceError") == false && later?.contains("404") == false,
                        "\(later ?? "passed")")
            }
        }

        @Test("open fails at a document answering 404, unless the scenario allows error pages")
        func errorDocument() async throws {
            try await withSite { site in
                let r = try await site.registry()
                let message = try await Self.failure(r, .open, "missing.html")
                #expect(message?.contains("missing.html: the document answered 404") == true, "\(message ?? "passed")")
                let host = WebHost(browser: site.browser, baseURL: site.server.baseURL)
                let allowed = try await host.makeRegistry(
                    configuration: [:], seed: 1, scenarioTags: [WebHost.errorPagesTag])
                try await allowed.step(.open, "missing.html")
                try await allowed.step(.open, "broken.html")
            }
        }

        @Test("open fails at a page that lost its stylesheet or a script, unless the scenario allows broken pages")
        func lostResources() async throws {
            try await withSite { site in
                let page = #"""
                    <!doctype html><link rel="stylesheet" href="gone.css"><script src="missing.js"></script>
                    <p data-testid="x">x</p>
                    """#
                try Data(page.utf8).write(to: site.root.appendingPathComponent("unstyled.html"))
                let r = try await site.registry()
                let message = try await Self.failure(r, .open, "unstyled.html")
                #expect(message?.contains("loaded without what it renders with") == true, "\(message ?? "passed")")
                // Its status when Chromium's event with it came before the load, else what the document shows.
                #expect(message?.contains("stylesheet /gone.css answered 404") == true
                        || message?.contains("stylesheet /gone.css did not load") == true, "\(message ?? "passed")")
                #expect(message?.contains("script /missing.js answered 404") == true, "\(message ?? "passed")")
                // A page whose resources all load opens as before, and nothing of the broken one is left over.
                try await r.step(.open, "broken.html")
                // A stylesheet a script adds once the page has loaded, still loading when `open` looks (its server
                // never answers), is no loss.
                let silent = try SilentListener()
                defer { silent.close() }
                let late = #"""
                    <!doctype html><p data-testid="x">x</p><script>addEventListener('load', () => { const l =
                    document.createElement('link'); l.rel = 'stylesheet'; l.href = 'http://127.0.0.1:\#(silent.port)/never.css';
                    document.head.append(l); });</script>
                    """#
                try Data(late.utf8).write(to: site.root.appendingPathComponent("late.html"))
                try await r.step(.open, "late.html")
                // A fixture that answers the stylesheet with an error is the scenario's own doing.
                let staged = try await site.registry()
                try await staged.step(.request, "gone.css", #"{"status": 404, "body": ""}"#)
                try await staged.step(.request, "missing.js", #"{"status": 500, "body": ""}"#)
                try await staged.step(.open, "unstyled.html")
                let host = WebHost(browser: site.browser, baseURL: site.server.baseURL)
                let allowed = try await host.makeRegistry(
                    configuration: [:], seed: 1, scenarioTags: [WebHost.errorPagesTag])
                try await allowed.step(.open, "unstyled.html")
            }
        }

        @Test("a load that never completes names the pending request, not a script running forever")
        func pendingRequest() async throws {
            let silent = try SilentListener()
            defer { silent.close() }
            try await withSite { site in
                let never = "http://127.0.0.1:\(silent.port)/never.js"
                let page = #"<!doctype html><p data-testid="x">x</p><script src="\#(never)"></script>"#
                try Data(page.utf8).write(to: site.root.appendingPathComponent("stuck.html"))
                let r = try await site.registry(loadTimeout: .seconds(2))
                let message = try await Self.failure(r, .open, "stuck.html")
                #expect(message?.contains("did not finish loading within 2") == true, "\(message ?? "passed")")
                #expect(message?.contains("still waiting for GET \(never) (pending") == true,
                        "\(message ?? "passed")")
                #expect(message?.contains("running forever") == false)
            }
        }
    }
}

struct SilentListenerError: Error { var code: Int32 }

/// A TCP port on 127.0.0.1 that takes connections (the kernel completes them) and never answers.
struct SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        #if canImport(Darwin)
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = fd
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw SilentListenerError(code: errno) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Darwin)
            _ = Darwin.close(fd)
        #else
            _ = Glibc.close(fd)
        #endif
    }
}
