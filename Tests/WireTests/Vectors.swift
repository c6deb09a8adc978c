import FlowCrypto
import Foundation
import Testing
import Wire

/// The named messages behind the hex test vectors in docs/PROTOCOL.md. The doc is the fixture: the tests read
/// the vectors from it, so the doc and the codec cannot drift apart.
enum Vectors {
    static let token = Array("flowmatrix-test-token".utf8)
    static let serverNonce = bytes32 { UInt8($0) }          // 00 01 … 1f
    static let clientNonce = bytes32 { UInt8(0x20 + $0) }   // 20 21 … 3f
    static let scenarioHash = Bytes32(SHA256.hash(Array("{\"steps\":[]}".utf8)))!
    static let artifactHash = Bytes32(SHA256.hash(Array("snapshot".utf8)))!

    static func bytes32(_ f: (Int) -> UInt8) -> Bytes32 { Bytes32((0..<32).map(f))! }

    /// The doc block of `message`: header line with its comment, then 16 bytes a line.
    static func block(_ name: String, _ message: Message) -> String {
        let bytes = message.encoded()
        var lines = ["```vector \(name)",
                     Hex.encode(bytes[0..<5]).chunked2 + "  # length \(bytes.count - 4), type 0x\(Hex.encode([bytes[4]]))"]
        var rest = Array(bytes[5...])
        while !rest.isEmpty {
            lines.append(Hex.encode(rest.prefix(16)).chunked2)
            rest = Array(rest.dropFirst(16))
        }
        return (lines + ["```"]).joined(separator: "\n")
    }

    static var hello: Hello {
        var h = Hello(
            version: 1, name: "worker-1", slots: 4, registries: ["catalog"], labels: ["linux", "gpu"],
            nonce: clientNonce, mac: .zero)
        h.mac = HandshakeMAC.hello(token: token, serverNonce: serverNonce, hello: h)
        return h
    }

    static var welcome: Welcome {
        var w = Welcome(version: 1, heartbeatMillis: 5000, maxFrameSize: 16_777_216, mac: .zero)
        w.mac = HandshakeMAC.welcome(token: token, clientNonce: clientNonce, serverNonce: serverNonce, welcome: w)
        return w
    }

    static var job: JobAssignment {
        JobAssignment(
            job: "j1", attempt: 1, scenarioHash: scenarioHash, registry: "catalog",
            configuration: [ConfigurationPair("locale", "ar"), ConfigurationPair("direction", "rtl")],
            timeoutMillis: 30000, seed: 0x0123_4567_89ab_cdef)
    }

    /// Every vector name and the message it must decode to, in the doc's order.
    static var messages: [(name: String, message: Message)] {
        [
            ("challenge", .challenge(Challenge(nonce: serverNonce, versions: [1]))),
            ("hello", .hello(hello)),
            ("welcome", .welcome(welcome)),
            ("reject", .reject(Reject(.authenticationFailed, "bad token"))),
            ("credit", .credit(16)),
            ("scenario", .scenario(ScenarioBody(hash: scenarioHash, bytes: Array("{\"steps\":[]}".utf8)))),
            ("assign", .assign([job])),
            ("assign-empty", .assign([])),
            ("step", .step(StepEvent(job: "j1", attempt: 1, index: 2, status: .passed, durationMicros: 1500, message: "",
                                     interruptions: ["rate-app"]))),
            ("artifact-chunk", .artifactChunk(ArtifactChunk(
                job: "j1", attempt: 1, step: 2, name: "shot.png.gz", mediaType: "image/png", sha256: artifactHash,
                offset: 0, bytes: [0x1f, 0x8b, 0x08, 0x00], last: true, rawSize: 8))),
            ("artifact-ack", .artifactAck(ArtifactAck(
                job: "j1", attempt: 1, name: "shot.png.gz", sha256: artifactHash, kind: .acceptedThrough, offset: 4))),
            ("artifact-resend", .artifactAck(ArtifactAck(
                job: "j1", attempt: 1, name: "shot.png.gz", sha256: artifactHash, kind: .resendFrom, offset: 65536))),
            ("result-failed", .result(JobResult(
                job: "j1", attempt: 2, status: .failed, failure: Failure(step: 3, message: "élément absent"),
                durationMicros: 250_000))),
            ("result-passed", .result(JobResult(job: "j1", attempt: 1, status: .passed, failure: nil, durationMicros: 300))),
            ("result-steps", .resultSteps(AttemptReport(
                result: JobResult(job: "j1", attempt: 1, status: .failed, failure: Failure(step: 1, message: "no"),
                                  durationMicros: 900),
                steps: [StepReport(index: 0, status: .passed, durationMicros: 400, message: ""),
                        StepReport(index: 1, status: .failed, durationMicros: 500, message: "no", interruptions: ["rate-app"])]))),
            ("revoke", .revoke([AttemptRef(job: "j1", attempt: 1), AttemptRef(job: "j2", attempt: 3)])),
            ("revoked", .revoked([RevokeAnswer(job: "j1", attempt: 1, taken: true),
                                  RevokeAnswer(job: "j2", attempt: 3, taken: false)])),
            ("notice", .notice("hi")),
            ("heartbeat", .heartbeat),
            ("cancel", .cancel(Cancel(job: "j1", attempt: 1, reason: "lease expired"))),
            ("drain", .drain),
            ("bye", .bye),
            ("error", .error(ErrorMessage(WireError(.frameTooLarge, "frame too large")))),
        ]
    }

