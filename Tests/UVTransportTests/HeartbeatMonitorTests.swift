import Testing
import UVTransport

/// The heartbeat decision, tick by tick, without a socket or a timer.
@Suite("Heartbeat monitor")
struct HeartbeatMonitorTests {
    @Test("an interval in which nothing was sent asks for a HEARTBEAT; one with traffic does not")
    func sendsOnlyWhenSilent() {
        var monitor = HeartbeatMonitor(missLimit: 3)
        #expect(monitor.onTick(received: true, sent: false) == .sendHeartbeat)
        #expect(monitor.onTick(received: true, sent: true) == HeartbeatMonitor.Directive.none)
    }

    @Test("missLimit silent intervals in a row time out; anything received resets the count")
    func timesOutAfterMissLimit() {
        var monitor = HeartbeatMonitor(missLimit: 3)
        #expect(monitor.onTick(received: false, sent: true) == HeartbeatMonitor.Directive.none)
        #expect(monitor.onTick(received: false, sent: true) == HeartbeatMonitor.Directive.none)
        #expect(monitor.silentTicks == 2)
        #expect(monitor.onTick(received: true, sent: true) == HeartbeatMonitor.Directive.none)
        #expect(monitor.silentTicks == 0)
        for _ in 0..<2 { #expect(monitor.onTick(received: false, sent: false) == .sendHeartbeat) }
        #expect(monitor.onTick(received: false, sent: false) == .timedOut)
    }

    @Test("a restart forgets the silent intervals counted so far and takes the new limit")
    func restart() {
        var monitor = HeartbeatMonitor(missLimit: 2)
        #expect(monitor.onTick(received: false, sent: true) == HeartbeatMonitor.Directive.none)
        monitor.restart(missLimit: 1)
        #expect(monitor.silentTicks == 0)
        #expect(monitor.onTick(received: false, sent: true) == .timedOut)
    }

    @Test("a limit below one is one")
    func clampsLimit() {
        var monitor = HeartbeatMonitor(missLimit: 0)
        #expect(monitor.missLimit == 1)
        #expect(monitor.onTick(received: false, sent: false) == .timedOut)
    }

    @Test("tick decides from the reads and sends noted since the last tick, then forgets them")
    func tickUsesNotedTraffic() {
        var monitor = HeartbeatMonitor(missLimit: 2)
        monitor.receivedSinceTick = true
        monitor.sentSinceTick = true
        #expect(monitor.tick() == HeartbeatMonitor.Directive.none)
        #expect(!monitor.receivedSinceTick && !monitor.sentSinceTick)
        #expect(monitor.tick() == .sendHeartbeat)
        monitor.receivedSinceTick = true
        monitor.restart(missLimit: 2)
        #expect(monitor.tick() == .sendHeartbeat)
        #expect(monitor.tick() == .timedOut)
    }
}
