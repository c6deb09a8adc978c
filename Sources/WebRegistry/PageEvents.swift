import DevTools
import FlowSpec
import Foundation
import RunConditions
import Synchronization

/// A fixture response for the `request` verb.
struct Fixture: Sendable, Hashable {
    var status: Int
    var contentType: String
    var body: String
}

/// What a page's events tell a job, kept between steps: console and page errors, the network log, the requests still
/// pending, the troubles a failing step reports (uncaught errors, failed requests), open dialogs,
/// permission requests, a crashed renderer, and the request decisions (fixtures, seeded failures) that
/// `Fetch.requestPaused` needs at once on the reader thread.
final class PageEvents: Sendable {
    struct State {
        var console: [String] = []
        var network: [String] = []
        /// Requests sent and not finished or failed yet, by request id.
        var requests: [String: (method: String, url: String, sent: ContinuousClock.Instant)] = [:]
        /// Uncaught page errors and failed requests since the last step concluded (`takeTroubles`).
        var troubles: [String] = []
        var troublesLeftOut = 0
        var dialog: String?
        var crashed: String?
        var fixtures: [String: Fixture] = [:]
        var occurrences: [String: Int] = [:]
        var failed: [String] = []
        /// The resource type (`Stylesheet`) and document loader of each stylesheet and script request, by request id
        /// (`Network.requestWillBeSent`).
        var renderingKinds: [String: (kind: String, loader: String)] = [:]
        /// Stylesheet and script loads cancelled before their status came: a stylesheet answered 404 ends so, its
        /// status in a `Network.responseReceivedExtraInfo` that may come later (a navigation cancels loads too).
        var awaitingStatus: [String: (kind: String, url: String, loader: String)] = [:]
        /// Requests a fixture answered or the network profile failed on purpose, by network request id, and their URLs.
        var staged = Set<String>()
        var stagedURLs = Set<String>()
        /// The HTTP status of stylesheet and script requests that answered 400 or more, by request id
        /// (`Network.responseReceivedExtraInfo`: a stylesheet answered 404 gets no `responseReceived`, only a
        /// cancelled `loadingFailed`).
        var errorStatus: [String: Int] = [:]
        /// Stylesheets and scripts the page lost since the last call of `takeLostResources` (`stylesheet /app.css
        /// answered 404`).
        var lost: [String] = []
    }

    private let state = Mutex(State())
    /// Notified when a request finishes or fails: the screenshot's settle waits on it (`ScreenshotFreeze`).
    let networkSignal = ChangeSignal()
    let page: PageTarget
    let seed: UInt64
    let profile: NetworkProfile
    /// The site's origin (`http://127.0.0.1:8080`): its URLs are named by their path in trouble lines.
    let origin: String
    /// Called (on the reader thread) when a JavaScript dialog opens.
    let onDialog: @Sendable () -> Void
    /// Called (on the reader thread) when the page asks for a permission.
    let onPermission: @Sendable (PermissionPrompts.Request) -> Void

    init(
        page: PageTarget, seed: UInt64, profile: NetworkProfile, origin: String,
        onDialog: @escaping @Sendable () -> Void,
        onPermission: @escaping @Sendable (PermissionPrompts.Request) -> Void
    ) {
        self.page = page
        self.seed = seed
        self.profile = profile
        self.origin = origin
        self.onDialog = onDialog
        self.onPermission = onPermission
    }

    var dialog: String? { state.withLock { $0.dialog } }
    var crashed: String? { state.withLock { $0.crashed } }
    func dialogClosed() { state.withLock { $0.dialog = nil } }

    /// Adds a line to the console log of the running step.
    func log(_ line: String) { state.withLock { $0.console.append(line) } }

    func addFixture(url: String, _ fixture: Fixture) { state.withLock { $0.fixtures[url] = fixture } }

    /// The requests the seeded flaky network failed so far, as `METHOD URL #n`.
    var failedRequests: [String] { state.withLock { $0.failed } }

