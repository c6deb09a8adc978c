import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    @Suite("web registry: verbs, interruptions, hangs and bad selectors (real Chromium)", .serialized)
    struct VerbTests {
        @Test("open, tap, type, swipe, wait, assert, request, ambient and rotate act on the page")
        func everyVerb() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                try await r.step(.tap, "tap-me")
                try await r.step(.tap, "tap-me")
                try await r.step(.assert, "tap-me", "text=2")
                try await r.step(.type, "field", "grüße")
                try await r.step(.assert, "echo", "text=grüße")
                try await r.step(.assert, "field", "value=grüße")
                try await r.step(.swipe, "row", "left")
                try await r.step(.assert, "swiped", "text=left")
                try await r.step(.swipe, "list", "up")
                try await r.step(.assert, "scrolled", "text=true")
                try await r.step(.tap, "later")
                try await r.step(.wait, "appeared", "3")
                try await r.step(.assert, "appeared", "visible;contains=her")
                try await r.step(.request, "api/thing", #"{"status": 201, "body": "made"}"#)
                try await r.step(.tap, "fetch")
                try await r.step(.assert, "fetched", "text=201 made")
                try await r.step(.ambient, "ping", #"{"n": 7}"#)
                try await r.step(.assert, "event", #"text={"n":7}"#)
                try await r.step(.rotate, "device", "landscape")
                #expect(try await r.inPage("innerWidth > innerHeight") == true)
                try await r.step(.assert, "nothing-here", "absent")
                // Evidence: a PNG screenshot, the DOM, and the network log of the step.
                let evidence = await r.evidence(afterStep: 0, step: Step(verb: .tap, target: "fetch"))
                let names = Set(evidence.map(\.name))
                #expect(names.isSuperset(of: ["screenshot.png", "dom.html"]))
                let png = try #require(evidence.first { $0.name == "screenshot.png" }).bytes
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            }
        }

        @Test("a vertical swipe waits for the scroll; a list at its end or a page's own wheel handler is not waited for")
        func verticalSwipes() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                try await r.step(.swipe, "list", "up")
                // Read at once, with no assert to wait: the swipe returned after the list moved and its listener ran.
                #expect(try await r.inPage("document.querySelector('[data-testid=scrolled]').textContent") == "true")
                try await r.step(.swipe, "list", "down")
                try await r.step(.open, "wheel.html")
                let clock = ContinuousClock()
                let start = clock.now
                try await r.step(.swipe, "end", "up")
                try await r.step(.swipe, "own", "up")
                #expect(clock.now - start < .seconds(1), "neither swipe waits for a scroll that cannot come")
                try await r.step(.assert, "taken", "text=taken")
                do {
                    try await r.step(.swipe, "stuck", "up")
                    Issue.record("a swipe that scrolled nothing passed")
                } catch let error as StepError {
                    #expect("\(error)".contains("swipe up on [data-testid=\"stuck\"]: nothing scrolled"), "\(error)")
                }
            }
        }

        @Test(
            "evidence: a wait or assert that changed nothing reuses the previous screenshot; a change is captured anew")
        func screenshotReuse() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                func shot(_ verb: Verb, _ target: String) async throws -> [UInt8] {
                    let evidence = await r.evidence(afterStep: 0, step: Step(verb: verb, target: target))
                    return try #require(evidence.first { $0.name == "screenshot.png" }).bytes
                }
                let first = try await shot(.open, "verbs.html")
                let unchanged = try await shot(.assert, "tap-me")
                #expect(unchanged == first)
                try await r.step(.tap, "tap-me")
                let afterTap = try await shot(.tap, "tap-me")
                #expect(afterTap != first)
                // The page changes without a step acting on it: a passive step's evidence shows the change.
                _ = try await r.inPage(
                    "document.querySelector('[data-testid=echo]').textContent = 'changed by the page'")
                let changed = try await shot(.assert, "echo")
                #expect(changed != afterTap)
            }
        }

        @Test("a wait that never holds fails after its timeout, without polling the page")
        func waitTimesOut() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                let started = ContinuousClock.now
                do {
                    try await r.step(.wait, "never", "0.5")
                    Issue.record("the wait must fail")
                } catch let error as StepError {
                    guard case .conditionTimedOut(let what, _) = error else { throw error }
                    #expect(what.contains(#"[data-testid="never"]"#))
                }
                #expect(ContinuousClock.now - started < .seconds(5))
            }
        }

        @Test("bad selectors fail the step with a message naming the selector")
        func badSelectors() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                for target in ["nope", #"we"ird]\"#] {
                    do {
                        try await r.step(.tap, target)
                        Issue.record("tapping \(target) must fail")
                    } catch let error as StepError {
                        #expect(
                            error.description.contains("no element matches [data-testid=\"\(target)\"]"), "\(error)")
                    }
                }
                do {
                    try await r.step(.tap, "covered")
                    Issue.record("tapping a covered element must fail")
                } catch let error as StepError {
                    #expect(error.description.contains("is covered by div#cover"), "\(error)")
                }
                await #expect(throws: StepError.self) { try await r.step(.assert, "tap-me", "sparkly") }
            }
        }

        @Test("a JavaScript dialog is an interruption the monitors handle; the step goes on and records it")
        func dialog() async throws {
            try await withSite { site in
                let r = try await site.registry()
                let scenario = Scenario(
                    id: "dialog", title: "dialog",
                    steps: [
                        Step(verb: .open, target: "verbs.html"), Step(verb: .tap, target: "alert"),
                        Step(verb: .assert, target: "alert", arg: "text=after"),
                    ])
                let result = await AsyncScenarioRunner(registry: r).run(scenario)
                #expect(result.passed, "\(result.outcome)")
                #expect(result.steps.flatMap(\.interruptions) == ["javascript-dialog"])
                #expect(r.monitors.registered == ["javascript-dialog", "permission-prompt"])
            }
        }

        @Test("a hanging page fails its step within the page timeout, and the browser serves the next job")
        func hangingPage() async throws {
            try await withSite { site in
                let r = try await site.registry(pageTimeout: .seconds(2))
                try await r.step(.open, "verbs.html")
                let started = ContinuousClock.now
                do {
                    try await r.step(.tap, "hang")
                    Issue.record("the hanging tap must fail")
                } catch let error as StepError {
                    #expect(error.description.contains("stopped answering"), "\(error)")
                }
                #expect(ContinuousClock.now - started < .seconds(8))
                try await r.page.dispose()
                let next = try await site.registry()
                try await next.step(.open, "verbs.html")
                try await next.step(.tap, "tap-me")
                try await next.step(.assert, "tap-me", "text=1")
            }
        }

        @Test("a crashed renderer fails the next step as a crash, and the browser serves the next job")
        func crashedRenderer() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                r.page.connection.sendIgnoringReply("Page.crash", session: r.page.sessionID)
                do {
                    try await r.step(.wait, "never", "20")
                    Issue.record("a step on a crashed page must fail")
                } catch let error as StepError {
                    #expect(error.description.contains("crashed"), "\(error)")
                }
                let next = try await site.registry()
                try await next.step(.open, "verbs.html")
                try await next.step(.tap, "tap-me")
            }
        }

        @Test("a browser killed mid-job fails the step as a lost browser; the host starts a new one and goes on")
        func killedBrowser() async throws {
            try await withSite { site in
                let host = WebHost(browser: site.browser, baseURL: site.server.baseURL)
                let r = try await host.makeRegistry(configuration: [:], seed: 1)
                try await r.step(.open, "verbs.html")
                let browser = try await site.browser.browser()
                async let waiting: Void = r.step(.wait, "never", "30")
                // Kill once the wait's command is in flight in the page.
                #expect(await eventually { browser.connection.pendingCommands > 0 })
                browser.process.signal(SIGKILL)
                do {
                    try await waiting
                    Issue.record("the step must fail")
                } catch let error as StepError {
                    // An infrastructure fault: the worker reports the attempt lost, not failed.
                    guard case .infrastructure(let message) = error else {
                        Issue.record("expected StepError.infrastructure, got \(error)")
                        return
                    }
                    #expect(message.contains("browser lost"), "\(error)")
                }
                let next = try await host.makeRegistry(configuration: [:], seed: 1)
                try await next.step(.open, "verbs.html")
                try await next.step(.tap, "tap-me")
                try await next.step(.assert, "tap-me", "text=1")
                #expect(await site.browser.launches == 2)
            }
        }
    }
}

/// Waits for `condition`, re-checking every 10 ms, up to `timeout`: a wait for a condition, never a fixed sleep.
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
