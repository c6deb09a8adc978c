import FlowVocabulary

extension Message {
    /// The payload bytes (without the frame header).
    public func encodePayload() -> [UInt8] {
        var w = ByteWriter()
        encode(into: &w)
        return w.bytes
    }

    /// The message as a frame.
    public func frame() -> Frame { Frame(type: type.rawValue, payload: encodePayload()) }

    /// The message's complete wire bytes (header + payload).
    public func encoded() -> [UInt8] { frame().encoded() }

    /// Appends the message's complete frame (header + payload) to `bytes`, with no intermediate array: the way to
    /// coalesce many small messages into one buffer for one write.
    public func encodeFrame(into bytes: inout [UInt8]) {
        var w = ByteWriter(appendingTo: &bytes)
        let start = w.bytes.count
        for _ in 0..<4 { w.writeU8(0) }  // the length, patched once the payload is written
        w.writeU8(type.rawValue)
        encode(into: &w)
        // The length counts the type byte and the payload.
        w.patchU32BE(UInt32(truncatingIfNeeded: w.bytes.count - start - 4), at: start)
        w.takeBytes(into: &bytes)
    }

    func encode(into w: inout ByteWriter) {
        switch self {
        case .challenge(let m):
            w.writeFixed32(m.nonce)
            w.writeList(m.versions) { $0.writeVarint(UInt64($1)) }
        case .hello(let m):
            m.encodeSigned(into: &w)
            w.writeFixed32(m.mac)
        case .welcome(let m):
            m.encodeSigned(into: &w)
            w.writeFixed32(m.mac)
        case .reject(let m):
            w.writeVarint(UInt64(m.code))
            w.writeString(m.reason)
        case .credit(let n):
            w.writeVarint(UInt64(n))
        case .scenario(let m):
            w.writeFixed32(m.hash)
            w.writeBytes(m.bytes)
        case .assign(let jobs):
            w.writeList(jobs) { w, job in
                w.writeString(job.job)
                w.writeVarint(UInt64(job.attempt))
                w.writeFixed32(job.scenarioHash)
                w.writeString(job.registry)
                w.writeList(job.configuration) { w, pair in
                    w.writeString(pair.key)
                    w.writeString(pair.value)
                }
                w.writeVarint(job.timeoutMillis)
                w.writeU64BE(job.seed)
                w.writeU8(job.keep.wireValue)
            }
        case .step(let m):
            w.writeString(m.job)
            w.writeVarint(UInt64(m.attempt))
            StepReport(m).encode(into: &w)
        case .artifactChunk(let m):
            w.writeString(m.job)
            w.writeVarint(UInt64(m.attempt))
            w.writeVarint(UInt64(m.step))
            w.writeString(m.name)
            w.writeString(m.mediaType)
            w.writeFixed32(m.sha256)
            w.writeVarint(m.offset)
            w.writeBytes(m.bytes)
            w.writeBool(m.last)
            w.writeVarint(m.rawSize)
        case .artifactAck(let m):
            w.writeString(m.job)
            w.writeVarint(UInt64(m.attempt))
            w.writeString(m.name)
            w.writeFixed32(m.sha256)
            w.writeU8(m.kind.rawValue)
            w.writeVarint(m.offset)
        case .result(let m):
            m.encode(into: &w)
        case .resultSteps(let m):
            m.result.encode(into: &w)
            w.writeList(m.steps) { w, step in step.encode(into: &w) }
        case .heartbeat, .drain, .bye:
            break
        case .cancel(let m):
            w.writeString(m.job)
            w.writeVarint(UInt64(m.attempt))
            w.writeString(m.reason)
        case .revoke(let refs):
            w.writeList(refs) { w, ref in
                w.writeString(ref.job)
                w.writeVarint(UInt64(ref.attempt))
            }
        case .revoked(let answers):
            w.writeList(answers) { w, answer in
                w.writeString(answer.job)
                w.writeVarint(UInt64(answer.attempt))
                w.writeBool(answer.taken)
            }
        case .notice(let text):
            w.writeString(text)
        case .error(let m):
            w.writeVarint(UInt64(m.code))
            w.writeString(m.message)
        }
    }

    /// Decodes a frame.
    /// - Throws: `WireError` (`.unknownType`, `.truncated`, `.badVarint`, `.invalidUTF8`, `.trailingBytes`,
    ///   `.countExceedsFrame`, `.invalidValue`).
    public init(frame: Frame) throws {
        self = try frame.payload.withUnsafeBytes { try Message(type: frame.type, payload: $0) }
    }

