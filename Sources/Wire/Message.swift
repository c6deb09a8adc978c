import FlowVocabulary

/// The frame type byte of each message (docs/PROTOCOL.md, "Messages").
public enum MessageType: UInt8, Sendable, Hashable, CaseIterable {
    case challenge = 0x01
    case hello = 0x02
    case welcome = 0x03
    case reject = 0x04
    case credit = 0x10
    case scenario = 0x11
    case assign = 0x12
    case step = 0x13
    case artifactChunk = 0x14
    case artifactAck = 0x15
    case result = 0x16
    /// Version 2 on.
    case resultSteps = 0x17
    /// Version 3 on.
    case revoke = 0x18
    /// Version 3 on.
    case revoked = 0x19
    /// Version 3 on.
    case notice = 0x24
    case heartbeat = 0x20
    case cancel = 0x21
    case drain = 0x22
    case bye = 0x23
    case error = 0x7f

    /// The first protocol version that defines this type (see `ProtocolVersion`): a peer of an older version
    /// sending it sent an unknown type.
    public var introducedIn: UInt16 {
        switch self {
        case .resultSteps: 2
        case .revoke, .revoked, .notice: 3
        default: 1
        }
    }
}

extension StepOutcome {
    /// The first protocol version whose `status` byte holds this outcome: `lost` (6) is version 3.
    public var introducedIn: UInt16 { self == .lost ? 3 : 1 }
}

/// An ordered list of configuration (key, value) pairs, e.g. `locale=ar`, `direction=rtl`.
public struct ConfigurationPair: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// Server → client, first frame: a fresh nonce and the versions the server speaks.
public struct Challenge: Sendable, Hashable {
    public var nonce: Bytes32
    public var versions: [UInt16]
    public init(nonce: Bytes32, versions: [UInt16]) {
        self.nonce = nonce
        self.versions = versions
    }
}

/// Client → server: who the worker is, the chosen version, its nonce and the MAC that proves the token.
public struct Hello: Sendable, Hashable {
    public var version: UInt16
    public var name: String
    public var slots: UInt32
    public var registries: [String]
    public var labels: [String]
    public var nonce: Bytes32
    public var mac: Bytes32
    public init(
        version: UInt16, name: String, slots: UInt32, registries: [String], labels: [String], nonce: Bytes32,
        mac: Bytes32
    ) {
        self.version = version
        self.name = name
        self.slots = slots
        self.registries = registries
        self.labels = labels
        self.nonce = nonce
        self.mac = mac
    }
}

/// Server → client: accepted; the server's proof of the token and the session parameters.
public struct Welcome: Sendable, Hashable {
    public var version: UInt16
    /// Each side sends HEARTBEAT after this long without sending anything (0 = no heartbeats).
    public var heartbeatMillis: UInt32
    /// The largest frame (length field) the server accepts.
    public var maxFrameSize: UInt32
    public var mac: Bytes32
    public init(version: UInt16, heartbeatMillis: UInt32, maxFrameSize: UInt32, mac: Bytes32) {
        self.version = version
        self.heartbeatMillis = heartbeatMillis
        self.maxFrameSize = maxFrameSize
        self.mac = mac
    }
}

/// Server → client: refused, with a code and a reason a person can read; the server then closes.
public struct Reject: Sendable, Hashable {
    public enum Code: UInt16, Sendable, Hashable, CaseIterable {
        case authenticationFailed = 1
        case unsupportedVersion = 2
        case malformedHello = 3
        case notAccepting = 4
    }
    /// The raw code (unknown codes from newer peers are kept).
    public var code: UInt16
    public var reason: String
    public init(code: UInt16, reason: String) {
        self.code = code
        self.reason = reason
    }
    public init(_ code: Code, _ reason: String) { self.init(code: code.rawValue, reason: reason) }
    public var knownCode: Code? { Code(rawValue: code) }
}

/// A scenario body, sent once per connection before the first ASSIGN that names its hash.
public struct ScenarioBody: Sendable, Hashable {
    public var hash: Bytes32
    public var bytes: [UInt8]
    public init(hash: Bytes32, bytes: [UInt8]) {
        self.hash = hash
        self.bytes = bytes
    }
}

