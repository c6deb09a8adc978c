import DevTools
import FlowSpec

/// What keeps two screenshots of the same page equal pixel for pixel (docs/VISUAL.md): a script every document gets
/// before its own (`Page.addScriptToEvaluateOnNewDocument`, beside the prelude) adds a style that ends CSS animations
/// and transitions at once (duration and delay 0, one iteration: the end state is drawn; `animationend` still fires,
/// `transitionend` does not, as no transition starts) and hides the text caret; `Emulation.setScrollbarsHidden` hides
/// scrollbars. Masks take element boxes from the step's `elements.json` (``ScreenElements``).
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
        })();
        """#

    /// The expression the evidence evaluates for a step's DOM: the prelude's snapshot, whose `screen` holds the
    /// elements on screen with their boxes (``ScreenElements``: the report's overlay and visual masks read them).
    static func snapshotExpression(attribute: String) -> String { "__flowmatrix.snapshot()" }
}

extension WebRegistry {
    /// The most a screenshot waits for the page's requests to end.
    static let settleTimeout = Duration.seconds(2)

    /// Waits until no request of the page is in flight (bounded by ``settleTimeout``), then for two animation frames
    /// so the answers are drawn: a picture of "Loading…" in one run and of the loaded list in the next is a visual
    /// change no page made. Nothing is waited for when no request is in flight.
    /// - Returns: a line for `evidence-problems.txt` when the page did not settle; nil otherwise.
    func settleForScreenshot() async -> String? {
        guard !events.pendingRequests().isEmpty else { return nil }
        let events = events
        let waiter = ConditionWaiter(clock: SystemWaitClock.shared, signal: events.networkSignal)
        do {
            try await waiter.wait(for: "the page's requests to end", timeout: Self.settleTimeout) {
                events.pendingRequests().isEmpty
            }
            _ = try await page.send(
                "Runtime.evaluate",
                ["expression": "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
                 "awaitPromise": true, "returnByValue": true],
                timeout: settings.pageTimeout)
            return nil
        } catch {
            let pending = events.pendingRequests().map(\.request).prefix(3).joined(separator: ", ")
            return "screenshot: taken before the page settled (\(pending.isEmpty ? "\(error)" : "still in flight: \(pending)"))"
        }
    }
}
