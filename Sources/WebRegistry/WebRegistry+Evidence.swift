import DevTools
import FlowSpec
import Foundation

extension WebRegistry {
    /// After each step: a PNG screenshot, the DOM, the elements on screen with their boxes (`elements.json`), and the
    /// console and network lines since the previous step.
    ///
    /// The DOM (with the page's change generation) comes with the answer of the settle before the screenshot (one
    /// round trip for both); without a settle (screenshots off, or a request ended as it settled) the DOM and the
    /// screenshot are asked for together. A `wait` or `assert` brought its DOM back with its own answer (once evidence
    /// was asked for). After a
    /// `wait` or `assert` (steps that do not touch the page) that left the generation unchanged, with no
    /// animation running, the previous screenshot is the picture of this step too and is reused rather than captured
    /// again. The screenshot is encoded by the browser for speed (`optimizeForSpeed`, still a PNG) and kept as the
    /// base64 the browser sent: it is decoded only when the attempt's evidence is kept.
    public func evidence(afterStep index: Int, step: Step) async -> [StepAttachment] {
        let started = ContinuousClock.now
        defer { WebTimings.record("evidence: whole", ContinuousClock.now - started) }
        var out: [StepAttachment] = []
        var problems: [String] = []
        let logs = events.takeLogs()
        evidenceWanted = true
        if pageOpened && events.crashed == nil && events.dialog == nil {
            let passive = step.verb == .wait || step.verb == .assert
            // A step that left requests in flight (an `open` whose page fetches its data) is pictured once they end;
            // the settled page's snapshot comes with the settle's answer.
            var settled: JSONValue?
            if settings.screenshots && !passive {
                let (problem, snapshot) = await settleForScreenshot()
                if let problem { problems.append(problem) }
                settled = snapshot
            }
            let page = page
            let timeout = settings.pageTimeout
            // A passive step may reuse the last picture: its screenshot waits for the snapshot's generation.
            let eager = settings.screenshots && !(passive && lastScreenshot != nil)
            let screencast = screencast
            async let eagerShot: Result<JSONValue, any Error>? =
                eager ? Self.screenshot(page, screencast, timeout: timeout) : nil
            var generation: Int?
            var animating = true
            do {
                let value: JSONValue?
                if passive, let taken = stepSnapshot {
                    value = taken
                } else if let settled {
                    value = settled
                } else {
                    value = ScreenshotFreeze.snapshot(from: try await WebTimings.measure("evidence: dom") {
                        try await page.send(
                            "Runtime.evaluate",
                            ["expression": .string(ScreenshotFreeze.snapshotExpression(attribute: settings.identifierAttribute)),
                             "returnByValue": true],
                            timeout: timeout)
                    }["result"]?["value"])
                }
                generation = value?["generation"]?.int
                animating = value?["animating"]?.bool ?? true
                if let html = value?["html"]?.string {
                    out.append(StepAttachment(name: "dom.html", mediaType: "text/html", bytes: Array(html.utf8)))
                }
                // The elements on screen with their boxes: the report's overlay draws them (docs/REPORTS.md) and visual
                // masks take their boxes (docs/VISUAL.md). A passive step's snapshot may have none: the page is the last one's.
                if let screen = value?["screen"].flatMap({ $0.object != nil ? $0 : nil }) ?? lastBoxes {
                    lastBoxes = screen
                    out.append(StepAttachment(name: "elements.json", mediaType: "application/json") {
                        Array(screen.serialized.utf8)
                    })
                }
            } catch {
                problems.append("dom: \(error)")
            }
            var shot = await eagerShot
            if settings.screenshots && shot == nil {
                if passive, !animating, let generation, let last = lastScreenshot, last.generation == generation {
                    out.append(Self.png(last.base64))
                } else {
                    shot = await Self.screenshot(page, screencast, timeout: timeout)
                }
            }
            switch shot {
            case .success(let answer)?:
                if let base64 = answer["data"]?.string {
                    out.append(Self.png(base64))
                    lastScreenshot = generation.map { (generation: $0, base64: base64) }
                }
            case .failure(let error)?: problems.append("screenshot: \(error)")
            case nil: break
            }
        }
        out += Self.logAttachments(logs, problems: problems + (events.crashed.map { [$0] } ?? []))
        if let screencast { out += screencast.take() }
        return out
    }

    /// The page's screenshot; a recording (`screencast`) is paused while it is taken.
    private static func screenshot(
        _ page: PageTarget, _ screencast: Screencast?, timeout: Duration
    ) async -> Result<JSONValue, any Error> {
        screencast?.pause()
        defer { screencast?.resume() }
        do {
            return .success(
                try await WebTimings.measure("evidence: screenshot") {
                    try await page.send(
                        "Page.captureScreenshot", ["format": "png", "optimizeForSpeed": true], timeout: timeout)
                })
        } catch {
            return .failure(error)
        }
    }

    /// A screenshot attachment decoded from the browser's base64 only when it is rendered (kept).
    private static func png(_ base64: String) -> StepAttachment {
        StepAttachment(name: "screenshot.png", mediaType: "image/png") {
            Data(base64Encoded: base64).map { [UInt8]($0) } ?? []
        }
    }

    private static func logAttachments(
        _ logs: (console: [String], network: [String]), problems: [String]
    ) -> [StepAttachment] {
        var out: [StepAttachment] = []
        for (name, lines) in [("console.txt", logs.console), ("network.txt", logs.network),
            ("evidence-problems.txt", problems)] where !lines.isEmpty
        {
            out.append(
                StepAttachment(
                    name: name, mediaType: "text/plain", bytes: Array((lines.joined(separator: "\n") + "\n").utf8)))
        }
        return out
    }
}
