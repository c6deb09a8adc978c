import Testing
import Wire

@Suite("Message codec")
struct CodecTests {
    static let edgeCases: [Message] = [
        .credit(0), .credit(UInt32.max),
        .step(StepEvent(job: "", attempt: 0, index: UInt32.max, status: .timedOut, durationMicros: UInt64.max, message: "")),
        .assign([Vectors.job, Vectors.job, JobAssignment(
            job: "日本語-ジョブ", attempt: UInt32.max, scenarioHash: .zero, registry: "", configuration: [],
            timeoutMillis: 0, seed: UInt64.max)]),
        .artifactChunk(ArtifactChunk(
            job: "j", attempt: 1, step: 0, name: "n", mediaType: "", sha256: .zero, offset: UInt64.max,
            bytes: [UInt8](repeating: 0xab, count: 70_000), last: false)),
        .reject(Reject(code: 999, reason: "a code from a newer peer")),
        .error(ErrorMessage(code: UInt16.max, message: "🙂")),
        .challenge(Challenge(nonce: .zero, versions: [])),
        .challenge(Challenge(nonce: .zero, versions: [1, 2, UInt16.max])),
    ]

    @Test("every message round-trips", arguments: Vectors.messages.map(\.message) + edgeCases)
    func roundTrip(_ message: Message) throws {
        let frame = message.frame()
        #expect(frame.type == message.type.rawValue)
        #expect(try Message(frame: frame) == message)
        #expect(try Message.decodeAll(message.encoded()) == [message])
    }

    @Test("frames encoded one after another into one buffer decode back to the messages, in order")
    func encodeFrameAppends() throws {
        let messages = Vectors.messages.map(\.message) + Self.edgeCases
        var bytes: [UInt8] = [0xee]
        for m in messages { m.encodeFrame(into: &bytes) }
        #expect(bytes.first == 0xee)
        #expect(Array(bytes.dropFirst()) == messages.flatMap { $0.encoded() })
        #expect(try Message.decodeAll(Array(bytes.dropFirst())) == messages)
    }

    @Test("varints use the shortest form and cover 64 bits")
    func varints() throws {
        for value: UInt64 in [0, 1, 127, 128, 255, 300, 16383, 16384, 1 << 32, UInt64.max - 1, UInt64.max] {
            var w = ByteWriter()
            w.writeVarint(value)
            let expectedLength = value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
            #expect(w.bytes.count == expectedLength)
            let decoded = try w.bytes.withUnsafeBytes { raw -> UInt64 in
                var r = ByteReader(raw)
                defer { #expect(r.remaining == 0) }
                return try r.readVarint("v")
            }
            #expect(decoded == value)
        }
    }

    @Test("every prefix of every vector fails with a typed error, never a crash")
    func truncations() throws {
        for (name, message) in Vectors.messages {
            let bytes = message.encoded()
            #expect(try Message.decodeAll([]) == [], "an empty stream holds no frames")
            for cut in 1..<bytes.count {
                #expect(throws: WireError.self, "\(name) cut at \(cut)") { try Message.decodeAll(Array(bytes[..<cut])) }
            }
            // A frame whose length is shortened by one loses its last payload byte: truncated or invalid.
            if bytes.count > 5 {
                var payload = Array(bytes[5...])
                payload.removeLast()
                let frame = Frame(type: bytes[4], payload: payload)
                #expect(throws: WireError.self, "\(name) short payload") { try Message(frame: frame) }
            }
        }
    }

    @Test("a byte appended to any non-empty payload is trailing-bytes")
    func trailing() throws {
        for (name, message) in Vectors.messages {
            var frame = message.frame()
            frame.payload.append(0)
            do {
                _ = try Message(frame: frame)
                Issue.record("\(name) with a trailing byte decoded")
            } catch let error as WireError {
                #expect(error.code == .trailingBytes, "\(name): \(error)")
            }
        }
    }

    @Test("unknown types and out-of-range enum values are typed errors")
    func invalidValues() {
        for type in UInt8.min...UInt8.max where MessageType(rawValue: type) == nil {
            #expect(throws: WireError(.unknownType, "unknown frame type 0x\(String(type, radix: 16))")) {
                try Message(frame: Frame(type: type))
            }
        }
        var ack = Message.artifactAck(ArtifactAck(
            job: "j", attempt: 1, name: "n", sha256: .zero, kind: .resendFrom, offset: 0)).encodePayload()
        ack[ack.count - 2] = 7
        #expect(throws: WireError.self) { try Message(frame: Frame(type: MessageType.artifactAck.rawValue, payload: ack)) }
        var result = Message.result(JobResult(job: "j", attempt: 1, status: .passed, failure: nil, durationMicros: 0))
            .encodePayload()
        result[result.count - 2] = 2  // hasFailure = 2
        #expect(throws: WireError.self) { try Message(frame: Frame(type: MessageType.result.rawValue, payload: result)) }
    }

    @Test("Bytes32 refuses other lengths and round-trips hex")
    func bytes32() {
        #expect(Bytes32([1, 2, 3]) == nil)
        #expect(Bytes32(hex: "zz") == nil)
        #expect(Bytes32(hex: Vectors.scenarioHash.hex) == Vectors.scenarioHash)
    }
}

@Suite("Frame decoder")
struct FrameDecoderTests {
    /// All vectors back to back, as one stream.
    static var stream: [UInt8] { Vectors.messages.flatMap { $0.message.encoded() } }
    static var expected: [Frame] { Vectors.messages.map { $0.message.frame() } }

