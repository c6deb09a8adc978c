/// A deterministic pseudo-random generator (SplitMix64): the same seed gives the same sequence on every platform.
/// The one seeded generator of the code base: covering arrays, attempt seeds, the network conditioner, flaky
/// requests, benches and property tests all draw from it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A uniform value in 0 ..< 1 with 53 bits of precision.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
