import Coordinator
import FlowVocabulary
import Foundation
import Synchronization

/// The live progress of a run: one rewritten line on a terminal, a plain line every few seconds otherwise.
final class ProgressLine: Sendable {
    private let total: Int
    /// Jobs already final when this session started (a resumed run): not counted in its rate.
    private let alreadyDone: Int
    private let enabled: Bool
    private let isTTY: Bool
    private let lastPlain = Mutex<ContinuousClock.Instant?>(nil)
    /// Set by `finish`: an update that comes after it (a display tick still under way) prints nothing.
    private let finished = Mutex(false)

    init(total: Int, alreadyDone: Int = 0, enabled: Bool) {
        self.total = total
        self.alreadyDone = alreadyDone
        self.enabled = enabled
        isTTY = isatty(STDOUT_FILENO) == 1
    }

    /// `[ran/total]` counts jobs with a real outcome (not those that never ran); the rate and ETA count only what
    /// this session finished, so a resumed run's rate is its own; "not run" appears once there are some.
    static func text(_ p: RunProgress, total: Int, alreadyDone: Int = 0, elapsed: Duration) -> String {
        let seconds = max(elapsed.milliseconds / 1000, 0.001)
        let notRun = p.count(.notRun) + p.count(.cancelled)
        let ran = p.done - notRun
        let rate = Double(max(0, p.done - alreadyDone)) / seconds
        let eta = rate > 0 ? Double(total - p.done) / rate : 0
        let width = String(total).count
        let done = String(repeating: " ", count: max(0, width - String(ran).count)) + String(ran)
        let etaText = p.done == total ? "done" : (rate > 0 ? String(format: "ETA %.0fs", eta) : "ETA unknown")
        var line = String(format: "[%@/%d] passed %d, failed %d, flaky %d", done, total, p.count(.passed),
                          p.count(.failed) + p.count(.timedOut) + p.count(.quarantined), p.count(.flaky))
        if notRun > 0 { line += ", not run \(notRun)" }
        return line + String(format: " | %.0f jobs/s | %@ | %d worker(s), %d running", rate, etaText, p.workers, p.inFlight)
    }

    func update(_ p: RunProgress, elapsed: Duration) {
        guard enabled else { return }
        finished.withLock { done in
            guard !done else { return }
            printLine(p, elapsed: elapsed)
        }
    }

    private func printLine(_ p: RunProgress, elapsed: Duration) {
        if isTTY {
            print("\r\u{1B}[2K" + Self.text(p, total: total, alreadyDone: alreadyDone, elapsed: elapsed), terminator: "")
            fflush(nil)
        } else {
            let now = ContinuousClock.now
            let due = lastPlain.withLock { last -> Bool in
                if let l = last, now - l < .seconds(5) { return false }
                last = now
                return true
            }
            if due { FlowMatrixCLI.say(Self.text(p, total: total, alreadyDone: alreadyDone, elapsed: elapsed)) }
        }
    }

    func finish(_ p: RunProgress, elapsed: Duration) {
        guard enabled else { return }
        finished.withLock { done in
            done = true
            finishLine(p, elapsed: elapsed)
        }
    }

    private func finishLine(_ p: RunProgress, elapsed: Duration) {
        if isTTY { FlowMatrixCLI.say("\r\u{1B}[2K" + Self.text(p, total: total, alreadyDone: alreadyDone, elapsed: elapsed)) } else {
            FlowMatrixCLI.say(Self.text(p, total: total, alreadyDone: alreadyDone, elapsed: elapsed))
        }
    }
}