    /// Decodes a frame given as its type byte and payload bytes (e.g. `FrameBatch.withPayload(at:_:)`).
    public init(type rawType: UInt8, payload: UnsafeRawBufferPointer) throws {
        guard let type = MessageType(rawValue: rawType) else {
            throw WireError(.unknownType, "unknown frame type 0x\(String(rawType, radix: 16))")
        }
        var r = ByteReader(payload)
        self = try Message.decode(type, &r)
        try r.expectEnd("\(type)")
    }

    /// Decodes the frame at `position` of a batch without materialising a `Frame`.
    public init(batch: FrameBatch, at position: Int) throws {
        self = try batch.withPayload(at: position) { try Message(type: batch.type(at: position), payload: $0) }
    }

    static func decode(_ type: MessageType, _ r: inout ByteReader) throws -> Message {
        switch type {
        case .challenge:
            let nonce = try r.readFixed32("challenge.nonce")
            let versions = try r.readList("challenge.versions") { try $0.readVarint(UInt16.self, "challenge.version") }
            return .challenge(Challenge(nonce: nonce, versions: versions))
        case .hello:
            let version = try r.readVarint(UInt16.self, "hello.version")
            let name = try r.readString("hello.name")
            let slots = try r.readVarint(UInt32.self, "hello.slots")
            let registries = try r.readList("hello.registries") { try $0.readString("hello.registry") }
            let labels = try r.readList("hello.labels") { try $0.readString("hello.label") }
            let nonce = try r.readFixed32("hello.nonce")
            let mac = try r.readFixed32("hello.mac")
            return .hello(Hello(
                version: version, name: name, slots: slots, registries: registries, labels: labels, nonce: nonce,
                mac: mac))
        case .welcome:
            let version = try r.readVarint(UInt16.self, "welcome.version")
            let heartbeat = try r.readVarint(UInt32.self, "welcome.heartbeatMillis")
            let maxFrame = try r.readVarint(UInt32.self, "welcome.maxFrameSize")
            let mac = try r.readFixed32("welcome.mac")
            return .welcome(Welcome(version: version, heartbeatMillis: heartbeat, maxFrameSize: maxFrame, mac: mac))
        case .reject:
            let code = try r.readVarint(UInt16.self, "reject.code")
            let reason = try r.readString("reject.reason")
            return .reject(Reject(code: code, reason: reason))
        case .credit:
            return .credit(try r.readVarint(UInt32.self, "credit.n"))
        case .scenario:
            let hash = try r.readFixed32("scenario.hash")
            let bytes = try r.readBytes("scenario.bytes")
            return .scenario(ScenarioBody(hash: hash, bytes: bytes))
        case .assign:
            // A job takes at least 1+1+32+1+1+1+8+1 bytes.
            let jobs = try r.readList("assign.jobs", minimumElementSize: 46) { r in
                let job = try r.readString("assign.job")
                let attempt = try r.readVarint(UInt32.self, "assign.attempt")
                let hash = try r.readFixed32("assign.scenarioHash")
                let registry = try r.readString("assign.registry")
                let configuration = try r.readList("assign.configuration", minimumElementSize: 2) { r in
                    ConfigurationPair(try r.readString("assign.key"), try r.readString("assign.value"))
                }
                let timeout = try r.readVarint("assign.timeoutMillis")
                let seed = try r.readU64BE("assign.seed")
                let rawKeep = try r.readU8("assign.keep")
                guard let keep = KeepPolicy(wireValue: rawKeep) else {
                    throw WireError(.invalidValue, "assign.keep \(rawKeep) is not 0 (failures), 1 (all) or 2 (none)")
                }
                return JobAssignment(
                    job: job, attempt: attempt, scenarioHash: hash, registry: registry, configuration: configuration,
                    timeoutMillis: timeout, seed: seed, keep: keep)
            }
            return .assign(jobs)
        case .step:
            let job = try r.readString("step.job")
            let attempt = try r.readVarint(UInt32.self, "step.attempt")
            return .step(StepEvent(job: job, attempt: attempt, try StepReport(decoding: &r, .step)))
        case .artifactChunk:
            let job = try r.readString("chunk.job")
            let attempt = try r.readVarint(UInt32.self, "chunk.attempt")
            let step = try r.readVarint(UInt32.self, "chunk.step")
            let name = try r.readString("chunk.name")
            let media = try r.readString("chunk.mediaType")
            let sha = try r.readFixed32("chunk.sha256")
            let offset = try r.readVarint("chunk.offset")
            let bytes = try r.readBytes("chunk.bytes")
            let last = try r.readBool("chunk.last")
            let rawSize = try r.readVarint("chunk.rawSize")
            return .artifactChunk(ArtifactChunk(
                job: job, attempt: attempt, step: step, name: name, mediaType: media, sha256: sha, offset: offset,
                bytes: bytes, last: last, rawSize: rawSize))
        case .artifactAck:
            let job = try r.readString("ack.job")
            let attempt = try r.readVarint(UInt32.self, "ack.attempt")
            let name = try r.readString("ack.name")
            let sha = try r.readFixed32("ack.sha256")
            let rawKind = try r.readU8("ack.kind")
            guard let kind = ArtifactAck.Kind(rawValue: rawKind) else {
                throw WireError(.invalidValue, "ack.kind \(rawKind) is not 0 (accepted-through) or 1 (resend-from)")
            }
            let offset = try r.readVarint("ack.offset")
            return .artifactAck(ArtifactAck(
                job: job, attempt: attempt, name: name, sha256: sha, kind: kind, offset: offset))
        case .result:
            return .result(try JobResult(decoding: &r))
        case .resultSteps:
            let result = try JobResult(decoding: &r)
            // A step takes at least index, status, duration, message length and interruption count: 5 bytes.
            let steps = try r.readList("result.steps", minimumElementSize: 5) { r in
                try StepReport(decoding: &r, .resultStep)
            }
            return .resultSteps(AttemptReport(result: result, steps: steps))
        case .heartbeat:
            return .heartbeat
        case .cancel:
            let job = try r.readString("cancel.job")
            let attempt = try r.readVarint(UInt32.self, "cancel.attempt")
            let reason = try r.readString("cancel.reason")
            return .cancel(Cancel(job: job, attempt: attempt, reason: reason))
        case .revoke:
            // A job id takes at least its length byte, an attempt one byte: 2 bytes.
            return .revoke(try r.readList("revoke.attempts", minimumElementSize: 2) { r in
                AttemptRef(job: try r.readString("revoke.job"), attempt: try r.readVarint(UInt32.self, "revoke.attempt"))
            })
        case .revoked:
            return .revoked(try r.readList("revoked.attempts", minimumElementSize: 3) { r in
                RevokeAnswer(job: try r.readString("revoked.job"), attempt: try r.readVarint(UInt32.self, "revoked.attempt"),
                             taken: try r.readBool("revoked.taken"))
            })
        case .notice:
            return .notice(try r.readString("notice.text"))
        case .drain:
            return .drain
        case .bye:
            return .bye
        case .error:
            let code = try r.readVarint(UInt16.self, "error.code")
            let message = try r.readString("error.message")
            return .error(ErrorMessage(code: code, message: message))
        }
    }

