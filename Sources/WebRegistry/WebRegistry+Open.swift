import DevTools
import FlowSpec
import FlowVocabulary
import Foundation

extension WebRegistry {
    /// `open`: navigates to the step's target (resolved against the base URL) and waits for the load event.
    ///
    /// A document that answers 4xx or 5xx fails the step there, and so does one that loaded without a stylesheet or
    /// script it asked for (a 4xx or 5xx answer or a failed load, not one a fixture or the network profile made:
    /// `PageEvents.takeLostResources`) — both unless `WebSettings.openFailsOnErrorStatus` is off; a load that does
    /// not complete within `WebSettings.loadTimeout` fails naming the requests still pending.
    func open(_ step: Step) async throws {
        let path = settings.pageObjects?.url(opening: step.target, arg: step.arg) ?? step.target
        guard let url = URL(string: path, relativeTo: settings.baseURL)?.absoluteURL else {
            throw StepError.invalidArgument("'\(path)' is not a URL or a path")
        }
        if offline && pageOpened { try await applyNetwork(offline: false) }
        _ = events.takeLostResources()
        let status: Int
        let loader: String
        do {
            let navigation = try await page.send(
                "Page.navigate", ["url": .string(url.absoluteString)], timeout: settings.loadTimeout)
            if let error = navigation["errorText"]?.string, !error.isEmpty {
                throw StepError.failed("cannot open \(url.absoluteString): \(error)")
            }
            loader = navigation["loaderId"]?.string ?? ""
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
        if settings.openFailsOnErrorStatus {
            // A cancelled stylesheet load's status may come after the load event: wait for it a little.
            let events = self.events
            if events.awaitsStatus(loader: loader) {
                let waiter = ConditionWaiter(clock: SystemWaitClock.shared, signal: events.networkSignal)
                try? await waiter.wait(for: "the status of cancelled loads", timeout: .seconds(1)) {
                    !events.awaitsStatus(loader: loader)
                }
            }
            let lost = events.takeLostResources(unloaded: try await unloadedResources())
            if !lost.isEmpty {
                let shown = lost.prefix(5).joined(separator: ", ") + (lost.count > 5 ? " and \(lost.count - 5) more" : "")
                throw StepError.failed(
                    "\(url.absoluteString) loaded without what it renders with: \(shown); its checks would measure"
                        + " another page (a scenario that opens broken pages on purpose has the tag `error-pages=allow`)")
            }
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

    /// The document's stylesheets and scripts that did not load, as the document sees them: those its resource
    /// timing says answered 400 or more (`responseStatus`), and stylesheet links whose load ended (a resource timing
    /// entry) with no style sheet — not one still loading, which a script may have added after the load. Chromium reports
    /// a stylesheet answered 404 as a cancelled load, and the event with its status may come after the load event;
    /// and a stylesheet answered 404 sometimes gets an empty style sheet all the same.
    private func unloadedResources() async throws -> [PageEvents.Unloaded] {
        let script = """
            (() => { const status = (u) => { const e = performance.getEntriesByName(u)[0]; return e ? e.responseStatus || 0 : -1; };
            const out = [];
            for (const l of document.querySelectorAll('link[rel~="stylesheet"]')) { if (!l.href || l.disabled) continue;
              const s = status(l.href); if (s >= 400 || (s >= 0 && !l.sheet)) out.push([l.href, Math.max(s, 0), 'stylesheet']); }
            for (const e of document.querySelectorAll('script[src]')) { const s = status(e.src); if (s >= 400) out.push([e.src, s, 'script']); }
            return out; })()
            """
        return try await evaluate(script, timeout: settings.pageTimeout).array?.compactMap { entry in
            guard let e = entry.array, e.count == 3, let url = e[0].string, let kind = e[2].string else { return nil }
            return PageEvents.Unloaded(url: url, status: e[1].int ?? 0, kind: kind)
        } ?? []
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
