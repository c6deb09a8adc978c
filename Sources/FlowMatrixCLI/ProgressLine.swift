import Coordinator
import Foundation
import Synchronization

/// The live progress of a run: one rewritten line on a terminal, a plain line every few seconds otherwise.
final class ProgressLine: Sendable {
    private let total: Int
    private let enabled: Bool
    private let isTTY: Bool
    private let lastPlain = Mutex<ContinuousClock.Instant?>(nil)

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        isTTY = isatty(STDOUT_FILENO) == 1
    }

    static func text(_ p: RunProgress, total: Int, elapsed: Duration) -> String {
        let seconds = max(elapsed.milliseconds / 1000, 0.001)
        let rate = Double(p.done) / seconds
        let eta = rate > 0 ? Double(total - p.done) / rate : 0
        let width = String(total).count
        let done = String(repeating: " ", count: max(0, width - String(p.done).count)) + String(p.done)
        return String(format: "[%@/%d] passed %d, failed %d, flaky %d | %.0f jobs/s | ETA %.0fs | %d worker(s), %d running",
                      done, total, p.count(.passed), p.count(.failed) + p.count(.timedOut) + p.count(.quarantined),
                      p.count(.flaky), rate, eta, p.workers, p.inFlight)
    }

    func update(_ p: RunProgress, elapsed: Duration) {
        guard enabled else { return }
        if isTTY {
            print("\r\u{1B}[2K" + Self.text(p, total: total, elapsed: elapsed), terminator: "")
            fflush(nil)
        } else {
            let now = ContinuousClock.now
            let due = lastPlain.withLock { last -> Bool in
                if let l = last, now - l < .seconds(5) { return false }
                last = now
                return true
            }
            if due { FlowMatrixCLI.say(Self.text(p, total: total, elapsed: elapsed)) }
        }
    }

    func finish(_ p: RunProgress, elapsed: Duration) {
        guard enabled else { return }
        if isTTY { FlowMatrixCLI.say("\r\u{1B}[2K" + Self.text(p, total: total, elapsed: elapsed)) } else {
            FlowMatrixCLI.say(Self.text(p, total: total, elapsed: elapsed))
        }
    }
}