    /// The resource types whose loss leaves a page that renders or behaves otherwise than its author made it: a
    /// layout check on a page without its stylesheet measures the browser's defaults.
    static let renderingTypes: Set<String> = ["Stylesheet", "Script"]

    /// Whether a stylesheet or script load of the document `loader` loads was cancelled and its status has not come.
    func awaitsStatus(loader: String) -> Bool {
        state.withLock { s in s.awaitingStatus.values.contains { $0.loader == loader } }
    }

    /// A stylesheet or script the document shows did not load: its URL, its HTTP status (0 when unknown) and its kind
    /// (`stylesheet`, `script`).
    struct Unloaded: Sendable {
        var url: String
        var status: Int
        var kind: String
    }

    /// The stylesheets and scripts the page lost (an answer of 400 or more, or a load that failed and was not
    /// cancelled) since the last call, leaving out those a fixture answered or the network profile failed on purpose:
    /// `stylesheet /app.css answered 404`. `unloaded` are those the document itself shows did not load (with their
    /// status, 0 when unknown), for those the events missed.
    func takeLostResources(unloaded: [Unloaded] = []) -> [String] {
        state.withLock { s in
            defer {
                s.lost.removeAll()
                s.awaitingStatus.removeAll()
            }
            let named = s.lost
            let more = unloaded.filter { u in
                !s.stagedURLs.contains(u.url) && !named.contains { $0.contains(" \(short(u.url)) ") }
            }
            return named + more.map { u in "\(u.kind) \(short(u.url)) " + (u.status >= 400 ? "answered \(u.status)" : "did not load") }
        }
    }

    /// The uncaught page errors and failed requests since the last call (at most 20, then how many more).
    func takeTroubles() -> [String] {
        state.withLock { s in
            defer {
                s.troubles.removeAll()
                s.troublesLeftOut = 0
            }
            return s.troubles + (s.troublesLeftOut > 0 ? ["and \(s.troublesLeftOut) more"] : [])
        }
    }

    /// The requests sent and not yet finished (`GET /slow.js`), oldest first, with how long each has waited.
    func pendingRequests() -> [(request: String, waited: Duration)] {
        let now = ContinuousClock.now
        return state.withLock { s in
            s.requests.values.sorted { $0.sent < $1.sent }.map { ("\($0.method) \(short($0.url))", now - $0.sent) }
        }
    }

    /// A URL as a trouble line names it: its path on the site's own origin, else whole.
    func short(_ url: String) -> String {
        url.hasPrefix(origin + "/") ? String(url.dropFirst(origin.count)) : url
    }

    /// The browser's own requests (the favicon), which no page asked for.
    static func isBrowsersOwn(_ url: String) -> Bool {
        URL(string: url)?.path == "/favicon.ico"
    }

    /// An uncaught error as one line: its message, and where it was thrown (`ReferenceError: x is not defined at
    /// shop.js:12`).
    static func pageError(_ details: JSONValue?) -> String {
        let exception = details?["exception"]
        let message =
            exception?["description"]?.string?.split(separator: "\n", maxSplits: 1).first.map(String.init)
            ?? exception?["value"].map { "\(details?["text"]?.string ?? "Uncaught") \(plain($0))" }
            ?? details?["text"]?.string ?? "exception"
        let frame = details?["stackTrace"]?["callFrames"]?.array?.first
        let url = frame?["url"]?.string ?? details?["url"]?.string ?? ""
        guard let line = frame?["lineNumber"]?.int ?? details?["lineNumber"]?.int, !url.isEmpty else { return message }
        let file = URL(string: url).map { $0.lastPathComponent.isEmpty ? url : $0.lastPathComponent } ?? url
        return "\(message) at \(file):\(line + 1)"
    }

    /// Console lines and network lines since the last call.
    func takeLogs() -> (console: [String], network: [String]) {
        state.withLock { s in
            defer {
                s.console.removeAll()
                s.network.removeAll()
            }
            return (s.console, s.network)
        }
    }

