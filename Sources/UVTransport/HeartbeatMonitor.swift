/// Whether a connection should send a HEARTBEAT or has gone silent, decided one tick at a time: a pure value.
///
/// The connection notes here that it read something (`receivedSinceTick`) or queued something for sending
/// (`sentSinceTick`), plain flags set on every read and send; at each tick it does what `tick()` answers.
package struct HeartbeatMonitor: Sendable, Hashable {
    /// What the connection does at a tick.
    package enum Directive: Sendable, Hashable {
        /// Nothing: the peer spoke, and so did we.
        case none
        /// Nothing was sent during the interval: send HEARTBEAT so the peer hears from us.
        case sendHeartbeat
        /// Nothing was received for `missLimit` intervals: the peer is gone.
        case timedOut
    }

    /// Intervals without receiving anything after which the peer counts as gone (at least 1).
    package private(set) var missLimit: Int
    /// Intervals in a row without receiving anything.
    package private(set) var silentTicks = 0
    /// Something was read since the last tick.
    package var receivedSinceTick = false
    /// Something was queued for sending since the last tick.
    package var sentSinceTick = false

    package init(missLimit: Int) { self.missLimit = max(1, missLimit) }

    /// Starts counting afresh (a heartbeat started or restarted): what was received so far no longer counts.
    package mutating func restart(missLimit: Int) {
        self.missLimit = max(1, missLimit)
        silentTicks = 0
        receivedSinceTick = false
    }

    /// One interval passed: decides from what was noted since the last tick, and starts noting afresh.
    package mutating func tick() -> Directive {
        defer {
            receivedSinceTick = false
            sentSinceTick = false
        }
        return onTick(received: receivedSinceTick, sent: sentSinceTick)
    }

    /// One interval passed. - Parameters: `received`/`sent`: whether anything was read / queued during it.
    package mutating func onTick(received: Bool, sent: Bool) -> Directive {
        if received {
            silentTicks = 0
        } else {
            silentTicks += 1
            if silentTicks >= missLimit { return .timedOut }
        }
        return sent ? .none : .sendHeartbeat
    }
}
