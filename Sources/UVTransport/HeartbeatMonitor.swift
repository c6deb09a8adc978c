/// Whether a connection should send a HEARTBEAT or has gone silent, decided one tick at a time: a pure value.
///
/// The connection counts nothing itself: it tells each tick whether it received anything and whether it queued
/// anything for sending since the previous tick, and does what the monitor answers.
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

    package init(missLimit: Int) { self.missLimit = max(1, missLimit) }

    /// Starts counting afresh (a heartbeat started or restarted).
    package mutating func restart(missLimit: Int) {
        self.missLimit = max(1, missLimit)
        silentTicks = 0
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
