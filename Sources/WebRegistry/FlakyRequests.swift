import MatrixPlan

/// Which requests a `flaky` network fails: a pure function of the job's seed and the request's method, URL and
/// occurrence (the n-th request for the same method and URL in the job), never of the order in which the browser
/// happens to issue requests, so the same seed fails the same requests on every rerun.
public enum FlakyRequests {
    /// True when the `occurrence`-th (from 1) `method` request for `url` fails at `rate` (0…1) under `seed`.
    public static func fails(seed: UInt64, method: String, url: String, occurrence: Int, rate: Double) -> Bool {
        guard rate > 0 else { return false }
        guard rate < 1 else { return true }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over "METHOD URL #n"
        for byte in "\(method) \(url) #\(occurrence)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        var generator = SplitMix64(seed: seed ^ hash)
        return generator.nextUnit() < rate
    }
}