    /// Handles one event of the page's session (on the reader thread).
    func handle(_ method: String, _ params: JSONValue) {
        switch method {
        case "Runtime.consoleAPICalled":
            let args =
                params["args"]?.array?.map { $0["value"].map(Self.plain) ?? $0["description"]?.string ?? "" } ?? []
            let line = "console.\(params["type"]?.string ?? "log"): \(args.joined(separator: " "))"
            state.withLock { $0.console.append(line) }
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"]
            let text = details?["exception"]?["description"]?.string ?? details?["text"]?.string ?? "exception"
            let trouble = "page error: " + Self.pageError(details)
            state.withLock { s in
                s.console.append("page error: \(text)")
                s.addTrouble(trouble)
            }
        case "Page.javascriptDialogOpening":
            let line = "\(params["type"]?.string ?? "dialog"): \(params["message"]?.string ?? "")"
            state.withLock { s in
                s.dialog = line
                s.console.append("dialog opened: \(line)")
            }
            onDialog()
        case "Runtime.bindingCalled":
            guard params["name"]?.string == PermissionPrompts.binding,
                let request = PermissionPrompts.Request(
                    payload: params["payload"]?.string ?? "", context: params["executionContextId"]?.int)
            else { return }
            log("permission requested: \(request.name)")
            onPermission(request)
        case "Inspector.targetCrashed":
            let reason = "the page's renderer crashed"
            state.withLock { $0.crashed = reason }
            page.connection.failPending(session: page.sessionID, DevToolsError(.targetCrashed, reason))
        case "Network.requestWillBeSent", "Network.responseReceived", "Network.responseReceivedExtraInfo",
            "Network.loadingFinished", "Network.loadingFailed":
            handleNetwork(method, params)
        case "Fetch.requestPaused":
            decide(params)
        default:
            break
        }
    }

    /// Handles one `Network` event: the network log, the requests in flight, and the troubles and lost stylesheets or
    /// scripts they leave.
    private func handleNetwork(_ method: String, _ params: JSONValue) {
        switch method {
        case "Network.requestWillBeSent":
            guard let id = params["requestId"]?.string, let request = params["request"] else { return }
            let m = request["method"]?.string ?? "GET"
            let url = request["url"]?.string ?? ""
            let kind = params["type"]?.string
            let loader = params["loaderId"]?.string ?? ""
            state.withLock { s in
                s.requests[id] = (m, url, .now)
                s.network.append("→ \(m) \(url)")
                if let kind, Self.renderingTypes.contains(kind) { s.renderingKinds[id] = (kind, loader) }
            }
        case "Network.responseReceived":
            guard let response = params["response"] else { return }
            let id = params["requestId"]?.string ?? ""
            let status = response["status"]?.int ?? 0
            let url = response["url"]?.string ?? ""
            state.withLock { s in
                s.network.append("← \(status) \(url)")
                if status >= 400 && !Self.isBrowsersOwn(url) {
                    s.addTrouble("\(s.requests[id]?.method ?? "GET") \(short(url)) \(status)")
                    s.lose(id, "\(short(url)) answered \(status)")
                }
            }
        case "Network.responseReceivedExtraInfo":
            guard let id = params["requestId"]?.string, let status = params["statusCode"]?.int else { return }
            let settled = state.withLock { s -> Bool in
                if let a = s.awaitingStatus.removeValue(forKey: id) {
                    if status >= 400 && !s.staged.contains(id) {
                        s.lost.append("\(a.kind.lowercased()) \(short(a.url)) answered \(status)")
                    }
                    s.staged.remove(id)
                    return true
                }
                if status >= 400 && s.renderingKinds[id] != nil { s.errorStatus[id] = status }
                return false
            }
            if settled { networkSignal.notify() }
        case "Network.loadingFinished":
            let id = params["requestId"]?.string ?? ""
            state.withLock { s in
                _ = s.requests.removeValue(forKey: id)
                s.renderingKinds[id] = nil
                s.errorStatus[id] = nil
                s.staged.remove(id)
            }
            networkSignal.notify()
        case "Network.loadingFailed":
            let id = params["requestId"]?.string ?? ""
            let error = params["errorText"]?.string ?? "failed"
            let canceled = params["canceled"]?.bool == true ? " (canceled)" : ""
            state.withLock { s in
                let r = s.requests.removeValue(forKey: id)
                s.network.append("✗ \(r?.method ?? "") \(r?.url ?? id): \(error)")
                if let r, !Self.isBrowsersOwn(r.url) {
                    s.addTrouble("\(r.method) \(short(r.url)) failed: \(error)\(canceled)")
                    if let status = s.errorStatus[id] {
                        s.lose(id, "\(short(r.url)) answered \(status)")
                    } else if canceled.isEmpty {
                        s.lose(id, "\(short(r.url)) failed: \(error)")
                    } else if let k = s.renderingKinds[id] {
                        s.awaitingStatus[id] = (k.kind, r.url, k.loader)
                    }
                }
                s.renderingKinds[id] = nil
                s.errorStatus[id] = nil
                if s.awaitingStatus[id] == nil { s.staged.remove(id) }
            }
            networkSignal.notify()
        default:
            break
        }
    }

