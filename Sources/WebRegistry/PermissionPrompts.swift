import DevTools
import Foundation
import Synchronization

/// The `permission-prompt` interruption of one job: the page's permission requests, reported by the prelude through
/// the `__flowmatrixPermission` binding while the page's call waits, answered with the policy's decision.
///
/// Headless Chromium shows no prompt (it denies on its own), so the prelude holds the page's call (a
/// `getCurrentPosition`, `Notification.requestPermission`, `getUserMedia`, `clipboard.read…`) until the driver has
/// applied the decision to the job's browser context with `Browser.setPermission` (and, for an allowed geolocation,
/// the position with `Emulation.setGeolocationOverride`); then the call runs for real and the page sees the browser's
/// own answer. A permission decided once in the job is not asked again, as a browser remembers it.
final class PermissionPrompts: Sendable {
    /// The binding the prelude calls with `{"id": n, "name": "geolocation"}`.
    static let binding = "__flowmatrixPermission"
    static let interruptionName = "permission-prompt"

    /// One request the page is waiting on.
    struct Request: Sendable, Hashable {
        var id: Int
        var name: String
        /// The execution context (document) that asked; its answer goes there.
        var context: Int?

        /// Parses the binding's payload; nil for anything the prelude would not send.
        init?(payload: String, context: Int?) {
            guard let value = try? JSONValue.parse(Array(payload.utf8)), let id = value["id"]?.int,
                let name = value["name"]?.string, PermissionPolicy.names.contains(name)
            else { return nil }
            self.id = id
            self.name = name
            self.context = context
        }
    }

    private struct State {
        var queue: [Request] = []
        var decided: [String: PermissionPolicy.Decision] = [:]
    }

    private let state = Mutex(State())
    let page: PageTarget
    let policy: PermissionPolicy
    let position: GeolocationFix

    init(page: PageTarget, policy: PermissionPolicy, position: GeolocationFix) {
        self.page = page
        self.policy = policy
        self.position = position
    }

    /// True while a request waits for a decision.
    var isPresent: Bool { state.withLock { !$0.queue.isEmpty } }

    /// Takes a request from the page (on the reader thread).
    /// - Returns: true when it waits for the interruption monitors; false when the permission was decided before
    ///   in this job and the page got its answer at once.
    func enqueue(_ request: Request) -> Bool {
        let known = state.withLock { s -> Bool in
            if s.decided[request.name] != nil { return true }
            s.queue.append(request)
            return false
        }
        if known { page.connection.sendIgnoringReply("Runtime.evaluate", release(request), session: page.sessionID) }
        return !known
    }

    /// Decides the oldest waiting request: applies the policy's decision to the browser context, then lets the page's
    /// call go on.
    /// - Returns: a log line (`permission geolocation: allowed`), nil when nothing was waiting.
    func answerNext() async throws -> String? {
        guard let request = state.withLock({ $0.queue.isEmpty ? nil : $0.queue.removeFirst() }) else { return nil }
        let earlier = state.withLock { $0.decided[request.name] }
        let decision = earlier ?? policy.decision(for: request.name)
        if earlier == nil {
            let located = decision == .allow && request.name == "geolocation"
            async let moved: JSONValue? =
                located ? page.send("Emulation.setGeolocationOverride", position.parameters) : nil
            async let set = page.connection.send(
                "Browser.setPermission",
                [
                    "permission": ["name": .string(request.name)], "setting": .string(decision.setting),
                    "browserContextId": .string(page.contextID),
                ])
            do {
                _ = try await (moved, set)
            } catch {
                // The page's call must not wait forever: it goes on with the browser's own answer (denied).
                page.connection.sendIgnoringReply("Runtime.evaluate", release(request), session: page.sessionID)
                throw error
            }
            state.withLock { $0.decided[request.name] = decision }
        }
        do {
            _ = try await page.send("Runtime.evaluate", release(request))
        } catch let error as DevToolsError where error.code == .commandFailed {
            // The document that asked is gone (the page navigated): its call went with it.
        }
        return "permission \(request.name): \(decision == .allow ? "allowed" : "denied")"
    }

    /// The evaluation that resumes the page's waiting call.
    private func release(_ request: Request) -> JSONValue {
        var params: JSONValue = ["expression": .string("__flowmatrix.permissionDecided(\(request.id))")]
        if let context = request.context, case .object(var members) = params {
            members["contextId"] = .number(Double(context))
            params = .object(members)
        }
        return params
    }
}
