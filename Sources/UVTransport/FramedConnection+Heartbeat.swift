import Wire

/// Heartbeats: a repeating loop timer feeds `HeartbeatMonitor`, which decides whether to send HEARTBEAT or give up.
extension FramedConnection {
    /// Sends HEARTBEAT when nothing else was sent during an `interval`, and closes with `.heartbeatTimeout`
    /// after `missLimit` intervals without receiving anything.
    public func startHeartbeat(interval: Duration, missLimit: Int = 3) {
        loop.preconditionInLoop()
        heartbeatTimer?.cancel()
        guard state == .open else { return }
        heartbeat.restart(missLimit: missLimit)
        heartbeatTimer = loop.scheduleRepeatingInLoop(every: interval) { [weak self] in self?.onHeartbeatTick() }
    }

    func onHeartbeatTick() {
        guard state == .open else { return }
        switch heartbeat.tick() {
        case .none:
            break
        case .sendHeartbeat:
            send(Frame(type: MessageType.heartbeat.rawValue))
            // The heartbeat itself is not something the application sent.
            heartbeat.sentSinceTick = false
        case .timedOut:
            fail(WireError(.heartbeatTimeout, "nothing received for \(heartbeat.missLimit) heartbeat intervals"))
        }
    }
}
