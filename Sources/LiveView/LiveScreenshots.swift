import Synchronization

/// The screenshots a live panel shows before the run's report is written: each image blob of a job that did not
/// pass gets a pack number the first time a chunk names it, and `blobs/pack-N.js` serves that one blob from the
/// content-addressed store (``Reports/LivePage/screenshotPack(_:sha256:store:)``). Only numbers handed out here are
/// served, so a request cannot name a file; at most ``limit`` blobs are numbered (later ones are listed, not shown).
final class LiveScreenshots: Sendable {
    /// The most screenshots numbered during one run.
    static let limit = 50_000

    private struct State {
        var numbers: [String: Int] = [:]
        var blobs: [String] = []
    }

    private let state = Mutex(State())

    /// The pack number of blob `sha256`, given on first sight; nil once ``limit`` blobs are numbered.
    func number(for sha256: String) -> Int? {
        state.withLock { s in
            if let known = s.numbers[sha256] { return known }
            guard s.blobs.count < Self.limit else { return nil }
            s.numbers[sha256] = s.blobs.count
            s.blobs.append(sha256)
            return s.blobs.count - 1
        }
    }

    /// The blob numbered `n`, or nil.
    func blob(_ n: Int) -> String? {
        state.withLock { s in s.blobs.indices.contains(n) ? s.blobs[n] : nil }
    }
}
