import DevTools
import Foundation
import FlowSpec
import FlowVocabulary

/// What keeps two screenshots of the same page equal pixel for pixel (docs/VISUAL.md, "Stable screenshots"). A script
/// every document gets before its own (`Page.addScriptToEvaluateOnNewDocument`, beside the prelude) adds a style that
/// ends CSS animations and transitions at once (duration and delay 0, one iteration: the end state is drawn;
/// `animationend` still fires, `transitionend` does not, as no transition starts) and hides the text caret;
/// `Emulation.setScrollbarsHidden` hides scrollbars. Before a step's picture, the page is settled
/// (``WebRegistry/settleForScreenshot()``) with the script's `__flowmatrixSettle`. Masks take element boxes from the
/// step's `elements.json` (``ScreenElements``).
enum ScreenshotFreeze {
    static let source = #"""
        (() => {
          if (window.__flowmatrixFrozen) return;
          window.__flowmatrixFrozen = true;
          const css = '*,*::before,*::after{animation-duration:0s!important;animation-delay:0s!important;'
            + 'animation-iteration-count:1!important;transition-duration:0s!important;transition-delay:0s!important;'
            + 'caret-color:transparent!important;scroll-behavior:auto!important}';
          const install = () => {
            if (document.querySelector('style[data-flowmatrix-freeze]')) return;
            const style = document.createElement('style');
            style.setAttribute('data-flowmatrix-freeze', '');
            style.textContent = css;
            (document.head || document.documentElement).appendChild(style);
          };
          if (document.documentElement) install(); else document.addEventListener('readystatechange', install, { once: true });
          document.addEventListener('DOMContentLoaded', install);

          // Animations the style cannot reach (element.animate(), shadow trees, SVG <animate>): a finite one jumps to
          // its end, an endless one (a spinner) stops at its start.
          const still = () => {
            for (const a of document.getAnimations()) {
              if (a.playState !== 'running') continue;
              const end = a.effect ? a.effect.getComputedTiming().endTime : Infinity;
              if (Number.isFinite(end)) a.finish(); else { a.pause(); a.currentTime = 0; }
            }
            for (const svg of document.querySelectorAll('svg')) {
              if (svg.animationsPaused && !svg.animationsPaused()) { svg.pauseAnimations(); svg.setCurrentTime(0); }
            }
          };
          // One frame: requestAnimationFrame, or 100 ms when frames do not come (a page in the background).
          const frame = () => new Promise((resolve) => {
            let done = false;
            const go = () => { if (!done) { done = true; resolve(); } };
            requestAnimationFrame(go);
            setTimeout(go, 100);
          });
          // Waits until the DOM has not changed for two frames and `quietMs`, or the deadline.
          const quietDOM = (quietMs, deadline) => new Promise((resolve) => {
            let changedAt = performance.now(), frames = 0;
            const observer = new MutationObserver(() => { changedAt = performance.now(); frames = 0; });
            observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
            const tick = () => {
              frames++;
              const now = performance.now();
              if ((frames >= 2 && now - changedAt >= quietMs) || now >= deadline) { observer.disconnect(); resolve(); }
              else frame().then(tick);
            };
            frame().then(tick);
          });
          // Before a step's picture: the frame after the step has run (work a page defers to it — a render, a
          // request — has started), the fonts its text uses have loaded, its images are decoded, its animations are
          // still; with `quiet`, its DOM has stopped changing (after the answers to its requests). Never longer than
          // `budgetMs`. With `withSnapshot`, the answer carries the prelude's snapshot of the settled page (the step's
          // DOM evidence: no second round trip).
          const settle = async (quiet, budgetMs, withSnapshot) => {
            const started = performance.now(), deadline = started + budgetMs;
            const left = () => Math.max(0, deadline - performance.now());
            const within = (p) => Promise.race([p, new Promise((r) => setTimeout(r, left()))]);
            // Milliseconds per part, for the driver's timings (`settle: frame`, …).
            const phases = {};
            let mark = started;
            const lap = (name) => { const now = performance.now(); phases[name] = now - mark; mark = now; };
            // Style and layout now: a font the text uses starts loading here, not while the picture is drawn.
            if (document.body) void document.body.offsetHeight;
            still();
            await within(frame());
            lap('frame');
            if (quiet) { await quietDOM(50, deadline); lap('quiet DOM'); }
            if (document.fonts && document.fonts.status !== 'loaded') await within(document.fonts.ready);
            const images = [...document.images].filter((i) => i.complete && i.naturalWidth > 0);
            if (images.length) await within(Promise.all(images.map((i) => i.decode().catch(() => {}))));
            still();
            lap('fonts and images');
            // A permission prompt the driver has not answered yet holds the page's call (geolocation), and a location
            // request runs until its first callback: pending too.
            const fm = window.__flowmatrix;
            const permissions = fm && fm.permissionsPending ? fm.permissionsPending() : 0;
            // As JSON text (``snapshot(from:)``).
            const snapshot = withSnapshot && fm && fm.snapshotText ? fm.snapshotText() : undefined;
            lap('snapshot');
            return { permissions, late: performance.now() >= deadline, snapshot, phases,
              wall: [performance.timeOrigin + started, performance.timeOrigin + performance.now()] };
          };
          Object.defineProperty(window, '__flowmatrixSettle', { value: settle });
        })();
        """#

    /// The expression the evidence evaluates for a step's DOM: the prelude's snapshot, whose `screen` holds the
    /// elements on screen with their boxes (``ScreenElements``: the report's overlay and visual masks read them), as
    /// JSON text (``snapshot(from:)``).
    static func snapshotExpression(attribute: String) -> String { "__flowmatrix.snapshotText()" }

    /// A snapshot the page sent as JSON text, parsed. The page stringifies it: the browser sends one string back
    /// several times faster than the same object by value (`returnByValue` walks it member by member), measured at
    /// 27 → 9 ms per snapshot of the sample shop between the page's answer and ours (docs/WEB.md).
    static func snapshot(from value: JSONValue?) -> JSONValue? {
        guard let text = value?.string else { return nil }
        return try? JSONValue.parse(Array(text.utf8))
    }
}

extension WebRegistry {
    /// The most a screenshot waits for the page to settle: its requests (a 44 kB catalog on `network=edge` takes
    /// about 2 s), then its DOM.
    static let settleTimeout = Duration.seconds(5)

    /// Settles the page before a step's picture, so that two identical runs picture the same state (docs/VISUAL.md):
    /// the page's settle (the frame after the step, fonts, image decoding, animations stilled) answers after every
    /// event the step caused, so a request the step started is known to be in flight by then; while requests are
    /// in flight it waits for them to end, then for the page's DOM to stay unchanged (two frames and 50 ms: the
    /// answers are rendered), and looks again; a permission prompt the page waits for, and a location request until
    /// its first callback, count as in flight. A request that ended while the page settled counts too (its answer
    /// may not be rendered yet): the page settles again, quiet. A picture of "Loading…" in one run and of the loaded list in the next is a visual change no page made.
    /// Bounded by ``settleTimeout``; timed as `evidence: settle` (``WebTimings``).
    /// - Returns: a line for `evidence-problems.txt` when the page did not settle (nil otherwise), and the page's
    ///   snapshot (`__flowmatrix.snapshot()`: DOM, generation, elements on screen) taken as it settled — nil when it
    ///   did not, or when a request was in flight or ended meanwhile (the evidence then asks for the DOM itself).
    func settleForScreenshot() async -> (problem: String?, snapshot: JSONValue?) {
        await WebTimings.measure("evidence: settle") { await settle() }
    }

    private func settle() async -> (problem: String?, snapshot: JSONValue?) {
        let clock = ContinuousClock()
        let deadline = clock.now + Self.settleTimeout
        let events = events
        var quiet = false
        var resettled = false
        var failure: String?
        for _ in 0..<100 {
            let left = deadline - clock.now
            guard left > .zero else { break }
            let ended = events.networkSignal.generation  // requests that ended so far
            let value: JSONValue?
            let sent = clock.now
            do {
                let settled = try await page.send(
                    "Runtime.evaluate",
                    ["expression": .string(Self.settleExpression(quiet: quiet, budget: left)),
                     "awaitPromise": true, "returnByValue": true],
                    timeout: left + .seconds(1))
                value = settled["result"]?["value"]
                if WebTimings.enabled { Self.recordSettleTimings(value, sent: sent, clock: clock) }
                // What this look found, not an earlier one: a prompt answered since is no longer a problem.
                failure = value?["late"]?.bool == true ? "it kept changing for \(Self.settleTimeout.secondsText)" : nil
                if let waiting = value?["permissions"]?.int, waiting > 0 {
                    // The monitors answer the prompt on their own task; the page's call then goes on: look again.
                    failure = "\(waiting) permission prompt(s) or location request(s) not answered"
                    quiet = true
                    continue
                }
            } catch let error as DevToolsError where error.code == .commandFailed {
                failure = "\(error)"  // The document was replaced while it settled: settle the new one.
                continue
            } catch {
                failure = "\(error)"
                break
            }
            if events.pendingRequests().isEmpty {
                let quietSince = events.networkSignal.generation == ended
                if quietSince {
                    return (failure, failure == nil ? ScreenshotFreeze.snapshot(from: value?["snapshot"]) : nil)
                }
                // A request ended while the page settled: its answer is rendered before the picture (once: a page
                // that polls all the time is pictured as the old settle did, and its DOM asked for apart).
                if resettled { return (failure, nil) }
                resettled = true
                quiet = true
                failure = nil
                continue
            }
            let waiter = ConditionWaiter(clock: SystemWaitClock.shared, signal: events.networkSignal)
            do {
                try await WebTimings.measure("settle: requests to end") {
                    try await waiter.wait(for: "the page's requests to end", timeout: deadline - clock.now) {
                        events.pendingRequests().isEmpty
                    }
                }
            } catch {
                break
            }
            quiet = true
            failure = nil
        }
        let pending = events.pendingRequests().map(\.request).prefix(3).joined(separator: ", ")
        guard !pending.isEmpty || failure != nil else { return (nil, nil) }
        return ("screenshot: taken before the page settled ("
            + (pending.isEmpty ? failure ?? "" : "still in flight: \(pending)") + ")", nil)
    }

    /// The settle's parts in the page (`settle: frame`, `settle: quiet DOM`, …) and around it: the way to the page
    /// (`settle: before the script ran`) and back (`settle: answer's way back`), from the page's wall clock
    /// (`performance.timeOrigin`) against ours. For `FLOWMATRIX_WEB_TIMING=1` (``WebTimings``).
    private static func recordSettleTimings(_ value: JSONValue?, sent: ContinuousClock.Instant, clock: ContinuousClock) {
        if case .object(let phases)? = value?["phases"] {
            for (name, ms) in phases { WebTimings.record("settle: \(name)", .milliseconds(ms.double ?? 0)) }
        }
        guard let wall = value?["wall"]?.array, wall.count == 2, let start = wall[0].double, let end = wall[1].double
        else { return }
        let now = Date().timeIntervalSince1970 * 1000
        WebTimings.record("settle: before the script ran", .milliseconds(start - (now - (clock.now - sent).milliseconds)))
        WebTimings.record("settle: answer's way back", .milliseconds(now - end))
    }

    /// The page's settle with its snapshot, or nothing in a document without the freeze script.
    static func settleExpression(quiet: Bool, budget: Duration) -> String {
        let ms = max(1, Int(budget.milliseconds.rounded(.down)))
        return "typeof __flowmatrixSettle === 'function' ? __flowmatrixSettle(\(quiet), \(ms), true) : null"
    }
}
