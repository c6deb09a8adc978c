import FlowSpec
import Synchronization
import Testing

@Suite("Condition-based waits, virtual clock and interruptions")
struct ConditionWaitTests {
    @Test("a 15-second wait that can never succeed costs no wall time on the virtual clock")
    func virtualTimeout() async throws {
        let clock = VirtualClock()
        let waiter = ConditionWaiter(clock: clock, signal: ChangeSignal())
        let wall = ContinuousClock.now
        await #expect(throws: StepError.self) {
            try await waiter.wait(for: "never", timeout: .seconds(15)) { false }
        }
        #expect(clock.now() == .seconds(15))
        #expect(ContinuousClock.now - wall < .seconds(1))
    }

    @Test("a wait resumes when a scheduled event changes state, at that event's simulated time")
    func virtualEventSatisfiesWait() async throws {
        let clock = VirtualClock()
        let signal = ChangeSignal()
        let loaded = Mutex(false)
        clock.schedule(after: .milliseconds(400)) {
            loaded.withLock { $0 = true }
            signal.notify()
        }
        clock.schedule(after: .seconds(3)) { Issue.record("an event after the condition held must not run") }
        try await ConditionWaiter(clock: clock, signal: signal).wait(for: "load", timeout: .seconds(5)) {
            loaded.withLock { $0 }
        }
        #expect(clock.now() == .milliseconds(400))
        #expect(clock.pendingEventCount == 1)
    }

    @Test("on the system clock a wait resumes on a signal, not at its deadline")
    func systemClockSignal() async throws {
        let signal = ChangeSignal()
        let ready = Mutex(false)
        let checks = Mutex(0)
        // Bumped each time the waiter has evaluated its condition: the state changes only after it saw `false`, so
        // the wait must take the signal path (evaluate, wait for a change, evaluate again), never a first-check pass.
        let checked = ChangeSignal()
        let clock = ClockWaitClock(ContinuousClock())
        async let waited: Void = ConditionWaiter(clock: clock, signal: signal)
            .wait(for: "ready", timeout: .seconds(600)) {
                let value = ready.withLock { $0 }
                checks.withLock { $0 += 1 }
                checked.notify()
                return value
            }
        await checked.waitForChange(after: 0)
        ready.withLock { $0 = true }
        signal.notify()
        try await waited
        // Two evaluations and no timeout: it woke on the signal (at the deadline it would have thrown). No wall-time
        // bound: a loaded machine may take long to run the waiting task at all.
        #expect(checks.withLock { $0 } == 2)
    }

    @Test("a registered interruption that appears during a wait is handled, recorded, and the wait continues")
    func interruptionHandled() async throws {
        let clock = VirtualClock()
        let signal = ChangeSignal()
        let popup = Mutex(false)
        let listShown = Mutex(false)
        let monitors = InterruptionMonitors()
        monitors.register(Interruption(name: "rate-app", element: "rate.close",
                                       isPresent: { popup.withLock { $0 } },
                                       handle: { popup.withLock { $0 = false }; signal.notify() }))
        clock.schedule(after: .milliseconds(100)) { popup.withLock { $0 = true }; signal.notify() }
        clock.schedule(after: .milliseconds(300)) { listShown.withLock { $0 = true }; signal.notify() }
        let recorder = StepRecorder()
        try await StepContext.$current.withValue(recorder) {
            try await ConditionWaiter(clock: clock, signal: signal, monitors: monitors)
                .wait(for: "list", element: "catalog.list", timeout: .seconds(5)) { listShown.withLock { $0 } }
        }
        #expect(recorder.interruptions == ["rate-app"])
        #expect(!popup.withLock { $0 })
        #expect(clock.now() == .milliseconds(300))
    }

    @Test("waiting for the interrupting element itself does not dismiss it")
    func awaitedElementNotHandled() async throws {
        let clock = VirtualClock()
        let signal = ChangeSignal()
        let popup = Mutex(true)
        let monitors = InterruptionMonitors()
        monitors.register(Interruption(name: "rate-app", element: "rate.close",
                                       isPresent: { popup.withLock { $0 } },
                                       handle: { popup.withLock { $0 = false } }))
        try await ConditionWaiter(clock: clock, signal: signal, monitors: monitors)
            .wait(for: "rate prompt", element: "rate.close", timeout: .seconds(1)) { popup.withLock { $0 } }
        #expect(popup.withLock { $0 })
    }

    @Test("an interruption whose handler never dismisses it fails the wait instead of looping")
    func stuckInterruption() async {
        let monitors = InterruptionMonitors()
        monitors.register(Interruption(name: "stuck", element: "x", isPresent: { true }, handle: {}))
        await #expect(throws: StepError.self) {
            try await ConditionWaiter(clock: VirtualClock(), signal: ChangeSignal(), monitors: monitors)
                .wait(for: "y", timeout: .seconds(1)) { false }
        }
    }

    @Test("step durations are measured on the registry's virtual clock")
    func durationsOnVirtualClock() async throws {
        let clock = VirtualClock()
        let registry = ScriptedRegistry(clock: clock, ["wait:list": { step in
            let timeout = try StepArguments.waitTimeout(step).get() ?? .seconds(5)
            try await ConditionWaiter(clock: clock, signal: ChangeSignal()).wait(for: "list", timeout: timeout) { false }
        }])
        let result = await AsyncScenarioRunner(registry: registry).run(scenario([Step(verb: .wait, target: "list", arg: "15")]))
        #expect(result.steps.first?.outcome == .timedOut)
        #expect(result.steps.first?.duration == .seconds(15))
    }
}
