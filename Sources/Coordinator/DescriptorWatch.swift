import UVTransport

/// Says, once per burst, when the coordinator cannot accept connections for lack of descriptors. libuv refuses
/// them without telling the application (`DescriptorLimit.isExhausted`), so the watch probes on every tick; after
/// descriptors have been free for `quietPeriod` a new shortage is a new burst. Loop-confined.
final class DescriptorWatch {
    var onNotice: (@Sendable (String) -> Void)?
    /// A shortage was said and descriptors have not been free for `quietPeriod` since.
    private(set) var inBurst = false
    private var freeFor: Duration = .zero
    let quietPeriod: Duration = .seconds(10)

    /// Probes once; `connected` is how many connections the coordinator holds, `interval` the time since the last probe.
    func check(connected: Int, every interval: Duration) {
        guard onNotice != nil else { return }
        guard DescriptorLimit.isExhausted else {
            freeFor += interval
            if freeFor >= quietPeriod { inBurst = false }
            return
        }
        freeFor = .zero
        guard !inBurst else { return }
        inBurst = true
        let limit = DescriptorLimit.current.map { "all \($0.soft)" } ?? "all the"
        onNotice?("cannot accept more connections: \(limit) open-file descriptors this process may hold "
            + "(RLIMIT_NOFILE) are in use, with \(connected) connected; workers connecting now are refused and retry. "
            + "Raise the hard limit where the coordinator starts (ulimit -Hn, LimitNOFILE= in a systemd unit) and "
            + "restart it (docs/FLEET.md, \"Open files\")")
    }
}