    /// Answers a paused request: a fixture, a seeded failure, or through to the network.
    private func decide(_ params: JSONValue) {
        guard let requestID = params["requestId"]?.string, let request = params["request"] else { return }
        let method = request["method"]?.string ?? "GET"
        let url = request["url"]?.string ?? ""
        let isDocument = params["resourceType"]?.string == "Document"
        enum Decision {
            case fulfill(Fixture)
            case fail(String)
            case pass
        }
        let networkID = params["networkId"]?.string
        let decision: Decision = state.withLock { s in
            let bare = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
            if let fixture = s.fixtures[url] ?? s.fixtures[bare] {
                if let networkID { s.staged.insert(networkID) }
                s.stagedURLs.insert(url)
                return .fulfill(fixture)
            }
            // Documents are the app itself; the profile's failures apply to what the app requests.
            guard !isDocument, profile.failureRate > 0 else { return .pass }
            let key = "\(method) \(url)"
            let n = (s.occurrences[key] ?? 0) + 1
            s.occurrences[key] = n
            if FlakyRequests.fails(seed: seed, method: method, url: url, occurrence: n, rate: profile.failureRate) {
                s.failed.append("\(key) #\(n)")
                if let networkID { s.staged.insert(networkID) }
                s.stagedURLs.insert(url)
                return .fail(profile.failure == .notConnected ? "InternetDisconnected" : "ConnectionClosed")
            }
            return .pass
        }
        let id = JSONValue.string(requestID)
        switch decision {
        case .fulfill(let f):
            let headers: JSONValue = [
                ["name": "Content-Type", "value": .string(f.contentType)],
                ["name": "Cache-Control", "value": "no-store"],
            ]
            page.connection.sendIgnoringReply(
                "Fetch.fulfillRequest",
                [
                    "requestId": id, "responseCode": .number(Double(f.status)), "responseHeaders": headers,
                    "body": .string(Data(f.body.utf8).base64EncodedString()),
                ], session: page.sessionID)
        case .fail(let reason):
            page.connection.sendIgnoringReply(
                "Fetch.failRequest", ["requestId": id, "errorReason": .string(reason)],
                session: page.sessionID)
        case .pass:
            page.connection.sendIgnoringReply("Fetch.continueRequest", ["requestId": id], session: page.sessionID)
        }
    }

    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        default: value.serialized
        }
    }
}

extension PageEvents.State {
    /// Notes a stylesheet or script request that came to nothing, unless a fixture or the network profile made it so.
    mutating func lose(_ id: String, _ what: String) {
        guard let kind = renderingKinds.removeValue(forKey: id)?.kind, !staged.contains(id) else { return }
        lost.append("\(kind.lowercased()) \(what)")
    }

    /// Keeps a trouble line for the failure message of the running step, up to 20 (then counts the rest).
    mutating func addTrouble(_ line: String) {
        if troubles.count < 20 { troubles.append(line) } else { troublesLeftOut += 1 }
    }
}