    fileprivate static func readStatus(_ r: inout ByteReader, _ field: StaticString) throws -> StepOutcome {
        let raw = try r.readU8(field)
        guard let status = StepOutcome(wireValue: raw) else {
            throw WireError(.invalidValue, "\(field) \(raw) is not a known status (0–6)")
        }
        return status
    }

    /// Decodes every message in a byte string of whole frames (tests, tools, the fuzz target).
    public static func decodeAll(_ bytes: [UInt8], maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) throws -> [Message] {
        var buffer = ByteBuffer(bytes)
        var decoder = FrameDecoder(maxFrameSize: maxFrameSize)
        var messages: [Message] = []
        while let frame = try decoder.decode(buffer: &buffer) { messages.append(try Message(frame: frame)) }
        if buffer.readableBytes > 0 || decoder.state != .header {
            throw WireError(.truncated, "input ends inside a frame (\(buffer.readableBytes) bytes left)")
        }
        return messages
    }
}

extension StepReport {
    /// The names a step's fields have in decoding errors, by the message that carries them.
    fileprivate struct FieldNames {
        var index, status, durationMicros, message, interruptions, interruption: StaticString
        static let step = FieldNames(
            index: "step.index", status: "step.status", durationMicros: "step.durationMicros", message: "step.message",
            interruptions: "step.interruptions", interruption: "step.interruption")
        static let resultStep = FieldNames(
            index: "result.step.index", status: "result.step.status", durationMicros: "result.step.durationMicros",
            message: "result.step.message", interruptions: "result.step.interruptions",
            interruption: "result.step.interruption")
    }

