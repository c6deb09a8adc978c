import Foundation
import Synchronization
import UVTransport
import Wire

/// The fleet `bench fleet` simulates: N authenticated connections on one libuv loop, each a two-slot worker that
/// grants credit as the reference worker does (`WorkerSessionCore`: slots + 4 per slot at start, then each finished
/// job's credit, batched by a quarter of that window while jobs are queued), heartbeats through the transport
/// (HEARTBEAT after a silent interval, closed after three silent intervals), answers REVOKE (queued jobs are given
/// back), and "runs" each job by a timer of the plan's length ± 25 %.
final class FakeFleet: Sendable {
    /// What the bench reads while the fleet runs; written on the loop thread.
    struct Counters {
        var connected = 0
        var connectedAll: ContinuousClock.Instant?
        /// Connections that closed after opening, before the bench stopped the fleet.
        var dropped = 0
        var results = 0
        var measuring = false
        /// Refill gaps measured in the window, in seconds.
        var gaps: [Double] = []
        var stopping = false
    }

    let plan: FleetBench.Plan
    let port: Int
    let loop = EventLoop()
    let counters = Mutex(Counters())

    init(plan: FleetBench.Plan, port: Int) {
        self.plan = plan
        self.port = port
    }

    /// Connects the fleet, at most `FleetConnector.concurrentHandshakes` handshakes at a time (as workers started
    /// together would retry a refused connection).
    func start() {
        loop.start()
        let fleet = self
        loop.execute {
            let connector = FleetConnector(fleet: fleet)
            fleet.connectorBox.withLock { $0 = ConnectorBox(connector: LoopBound(connector, loop: fleet.loop)) }
            connector.connectMore()
        }
    }

    private struct ConnectorBox: Sendable { var connector: LoopBound<FleetConnector> }
    private let connectorBox = Mutex<ConnectorBox?>(nil)

    /// When every worker had connected, or nil if they did not within `timeout`.
    func waitUntilConnected(within timeout: Duration) async throws -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let all = counters.withLock({ $0.connectedAll }) { return all }
            // Polled every 10 ms: the instant itself is recorded on the loop thread.
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Starts recording refill gaps; returns the results counted so far.
    func beginWindow() -> Int {
        counters.withLock { c in
            c.measuring = true
            c.gaps.removeAll()
            return c.results
        }
    }

    /// Stops recording; returns the counters.
    func endWindow() -> Counters {
        counters.withLock { c in
            c.measuring = false
            c.stopping = true
            return c
        }
    }

    /// Closes every connection and stops the loop.
    func stop() {
        counters.withLock { $0.stopping = true }
        let box = connectorBox.withLock { $0 }
        if let box {
            loop.execute { box.connector.value.closeAll() }
        }
        loop.shutdown()
    }
}

/// Loop-confined: connects the fleet's workers and keeps them.
final class FleetConnector {
    static let concurrentHandshakes = 128
    unowned let fleet: FakeFleet
    var workers: [FakeWorker] = []
    var next = 0
    var handshaking = 0
    /// Workers whose connection was refused, to connect again.
    var retry: [Int] = []

    init(fleet: FakeFleet) { self.fleet = fleet }

    func connectMore() {
        while handshaking < Self.concurrentHandshakes, next < fleet.plan.workers || !retry.isEmpty {
            let index: Int
            if let again = retry.popLast() {
                index = again
            } else {
                index = next
                next += 1
            }
            connect(index)
        }
    }

    func connect(_ index: Int) {
        let worker = FakeWorker(index: index, connector: self)
        var handshake = ClientHandshakeSettings(token: FleetBench.token, name: "fake-\(index)",
                                                slots: UInt32(fleet.plan.slots), registries: ["test"])
        handshake.deadline = .seconds(30)
        handshaking += 1
        do {
            _ = try TCPClient.connectInLoop(on: fleet.loop, host: "127.0.0.1", port: fleet.port, handshake: handshake,
                                            handler: worker)
            workers.append(worker)
        } catch {
            handshaking -= 1
            fleet.counters.withLock { $0.dropped += 1 }
        }
    }

    func opened(_ worker: FakeWorker) {
        handshaking -= 1
        fleet.counters.withLock { c in
            c.connected += 1
            if c.connected == fleet.plan.workers { c.connectedAll = .now }
        }
        connectMore()
    }

    func closed(_ worker: FakeWorker, opened: Bool) {
        if opened {
            fleet.counters.withLock { c in if !c.stopping { c.dropped += 1 } }
            return
        }
        handshaking -= 1
        guard !fleet.counters.withLock({ $0.stopping }) else { return }
        // Refused or reset before it authenticated: try again after a short pause, as a worker would.
        let index = worker.index
        _ = fleet.loop.scheduleInLoop(after: .milliseconds(100)) { [weak self] in
            self?.retry.append(index)
            self?.connectMore()
        }
    }

    func closeAll() {
        for worker in workers { worker.connection?.close(graceful: false) }
        workers.removeAll()
    }
}