/// One job of an ASSIGN batch: a lease on one attempt.
public struct JobAssignment: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var scenarioHash: Bytes32
    public var registry: String
    public var configuration: [ConfigurationPair]
    public var timeoutMillis: UInt64
    public var seed: UInt64
    /// Which attempts' artifacts the worker sends (the matrix's `keep`).
    public var keep: KeepPolicy
    public init(
        job: String, attempt: UInt32, scenarioHash: Bytes32, registry: String, configuration: [ConfigurationPair],
        timeoutMillis: UInt64, seed: UInt64, keep: KeepPolicy = .failures
    ) {
        self.keep = keep
        self.job = job
        self.attempt = attempt
        self.scenarioHash = scenarioHash
        self.registry = registry
        self.configuration = configuration
        self.timeoutMillis = timeoutMillis
        self.seed = seed
    }
}

/// Worker → coordinator: one step finished.
public struct StepEvent: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var index: UInt32
    public var status: StepOutcome
    public var durationMicros: UInt64
    public var message: String
    /// Names of interruptions the step handled while it waited (e.g. `rate-app-prompt`).
    public var interruptions: [String]
    public init(
        job: String, attempt: UInt32, index: UInt32, status: StepOutcome, durationMicros: UInt64, message: String,
        interruptions: [String] = []
    ) {
        self.interruptions = interruptions
        self.job = job
        self.attempt = attempt
        self.index = index
        self.status = status
        self.durationMicros = durationMicros
        self.message = message
    }
}

/// A step of a RESULT_STEPS message: a STEP event without the job and attempt, which it shares with the result.
public struct StepReport: Sendable, Hashable {
    public var index: UInt32
    public var status: StepOutcome
    public var durationMicros: UInt64
    public var message: String
    public var interruptions: [String]
    public init(index: UInt32, status: StepOutcome, durationMicros: UInt64, message: String, interruptions: [String] = []) {
        self.index = index
        self.status = status
        self.durationMicros = durationMicros
        self.message = message
        self.interruptions = interruptions
    }

    /// The report of `event`'s step.
    public init(_ event: StepEvent) {
        self.init(index: event.index, status: event.status, durationMicros: event.durationMicros, message: event.message,
                  interruptions: event.interruptions)
    }
}

extension StepEvent {
    /// The STEP event a step of `job`'s `attempt` stands for.
    public init(job: String, attempt: UInt32, _ report: StepReport) {
        self.init(job: job, attempt: attempt, index: report.index, status: report.status,
                  durationMicros: report.durationMicros, message: report.message, interruptions: report.interruptions)
    }
}

/// Worker → coordinator, version 2 on: the steps of an attempt not yet sent as STEP, then its result, in one
/// frame. It means exactly what a STEP per step (in order) followed by the RESULT means; a short job is one frame
/// instead of one per step plus one.
public struct AttemptReport: Sendable, Hashable {
    public var result: JobResult
    public var steps: [StepReport]
    public init(result: JobResult, steps: [StepReport]) {
        self.result = result
        self.steps = steps
    }

    /// The STEP events its steps stand for, in order.
    public var stepEvents: [StepEvent] { steps.map { StepEvent(job: result.job, attempt: result.attempt, $0) } }
}

/// Worker → coordinator: a piece of a (compressed) artifact. `sha256` is the digest of the whole artifact.
public struct ArtifactChunk: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var step: UInt32
    public var name: String
    public var mediaType: String
    public var sha256: Bytes32
    public var offset: UInt64
    public var bytes: [UInt8]
    public var last: Bool
    /// The artifact's size before compression (for reports); 0 when unknown.
    public var rawSize: UInt64
    public init(
        job: String, attempt: UInt32, step: UInt32, name: String, mediaType: String, sha256: Bytes32, offset: UInt64,
        bytes: [UInt8], last: Bool, rawSize: UInt64 = 0
    ) {
        self.rawSize = rawSize
        self.job = job
        self.attempt = attempt
        self.step = step
        self.name = name
        self.mediaType = mediaType
        self.sha256 = sha256
        self.offset = offset
        self.bytes = bytes
        self.last = last
    }
}

/// Coordinator → worker: chunk flow control for one artifact.
public struct ArtifactAck: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// Every byte before `offset` is stored; the window moves forward.
        case acceptedThrough = 0
        /// Bytes from `offset` on were lost or did not verify: send them again.
        case resendFrom = 1
    }
    public var job: String
    public var attempt: UInt32
    public var name: String
    public var sha256: Bytes32
    public var kind: Kind
    public var offset: UInt64
    public init(job: String, attempt: UInt32, name: String, sha256: Bytes32, kind: Kind, offset: UInt64) {
        self.job = job
        self.attempt = attempt
        self.name = name
        self.sha256 = sha256
        self.kind = kind
        self.offset = offset
    }
}