    /// A step's fields, which STEP has after its job and attempt and RESULT_STEPS has for each step.
    fileprivate func encode(into w: inout ByteWriter) {
        w.writeVarint(UInt64(index))
        w.writeU8(status.wireValue)
        w.writeVarint(durationMicros)
        w.writeString(message)
        w.writeList(interruptions) { $0.writeString($1) }
    }

    fileprivate init(decoding r: inout ByteReader, _ names: FieldNames) throws {
        let index = try r.readVarint(UInt32.self, names.index)
        let status = try Message.readStatus(&r, names.status)
        let duration = try r.readVarint(names.durationMicros)
        let message = try r.readString(names.message)
        let interruptions = try r.readList(names.interruptions, minimumElementSize: 1) { r in
            try r.readString(names.interruption)
        }
        self.init(index: index, status: status, durationMicros: duration, message: message, interruptions: interruptions)
    }
}

extension JobResult {
    /// RESULT's fields, which RESULT_STEPS starts with.
    fileprivate func encode(into w: inout ByteWriter) {
        w.writeString(job)
        w.writeVarint(UInt64(attempt))
        w.writeU8(status.wireValue)
        if let failure {
            w.writeU8(1)
            w.writeVarint(UInt64(failure.step))
            w.writeString(failure.message)
        } else {
            w.writeU8(0)
        }
        w.writeVarint(durationMicros)
    }

    fileprivate init(decoding r: inout ByteReader) throws {
        let job = try r.readString("result.job")
        let attempt = try r.readVarint(UInt32.self, "result.attempt")
        let status = try Message.readStatus(&r, "result.status")
        var failure: Failure?
        if try r.readBool("result.hasFailure") {
            let step = try r.readVarint(UInt32.self, "result.failureStep")
            let message = try r.readString("result.failureMessage")
            failure = Failure(step: step, message: message)
        }
        let duration = try r.readVarint("result.durationMicros")
        self.init(job: job, attempt: attempt, status: status, failure: failure, durationMicros: duration)
    }
}

extension Hello {
    /// The fields the HELLO MAC covers: everything before `mac`, as encoded on the wire.
    func encodeSigned(into w: inout ByteWriter) {
        w.writeVarint(UInt64(version))
        w.writeString(name)
        w.writeVarint(UInt64(slots))
        w.writeList(registries) { $0.writeString($1) }
        w.writeList(labels) { $0.writeString($1) }
        w.writeFixed32(nonce)
    }
}

extension Welcome {
    /// The fields the WELCOME MAC covers: everything before `mac`, as encoded on the wire.
    func encodeSigned(into w: inout ByteWriter) {
        w.writeVarint(UInt64(version))
        w.writeVarint(UInt64(heartbeatMillis))
        w.writeVarint(UInt64(maxFrameSize))
    }
}

// The shared vocabulary's byte values (docs/PROTOCOL.md, "Messages"): append-only, and known to this codec only.

extension StepOutcome {
    /// The `status` byte of STEP, RESULT and RESULT_STEPS.
    var wireValue: UInt8 {
        switch self {
        case .passed: 0
        case .failed: 1
        case .skipped: 2
        case .errored: 3
        case .cancelled: 4
        case .timedOut: 5
        case .lost: 6
        }
    }

    /// The outcome a `status` byte stands for; nil for a byte no version defines.
    init?(wireValue: UInt8) {
        switch wireValue {
        case 0: self = .passed
        case 1: self = .failed
        case 2: self = .skipped
        case 3: self = .errored
        case 4: self = .cancelled
        case 5: self = .timedOut
        case 6: self = .lost
        default: return nil
        }
    }
}

extension KeepPolicy {
    /// The `keep` byte of an ASSIGN job.
    var wireValue: UInt8 {
        switch self {
        case .failures: 0
        case .all: 1
        case .none: 2
        }
    }

    /// The policy a `keep` byte stands for; nil for a byte no version defines.
    init?(wireValue: UInt8) {
        switch wireValue {
        case 0: self = .failures
        case 1: self = .all
        case 2: self = .none
        default: return nil
        }
    }
}
