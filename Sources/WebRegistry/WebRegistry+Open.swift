import DevTools
import FlowSpec
import FlowVocabulary
import Foundation

extension WebRegistry {
    /// `open`: navigates to the step's target (resolved against the base URL) and waits for the load event.
    ///
    /// A document that answers 4xx or 5xx fails the step there (unless `WebSettings.openFailsOnErrorStatus` is off),
    /// and a load that does not complete within `WebSettings.loadTimeout` fails naming the requests still pending.
    func open(_ step: Step) async throws {
        let path = settings.pageObjects?.url(opening: step.target, arg: step.arg) ?? step.target
        guard let url = URL(string: path, relativeTo: settings.baseURL)?.absoluteURL else {
            throw StepError.invalidArgument("'\(path)' is not a URL or a path")
        }
        if offline && pageOpened { try await applyNetwork(offline: false) }
        let status: Int
        do {
            let navigation = try await page.send(
                "Page.navigate", ["url": .string(url.absoluteString)], timeout: settings.loadTimeout)
            if let error = navigation["errorText"]?.string, !error.isEmpty {
                throw StepError.failed("cannot open \(url.absoluteString): \(error)")
            }
            status = try await loaded()
        } catch let error as DevToolsError where error.code == .timedOut {
            throw stillLoading(url, error)
        }
        pageOpened = true
        if status >= 400 && settings.openFailsOnErrorStatus {
            throw StepError.failed(
                "cannot open \(url.absoluteString): the document answered \(status) (a scenario that opens error"
                    + " pages on purpose has the tag `error-pages=allow`)")
        }
        // `offline` is the app losing its connection once loaded: the document itself must load to be tested.
        if offline { try await applyNetwork(offline: true) }
    }

    /// The step failure a browser error means: a lost browser is an infrastructure fault, a silent page a hang.
    static func stepError(_ error: DevToolsError, step: Step, crashed: String?) -> StepError {
        switch error.code {
        case .browserClosed:
            // Not a result of the page: the attempt is reported lost and runs again (quarantined after 3 in a row).
            return .infrastructure(
                "browser lost during \(step.key): \(error.message); the worker restarts the browser for its next job")
        case .timedOut:
            return .failed(
                "the page stopped answering during \(step.key) (\(error.message)): a script may be running"
                    + " forever")
        default:
            if let crashed { return .failed("\(crashed) during \(step.key)") }
            return .failed("\(step.key): \(error.message)")
        }
    }

    /// Applies the configuration's network profile (or, with `offline`, no network at all) to the page.
    func applyNetwork(offline goOffline: Bool) async throws {
        let p = conditions.networkProfile
        guard p != .unconditioned || goOffline else { return }
        let latency = p.latency.components.seconds * 1000 + p.latency.components.attoseconds / 1_000_000_000_000_000
        let rate = p.bytesPerSecond.map { Double($0) } ?? -1
        _ = try await page.send(
            "Network.emulateNetworkConditions",
            [
                "offline": .bool(goOffline), "latency": .number(Double(latency)),
                "downloadThroughput": .number(rate), "uploadThroughput": .number(rate),
            ])
    }

    /// Waits for the load event; returns the document's HTTP status (0 when the browser does not say).
    private func loaded() async throws -> Int {
        let load = """
            new Promise((r) => { const done = () => { const n = performance.getEntriesByType('navigation')[0];
            r(n && n.responseStatus || 0); }; document.readyState === 'complete' ? done()
            : addEventListener('load', done, { once: true }); })
            """
        // The document may be replaced while we wait (a redirect, a script navigating): then the evaluation fails
        // with its context destroyed, and we wait on the new document — a few times at most.
        for attempt in 1...5 {
            do {
                return try await evaluate(load, timeout: settings.loadTimeout).int ?? 0
            } catch let error as DevToolsError where error.code == .commandFailed && attempt < 5 {
                continue
            }
        }
        return 0
    }

    /// The failure of a load that did not complete: the requests it still waits for, or a page that stopped
    /// answering when none is pending.
    private func stillLoading(_ url: URL, _ error: DevToolsError) -> StepError {
        let pending = events.pendingRequests()
        guard !pending.isEmpty else {
            return .failed(
                "the page stopped answering while opening \(url.absoluteString) (\(error.message)): a script may be"
                    + " running forever")
        }
        let shown = pending.prefix(5).map { "\($0.request) (pending \($0.waited.secondsText))" }
        let more = pending.count > 5 ? " and \(pending.count - 5) more" : ""
        return .failed(
            "\(url.absoluteString) did not finish loading within \(settings.loadTimeout.secondsText): still waiting"
                + " for \(shown.joined(separator: ", "))\(more)")
    }
}

extension StepError {
    /// The failure with what went wrong in the page during this step and the one before (uncaught errors, failed
    /// requests) appended to its message; failures that are not the page's (arguments, infrastructure) are left as
    /// they are.
    func adding(_ troubles: [String]) -> StepError {
        guard !troubles.isEmpty else { return self }
        let context = " — in this step and the one before: " + troubles.joined(separator: "; ")
        switch self {
        case .conditionTimedOut(let description, let after):
            return .conditionTimedOut(description: description + context, after: after)
        case .assertionFailed(let message): return .assertionFailed(message + context)
        case .failed(let message): return .failed(message + context)
        case .unknownStep, .invalidArgument, .infrastructure: return self
        }
    }
}
