/// How durations are spoken in messages and reports, by every layer (the scheduler's "no heartbeat for 15.2s",
/// a runner's timeout message, bench figures).
extension Duration {
    /// Seconds with up to three decimals, e.g. `1.5s`.
    public var secondsText: String {
        let ms = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        let seconds = (ms / 1000 * 1000).rounded() / 1000
        return "\(seconds)s"
    }

    /// The duration in (fractional) milliseconds.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
