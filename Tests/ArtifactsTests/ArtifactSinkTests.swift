import Artifacts
import CodecFixtures
import FlowCrypto
import Foundation
import Gzip
import Testing

@Suite("Artifact sink")
struct ArtifactSinkTests {
    @Test("attach compresses and hashes the compressed bytes, keyed by step")
    func attachBytes() throws {
        let sink = ArtifactSink()
        let json = Sample.json(50_000)
        sink.beginStep(2)
        let artifact = try sink.attach(name: "surface.json", mediaType: "application/json", bytes: json)
        #expect(artifact.stepIndex == 2)
        #expect(artifact.rawSize == json.count)
        #expect(artifact.compressedSize < json.count / 3)
        #expect(artifact.sha256 == SHA256.hexHash(artifact.compressed))
        #expect(try GzipCodec.decompress(artifact.compressed, maxOutputSize: json.count) == json)
        try sink.attach(name: "log.txt", mediaType: "text/plain", bytes: Array("ok".utf8), step: 0)
        #expect(sink.artifacts(step: 2) == [artifact])
        #expect(sink.takeAll().map(\.name) == ["log.txt", "surface.json"])
        #expect(sink.takeAll().isEmpty)
    }

    @Test("a file is streamed through the compressor")
    func attachFile() throws {
        let dir = try TemporaryDirectory()
        let bytes = Sample.noise(700_000) + Sample.json(300_000)
        let file = dir.file("wireframe.png")
        try Data(bytes).write(to: file)
        let sink = ArtifactSink()
        let artifact = try sink.attach(file: file, mediaType: "image/png", step: 1)
        #expect(artifact.name == "wireframe.png")
        #expect(artifact.rawSize == bytes.count)
        #expect(try GzipCodec.decompress(artifact.compressed, maxOutputSize: bytes.count) == bytes)
        let missing = #expect(throws: ArtifactError.self) {
            try sink.attach(file: dir.file("missing.png"), mediaType: "image/png")
        }
        #expect(missing?.code == .system(ENOENT))
    }

    @Test("a second artifact with the same name in a step is refused; the first stays")
    func duplicateName() throws {
        let sink = ArtifactSink()
        try sink.attach(name: "a", mediaType: "text/plain", bytes: [1], step: 0)
        let error = #expect(throws: ArtifactError.self) {
            try sink.attach(name: "a", mediaType: "text/plain", bytes: [2], step: 0)
        }
        #expect(error?.code == .duplicateName)
        try sink.attach(name: "a", mediaType: "text/plain", bytes: [3], step: 1)
        #expect(sink.takeArtifacts(step: 0).map(\.rawSize) == [1])
        #expect(sink.takeArtifacts(step: 0).isEmpty)
    }

    @Test("too large an artifact is refused")
    func tooLarge() throws {
        let sink = ArtifactSink(maxRawSize: 10)
        let error = #expect(throws: ArtifactError.self) {
            try sink.attach(name: "big", mediaType: "x", bytes: [UInt8](repeating: 0, count: 11))
        }
        #expect(error?.code == .tooLarge)
    }

    @Test("deep code attaches through ArtifactSink.current, child tasks included")
    func taskLocal() async throws {
        #expect(ArtifactSink.current == nil)
        let sink = ArtifactSink()
        try await ArtifactSink.$current.withValue(sink) {
            sink.beginStep(4)
            try ArtifactSink.current?.attach(name: "direct", mediaType: "text/plain", bytes: Array("x".utf8))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        try ArtifactSink.current?.attach(
                            name: "child-\(i)", mediaType: "text/plain", bytes: Sample.json(1000 + i))
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(ArtifactSink.current == nil)
        #expect(Set(sink.artifacts(step: 4).map(\.name)) == Set(["direct"] + (0..<8).map { "child-\($0)" }))
    }
}