    func decode(chunks: [[UInt8]], batched: Bool = false, viaBatch: Bool = false) throws -> [Frame] {
        var buffer = ByteBuffer()
        var decoder = FrameDecoder()
        var frames: [Frame] = []
        for chunk in chunks {
            buffer.append(contentsOf: chunk)
            if viaBatch {
                let (batch, error) = decoder.decodeBatch(buffer: &buffer)
                if let error { throw error }
                // Both views of a batch agree: materialised frames, and type + payload without a Frame.
                for i in batch.indices {
                    #expect(batch.type(at: i) == batch[i].type)
                    #expect(batch.withPayload(at: i) { Array($0) } == Array(batch[i].payload))
                    #expect(try Message(batch: batch, at: i) == Message(frame: batch[i]))
                }
                frames += batch
            } else if batched {
                try decoder.decodeAll(buffer: &buffer, into: &frames)
            } else {
                while let frame = try decoder.decode(buffer: &buffer) { frames.append(frame) }
            }
            buffer.discardReadBytes()
        }
        #expect(buffer.readableBytes == 0)
        #expect(decoder.state == .header)
        return frames
    }

    @Test("byte by byte, all at once, frame by frame and in odd chunks give identical frames")
    func feedingShapes() throws {
        let stream = Self.stream
        let allAtOnce = try decode(chunks: [stream])
        let byteByByte = try decode(chunks: stream.map { [$0] })
        let frameByFrame = try decode(chunks: Vectors.messages.map { $0.message.encoded() })
        var odd: [[UInt8]] = []
        var i = 0
        var size = 1
        while i < stream.count {
            odd.append(Array(stream[i..<min(stream.count, i + size)]))
            i += size
            size = size % 13 + 2
        }
        let oddChunks = try decode(chunks: odd)
        #expect(allAtOnce == Self.expected)
        #expect(byteByByte == Self.expected)
        #expect(frameByFrame == Self.expected)
        #expect(oddChunks == Self.expected)
        // The batch decoder (the transport's path) agrees in every shape.
        #expect(try decode(chunks: [stream], batched: true) == Self.expected)
        #expect(try decode(chunks: stream.map { [$0] }, batched: true) == Self.expected)
        #expect(try decode(chunks: odd, batched: true) == Self.expected)
        // And the zero-refcount batch view the transport delivers.
        #expect(try decode(chunks: [stream], viaBatch: true) == Self.expected)
        #expect(try decode(chunks: stream.map { [$0] }, viaBatch: true) == Self.expected)
        #expect(try decode(chunks: odd, viaBatch: true) == Self.expected)
        #expect(FrameBatch(Self.expected).suffix(from: 3).count == Self.expected.count - 3)
    }

    @Test("the batch decoder reports the same errors as the single-step one, after the good frames")
    func batchErrors() throws {
        let good = Message.credit(1).encoded()
        for bad: [UInt8] in [[0, 0, 0, 0], [0xff, 0, 0, 0, 1], [0, 0x20, 0, 0]] {
            var buffer = ByteBuffer(good + good + bad)
            var decoder = FrameDecoder(maxFrameSize: 1 << 20)
            var frames: [Frame] = []
            #expect(throws: WireError.self) { try decoder.decodeAll(buffer: &buffer, into: &frames) }
            #expect(frames.count == 2)
            var buffer2 = ByteBuffer(good + good + bad)
            var decoder2 = FrameDecoder(maxFrameSize: 1 << 20)
            let (batch, error) = decoder2.decodeBatch(buffer: &buffer2)
            #expect(batch.count == 2)
            #expect(error != nil)
        }
    }

    @Test("the decoder's state is explicit: header, then body, then header again")
    func states() throws {
        var decoder = FrameDecoder()
        var buffer = ByteBuffer([0, 0, 0, 3, 0x10])
        #expect(try decoder.decode(buffer: &buffer) == nil)
        #expect(decoder.state == .body(type: 0x10, payloadLength: 2))
        buffer.append(contentsOf: [0x01, 0x02])
        #expect(try decoder.decode(buffer: &buffer) == Frame(type: 0x10, payload: [1, 2]))
        #expect(decoder.state == .header)
    }

    @Test("an oversized length fails on its four bytes, before any body arrives, and the decoder stays failed")
    func oversized() throws {
        var decoder = FrameDecoder(maxFrameSize: 1024)
        var buffer = ByteBuffer([0, 0, 4, 1])
        #expect(throws: WireError.self) { try decoder.decode(buffer: &buffer) }
        guard case .failed(let error) = decoder.state else {
            Issue.record("decoder not failed")
            return
        }
        #expect(error.code == .frameTooLarge)
        buffer.append(contentsOf: [0x10])
        #expect(throws: error) { try decoder.decode(buffer: &buffer) }
    }

    @Test("a frame exactly at the maximum is accepted; one byte more is not")
    func boundary() throws {
        var decoder = FrameDecoder(maxFrameSize: 100)
        var buffer = ByteBuffer(Frame(type: 0x11, payload: [UInt8](repeating: 1, count: 99)).encoded())
        #expect(try decoder.decode(buffer: &buffer)?.payload.count == 99)
        var buffer2 = ByteBuffer(Frame(type: 0x11, payload: [UInt8](repeating: 1, count: 100)).encoded())
        #expect(throws: WireError.self) { try decoder.decode(buffer: &buffer2) }
    }

    @Test("a zero length is empty-frame")
    func empty() {
        var decoder = FrameDecoder()
        var buffer = ByteBuffer([0, 0, 0, 0])
        #expect(throws: WireError(.emptyFrame, "frame length 0: a frame holds at least its type byte")) {
            try decoder.decode(buffer: &buffer)
        }
    }
}
