import DevTools
import Foundation
import RunConditions
import Synchronization

/// A fixture response for the `request` verb.
struct Fixture: Sendable, Hashable {
    var status: Int
    var contentType: String
    var body: String
}

/// What a page's events tell a job, kept between steps: console and page errors, the network log, open dialogs,
/// permission requests, a crashed renderer, and the request decisions (fixtures, seeded failures) that
/// `Fetch.requestPaused` needs at once on the reader thread.
final class PageEvents: Sendable {
    struct State {
        var console: [String] = []
        var network: [String] = []
        var requests: [String: (method: String, url: String)] = [:]
        var dialog: String?
        var crashed: String?
        var fixtures: [String: Fixture] = [:]
        var occurrences: [String: Int] = [:]
        var failed: [String] = []
    }

    private let state = Mutex(State())
    let page: PageTarget
    let seed: UInt64
    let profile: NetworkProfile
    /// Called (on the reader thread) when a JavaScript dialog opens.
    let onDialog: @Sendable () -> Void
    /// Called (on the reader thread) when the page asks for a permission.
    let onPermission: @Sendable (PermissionPrompts.Request) -> Void

    init(
        page: PageTarget, seed: UInt64, profile: NetworkProfile, onDialog: @escaping @Sendable () -> Void,
        onPermission: @escaping @Sendable (PermissionPrompts.Request) -> Void
    ) {
        self.page = page
        self.seed = seed
        self.profile = profile
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
            state.withLock { $0.console.append("page error: \(text)") }
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
        case "Network.requestWillBeSent":
            guard let id = params["requestId"]?.string, let request = params["request"] else { return }
            let m = request["method"]?.string ?? "GET"
            let url = request["url"]?.string ?? ""
            state.withLock { s in
                s.requests[id] = (m, url)
                s.network.append("→ \(m) \(url)")
            }
        case "Network.responseReceived":
            guard let response = params["response"] else { return }
            let line = "← \(response["status"]?.int ?? 0) \(response["url"]?.string ?? "")"
            state.withLock { $0.network.append(line) }
        case "Network.loadingFailed":
            let id = params["requestId"]?.string ?? ""
            state.withLock { s in
                let r = s.requests[id]
                s.network.append("✗ \(r?.method ?? "") \(r?.url ?? id): \(params["errorText"]?.string ?? "failed")")
            }
        case "Fetch.requestPaused":
            decide(params)
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
        let decision: Decision = state.withLock { s in
            let bare = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
            if let fixture = s.fixtures[url] ?? s.fixtures[bare] { return .fulfill(fixture) }
            // Documents are the app itself; the profile's failures apply to what the app requests.
            guard !isDocument, profile.failureRate > 0 else { return .pass }
            let key = "\(method) \(url)"
            let n = (s.occurrences[key] ?? 0) + 1
            s.occurrences[key] = n
            if FlakyRequests.fails(seed: seed, method: method, url: url, occurrence: n, rate: profile.failureRate) {
                s.failed.append("\(key) #\(n)")
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

    private static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        default: value.serialized
        }
    }
}