/// The step that failed a job, and why.
public struct Failure: Sendable, Hashable {
    public var step: UInt32
    public var message: String
    public init(step: UInt32, message: String) {
        self.step = step
        self.message = message
    }
}

/// Worker → coordinator: one attempt finished.
public struct JobResult: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var status: StepOutcome
    public var failure: Failure?
    public var durationMicros: UInt64
    public init(job: String, attempt: UInt32, status: StepOutcome, failure: Failure?, durationMicros: UInt64) {
        self.job = job
        self.attempt = attempt
        self.status = status
        self.failure = failure
        self.durationMicros = durationMicros
    }
}

/// Coordinator → worker: stop an attempt.
public struct Cancel: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var reason: String
    public init(job: String, attempt: UInt32, reason: String) {
        self.job = job
        self.attempt = attempt
        self.reason = reason
    }
}

/// Either side: a protocol error; the sender closes after it.
/// One attempt of one job, as REVOKE names it.
public struct AttemptRef: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public init(job: String, attempt: UInt32) {
        self.job = job
        self.attempt = attempt
    }
}

/// Worker → coordinator (version 3), one per attempt a REVOKE named: `taken` when the attempt had not started and
/// never will on this worker (the coordinator may give it to another), false when it had already started (its
/// RESULT follows as usual).
public struct RevokeAnswer: Sendable, Hashable {
    public var job: String
    public var attempt: UInt32
    public var taken: Bool
    public init(job: String, attempt: UInt32, taken: Bool) {
        self.job = job
        self.attempt = attempt
        self.taken = taken
    }
}

public struct ErrorMessage: Sendable, Hashable {
    /// The raw code (see `WireError.Code`; unknown codes from newer peers are kept).
    public var code: UInt16
    public var message: String
    public init(code: UInt16, message: String) {
        self.code = code
        self.message = message
    }
    public init(_ error: WireError) { self.init(code: error.code.rawValue, message: error.message) }
    public var knownCode: WireError.Code? { WireError.Code(rawValue: code) }
}

/// Every protocol message (docs/PROTOCOL.md). `frame()` encodes; `Message(frame:)` decodes.
public enum Message: Sendable, Hashable {
    case challenge(Challenge)
    case hello(Hello)
    case welcome(Welcome)
    case reject(Reject)
    case credit(UInt32)
    case scenario(ScenarioBody)
    case assign([JobAssignment])
    case step(StepEvent)
    case artifactChunk(ArtifactChunk)
    case artifactAck(ArtifactAck)
    case result(JobResult)
    case resultSteps(AttemptReport)
    case heartbeat
    case cancel(Cancel)
    case revoke([AttemptRef])
    case revoked([RevokeAnswer])
    /// Coordinator → worker (version 3): a sentence for the person running the worker (it gets no jobs, and why).
    case notice(String)
    case drain
    case bye
    case error(ErrorMessage)

    public var type: MessageType {
        switch self {
        case .challenge: .challenge
        case .hello: .hello
        case .welcome: .welcome
        case .reject: .reject
        case .credit: .credit
        case .scenario: .scenario
        case .assign: .assign
        case .step: .step
        case .artifactChunk: .artifactChunk
        case .artifactAck: .artifactAck
        case .result: .result
        case .resultSteps: .resultSteps
        case .heartbeat: .heartbeat
        case .cancel: .cancel
        case .revoke: .revoke
        case .revoked: .revoked
        case .notice: .notice
        case .drain: .drain
        case .bye: .bye
        case .error: .error
        }
    }
}

extension Message {
    /// The first protocol version in which this message exists with the values it carries: its type's version, or a
    /// later one when a `status` in it is of a later version (docs/PROTOCOL.md, "Versioning rules"). A peer of an
    /// older version sending it sent something its version does not have.
    public var introducedIn: UInt16 {
        switch self {
        case .step(let step): max(type.introducedIn, step.status.introducedIn)
        case .result(let result): max(type.introducedIn, result.status.introducedIn)
        case .resultSteps(let report):
            report.steps.reduce(max(type.introducedIn, report.result.status.introducedIn)) { max($0, $1.status.introducedIn) }
        default: type.introducedIn
        }
    }
}
