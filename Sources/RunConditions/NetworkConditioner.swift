import FlowSpec
import MatrixPlan
import Synchronization

/// Why a conditioned request failed (the analogue of a `URLError` code).
public struct NetworkFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable word: `not-connected`, `connection-lost`, `timeout`, or a custom profile's failure word.
    public var code: String

    public init(code: String) { self.code = code }

    public static let notConnected = NetworkFailure(code: "not-connected")
    public static let connectionLost = NetworkFailure(code: "connection-lost")

    public var description: String {
        switch code {
        case "not-connected": "the device is not connected to the internet"
        case "connection-lost": "the network connection was lost"
        case "timeout": "the request timed out"
        default: "the request failed (\(code))"
        }
    }
}

/// The figures of a network profile: what every request experiences.
public struct NetworkProfile: Sendable, Hashable, CustomStringConvertible {
    /// The profile's name (`edge`, `3g`, `lte`, `flaky`, `offline`, a custom profile's canonical form, or `none`).
    public var name: String
    /// Time to first byte.
    public var latency: Duration
    /// The latency varies uniformly within ± this.
    public var jitter: Duration
    /// Throughput; nil for unlimited.
    public var bytesPerSecond: Int?
    /// Probability in 0…1 that a request fails.
    public var failureRate: Double
    /// How failing requests fail.
    public var failure: NetworkFailure

    public init(
        name: String, latency: Duration, jitter: Duration = .zero, bytesPerSecond: Int?,
        failureRate: Double = 0, failure: NetworkFailure = .connectionLost
    ) {
        self.name = name
        self.latency = latency
        self.jitter = jitter
        self.bytesPerSecond = bytesPerSecond
        self.failureRate = failureRate
        self.failure = failure
    }

    /// ~400 ms ± 100 ms, ~30 kB/s (about 240 kbit/s).
    public static let edge = NetworkProfile(
        name: "edge", latency: .milliseconds(400), jitter: .milliseconds(100),
        bytesPerSecond: 30_000)
    /// ~100 ms ± 50 ms, ~200 kB/s (about 1.6 Mbit/s).
    public static let threeG = NetworkProfile(
        name: "3g", latency: .milliseconds(100), jitter: .milliseconds(50),
        bytesPerSecond: 200_000)
    /// ~50 ms, ~6.25 MB/s (about 50 Mbit/s).
    public static let lte = NetworkProfile(name: "lte", latency: .milliseconds(50), bytesPerSecond: 6_250_000)
    /// LTE figures, but 30 % of requests fail with a lost connection.
    public static let flaky = NetworkProfile(
        name: "flaky", latency: .milliseconds(50), bytesPerSecond: 6_250_000,
        failureRate: 0.3, failure: .connectionLost)
    /// Every request fails at once: not connected.
    public static let offline = NetworkProfile(
        name: "offline", latency: .zero, bytesPerSecond: nil, failureRate: 1,
        failure: .notConnected)
    /// No conditioning (a configuration without a `network` value).
    public static let unconditioned = NetworkProfile(name: "none", latency: .zero, bytesPerSecond: nil)

    /// The profile a `network` axis value names.
    public init(_ spec: NetworkSpec) {
        switch spec {
        case .named(.edge): self = .edge
        case .named(.threeG): self = .threeG
        case .named(.lte): self = .lte
        case .named(.flaky): self = .flaky
        case .named(.offline): self = .offline
        case .custom(let c):
            self.init(
                name: c.description, latency: .milliseconds(c.latencyMilliseconds),
                jitter: .milliseconds(c.jitterMilliseconds), bytesPerSecond: c.bytesPerSecond,
                failureRate: c.failureRate, failure: c.failure.map(NetworkFailure.init(code:)) ?? .connectionLost)
        }
    }

    public var description: String { name }
}

/// What the conditioner decided for one request.
public struct ConditionedRequest: Sendable, Hashable {
    /// 0 for the job's first request, then 1, 2, …
    public var sequence: Int
    /// When the response (or the failure) arrives, after the request was sent.
    public var delay: Duration
    /// Nil when the request succeeds.
    public var failure: NetworkFailure?
}

/// Applies a network profile to an app's data port: latency, jitter, byte rate and failures, drawn from a
/// generator seeded per job, so a rerun with the same seed reproduces every delay and every failure.
///
/// Headless ports schedule the completion on a `VirtualClock` (`deliver(…)`), so an edge run costs no more
/// wall time than an lte run while step durations report the simulated time.
public final class NetworkConditioner: Sendable {
    public let profile: NetworkProfile
    public let seed: UInt64

    private struct State {
        var generator: SplitMix64
        var sequence = 0
        var history: [ConditionedRequest] = []
    }

    private let state: Mutex<State>

    public init(profile: NetworkProfile, seed: UInt64) {
        self.profile = profile
        self.seed = seed
        // Mix the seed so neighbouring seeds (1, 2, 3…) give unrelated streams.
        self.state = Mutex(State(generator: SplitMix64(seed: seed ^ 0x6E65_7477_6F72_6B21)))
    }

    /// Decides the next request's fate: its delay (latency ± jitter, plus transfer time at the byte rate) and
    /// whether it fails. Every request draws the same number of values, so outcomes depend only on the seed and
    /// the request's position in the job.
    public func condition(requestBytes: Int, responseBytes: Int) -> ConditionedRequest {
        let p = profile
        return state.withLock { s in
            let jitterDraw = s.generator.nextUnit() * 2 - 1  // -1 ..< 1
            let failureDraw = s.generator.nextUnit()  // 0 ..< 1
            let jitterNanos = Double(p.jitter.nanoseconds) * jitterDraw
            let firstByte = max(0, Double(p.latency.nanoseconds) + jitterNanos)
            let fails = failureDraw < p.failureRate
            var nanos = firstByte
            if !fails, let rate = p.bytesPerSecond, rate > 0 {
                nanos += Double(max(0, requestBytes) + max(0, responseBytes)) / Double(rate) * 1e9
            }
            let request = ConditionedRequest(
                sequence: s.sequence, delay: .nanoseconds(Int64(nanos.rounded())),
                failure: fails ? p.failure : nil)
            s.sequence += 1
            s.history.append(request)
            return request
        }
    }

    /// Conditions a request and schedules `completion` on `clock` when its response (or failure) arrives.
    /// - Returns: the decision, for logs.
    @discardableResult
    public func deliver(
        requestBytes: Int, responseBytes: Int, on clock: VirtualClock,
        completion: @escaping @Sendable (ConditionedRequest) async -> Void
    ) -> ConditionedRequest {
        let decision = condition(requestBytes: requestBytes, responseBytes: responseBytes)
        clock.schedule(after: decision.delay) { await completion(decision) }
        return decision
    }

    /// Every decision so far, in order.
    public var history: [ConditionedRequest] { state.withLock { $0.history } }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (s, atto) = components
        let (scaled, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? .min : .max }
        return scaled &+ atto / 1_000_000_000
    }
}