/// One fake worker: loop-confined.
final class FakeWorker: FramedConnectionHandler {
    let index: Int
    unowned let connector: FleetConnector
    var connection: FramedConnection?
    private var opened = false
    private var queue: [JobAssignment] = []
    private var running = 0
    private var heldCredit = 0
    /// When each RESULT that left a slot idle (nothing queued) and is not yet followed by an ASSIGN was sent.
    private var awaitingRefill: [ContinuousClock.Instant] = []
    private var random: UInt64
    /// Slots that have started their first job.
    private var slotsStarted = 0

    init(index: Int, connector: FleetConnector) {
        self.index = index
        self.connector = connector
        random = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    private var plan: FleetBench.Plan { connector.fleet.plan }
    private var window: Int { plan.slots * 5 }
    private var creditBatch: Int { max(1, window / 4) }

    func onOpen(_ connection: FramedConnection) {
        self.connection = connection
        opened = true
        connection.send(.credit(UInt32(window)))
        connector.opened(self)
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        for index in frames.indices {
            guard let message = try? Message(batch: frames, at: index) else { continue }
            switch message {
            case .assign(let jobs):
                refilled(count: jobs.count)
                queue += jobs
            case .revoke(let refs):
                let wanted = Set(refs.map { "\($0.job)#\($0.attempt)" })
                var answers: [RevokeAnswer] = []
                queue.removeAll { job in
                    guard wanted.contains("\(job.job)#\(job.attempt)") else { return false }
                    answers.append(RevokeAnswer(job: job.job, attempt: job.attempt, taken: true))
                    return true
                }
                let taken = Set(answers.map(\.job))
                for ref in refs where !taken.contains(ref.job) {
                    answers.append(RevokeAnswer(job: ref.job, attempt: ref.attempt, taken: false))
                }
                connection.send(.revoked(answers))
                grant(answers.filter(\.taken).count, force: true)
            default:
                break
            }
        }
        startQueued()
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        self.connection = nil
        connector.closed(self, opened: opened)
    }

    private func refilled(count: Int) {
        guard !awaitingRefill.isEmpty else { return }
        let now = ContinuousClock.now
        let served = awaitingRefill.prefix(count)
        connector.fleet.counters.withLock { c in
            guard c.measuring else { return }
            for sent in served {
                let (s, atto) = (now - sent).components
                c.gaps.append(Double(s) + Double(atto) / 1e18)
            }
        }
        awaitingRefill.removeFirst(served.count)
    }

    private func startQueued() {
        while running < plan.slots, !queue.isEmpty {
            let job = queue.removeFirst()
            running += 1
            // 4 s ± 25 %: a uniform draw from a per-worker xorshift generator.
            var factor = 0.75 + nextUniform() / 2
            if slotsStarted < plan.slots {
                // The slot's first job starts the fleet as if it had been running for long: see `stationaryStart`.
                slotsStarted += 1
                factor = Self.stationaryStart(nextUniform(), nextUniform())
            }
            let millis = Int64(plan.jobSeconds * factor * 1000)
            _ = connector.fleet.loop.scheduleInLoop(after: .milliseconds(millis)) { [weak self] in
                self?.finish(job, millis: millis)
            }
        }
    }

    /// A uniform draw in [0, 1) from the worker's xorshift generator.
    private func nextUniform() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random % 10_000) / 10_000
    }

    /// The first job of a slot, as a fraction of the mean job length: the time left of a job caught in progress.
    /// Slots that all start at once finish their jobs in waves one job length apart (4 s ± 25 % spreads a wave by only
    /// ±0.6 s per job), so a window of 10 s counted 2 or 3 waves by its phase and read 93–96 % of the ideal rate with
    /// no slot waiting. A renewal process whose first interval is the residual of a length-biased draw is stationary
    /// from its start: completions arrive at N × slots / length per second in any window. Lengths are uniform on
    /// [a, b] = [0.75, 1.25], length-biased has density ∝ x (inverse CDF √(a² + u·(b² − a²))), and the residual is a
    /// uniform part of it.
    static func stationaryStart(_ u: Double, _ v: Double) -> Double {
        let (a, b) = (0.75, 1.25)
        return (a * a + u * (b * b - a * a)).squareRoot() * v
    }

    private func finish(_ job: JobAssignment, millis: Int64) {
        running -= 1
        guard let connection else { return }
        let result = JobResult(job: job.job, attempt: job.attempt, status: .passed, failure: nil,
                               durationMicros: UInt64(millis) * 1000)
        let step = StepReport(index: 0, status: .passed, durationMicros: UInt64(millis) * 1000, message: "")
        connection.send(.resultSteps(AttemptReport(result: result, steps: [step])))
        connector.fleet.counters.withLock { $0.results += 1 }
        // A slot left with nothing queued waits for its refill: that gap is measured.
        if queue.isEmpty { awaitingRefill.append(.now) }
        grant(1, force: false)
        startQueued()
    }

    /// The reference worker's rule: a finished job's credit is held until a batch is due, or at once when the worker
    /// holds no more than its slots.
    private func grant(_ count: Int, force: Bool) {
        heldCredit += count
        guard heldCredit > 0, force || heldCredit >= creditBatch || queue.count + running <= plan.slots else { return }
        connection?.send(.credit(UInt32(heldCredit)))
        heldCredit = 0
    }
}