    /// Malformed inputs: hex and the error code each must produce (names as in the doc).
    static func parseDoc() throws -> (valid: [String: [UInt8]], malformed: [(name: String, code: UInt16, bytes: [UInt8])]) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        var valid: [String: [UInt8]] = [:]
        var malformed: [(String, UInt16, [UInt8])] = []
        var current: (kind: String, name: String, code: UInt16)?
        var hex = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let c = current {
                if line.hasPrefix("```") {
                    let bytes = Hex.decode(hex) ?? []
                    if c.kind == "vector" { valid[c.name] = bytes } else { malformed.append((c.name, c.code, bytes)) }
                    current = nil
                    hex = ""
                } else {
                    hex += line.split(separator: "#").first.map(String.init) ?? ""
                }
            } else if line.hasPrefix("```vector ") {
                current = ("vector", String(line.dropFirst("```vector ".count)), 0)
            } else if line.hasPrefix("```malformed ") {
                let parts = line.dropFirst("```malformed ".count).split(separator: " ")
                current = ("malformed", String(parts[0]), UInt16(parts.last ?? "0") ?? 0)
            }
        }
        return (valid, malformed)
    }
}

@Suite("Test vectors in docs/PROTOCOL.md")
struct VectorTests {
    @Test("every vector decodes to its message and re-encodes byte for byte; every message type has one")
    func vectors() throws {
        let (valid, _) = try Vectors.parseDoc()
        for (name, message) in Vectors.messages {
            // A missing or wrong block is reported with the block the doc should have, ready to paste.
            guard let bytes = valid[name] else {
                Issue.record("docs/PROTOCOL.md has no vector '\(name)'; it should be:\n\(Vectors.block(name, message))")
                continue
            }
            let decoded = try Message.decodeAll(bytes)
            #expect(decoded == [message], "vector \(name)")
            #expect(message.encoded() == bytes, "vector \(name) re-encodes; the doc should have:\n\(Vectors.block(name, message))")
        }
        #expect(Set(valid.keys) == Set(Vectors.messages.map(\.name)))
        #expect(Set(Vectors.messages.map(\.message.type)) == Set(MessageType.allCases))
    }

    @Test("every malformed vector fails with its documented error code")
    func malformedVectors() throws {
        let (_, malformed) = try Vectors.parseDoc()
        #expect(malformed.count >= 8)
        for (name, code, bytes) in malformed {
            do {
                _ = try Message.decodeAll(bytes, maxFrameSize: 1 << 20)
                Issue.record("malformed vector \(name) decoded")
            } catch let error as WireError {
                #expect(error.code.rawValue == code, "malformed vector \(name): \(error)")
            }
        }
    }

    @Test("the handshake vectors are what the state machines produce with the documented token and nonces")
    func handshakeVectors() {
        var server = ServerHandshake(token: Vectors.token, versions: [1], nonce: Vectors.serverNonce)
        var client = ClientHandshake(
            token: Vectors.token, name: "worker-1", slots: 4, registries: ["catalog"], labels: ["linux", "gpu"],
            versions: [1], nonce: Vectors.clientNonce)
        let challenge = server.onStart()
        #expect(challenge == [.send(Vectors.messages[0].message)])
        let hello = client.onMessage(Vectors.messages[0].message)
        #expect(hello == [.send(.hello(Vectors.hello))])
        let welcome = server.onMessage(.hello(Vectors.hello))
        #expect(welcome == [.send(.welcome(Vectors.welcome)), .acceptedPeer(Vectors.hello, version: 1)])
        #expect(client.onMessage(.welcome(Vectors.welcome)) == [.acceptedByServer(Vectors.welcome)])
    }
}

extension String {
    /// "0a0b0c" → "0a 0b 0c".
    var chunked2: String {
        var out = ""
        for (i, c) in enumerated() {
            if i > 0 && i % 2 == 0 { out += " " }
            out.append(c)
        }
        return out
    }
}
