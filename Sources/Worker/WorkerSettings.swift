/// How a worker connects and behaves, with documented defaults.
public struct WorkerSettings: Sendable {
    /// The coordinator's address (`127.0.0.1`, `::1`, or a numeric address).
    public var host: String
    public var port: Int
    /// The shared token (never sent; proves both sides).
    public var token: [UInt8]
    /// The name the worker shows in reports. Default: `<hostname>-<pid>`.
    public var name: String
    /// Jobs run at once. Default: the core count.
    public var slots: Int
    /// Jobs requested beyond `slots`, so the pipeline never runs dry. Default: 4 per slot.
    public var prefetchPerSlot: Int = 4
    /// `key=value` labels matched against a matrix's required labels.
    public var labels: [String]
    /// First reconnect delay, doubled up to `maximumBackoff` (with jitter). Default 100 ms.
    public var initialBackoff: Duration = .milliseconds(100)
    /// Default 5 s.
    public var maximumBackoff: Duration = .seconds(5)
    /// Give up when no coordinator answered for this long; nil: keep trying forever (a fleet worker).
    public var giveUpAfter: Duration?
    /// Exit after the coordinator sends DRAIN (and in-flight jobs finish) instead of reconnecting. Default false.
    public var exitAfterDrain: Bool = false
    /// How often the watchdog cancels jobs past their deadline and streams the steps of jobs still running (a job
    /// that ends between two ticks sends its steps with its result, in one RESULT_STEPS). Default 50 ms.
    public var watchdogInterval: Duration = .milliseconds(50)
    /// Receives a line for each event a person running the worker should see (a rejection it will retry).
    public var onNotice: (@Sendable (String) -> Void)?

    public init(host: String, port: Int, token: [UInt8], name: String, slots: Int, labels: [String] = []) {
        self.host = host
        self.port = port
        self.token = token
        self.name = name
        self.slots = max(1, slots)
        self.labels = labels
    }
}
