import Artifacts
import CodecFixtures
import FlowCrypto
import Foundation
import Testing

@Suite("Blob store")
struct BlobStoreTests {
    @Test("a blob read back whole whatever its size: tiny, one buffer, and several 256 KiB reads (the buffer follows the file)")
    func readsEverySize() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent(".flowmatrix"))
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 3_000, 262_143, 262_144, 700_001] {
            // Random bytes do not compress: the blob on disk is about as large as `size`.
            let raw = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let artifact = try ArtifactSink().attach(name: "r.bin", mediaType: "application/octet-stream", bytes: raw, step: 0)
            try store.store(artifact)
            #expect(try store.compressedBytes(artifact.sha256, maxSize: 1 << 21) == artifact.compressed, "size \(size)")
            #expect(try store.read(artifact.sha256, maxSize: size) == raw, "size \(size)")
        }
    }

    @Test("appendCompressed adds a blob after what the array holds; a blob too large or corrupt on disk leaves it as it was")
    func appendCompressed() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent(".flowmatrix"))
        let artifact = try ArtifactSink().attach(name: "s.json", mediaType: "application/json", bytes: Sample.json(50_000), step: 0)
        try store.store(artifact)
        var out: [UInt8] = [1, 2, 3]
        #expect(try store.appendCompressed(artifact.sha256, maxSize: 1 << 20, to: &out) == artifact.compressedSize)
        #expect(out == [1, 2, 3] + artifact.compressed)
        #expect(throws: ArtifactError.self) {
            try store.appendCompressed(artifact.sha256, maxSize: artifact.compressedSize - 1, to: &out)
        }
        #expect(out == [1, 2, 3] + artifact.compressed, "a blob over maxSize adds nothing")
        let path = try store.url(for: artifact.sha256).path
        var corrupt = artifact.compressed
        corrupt[corrupt.count / 2] ^= 0xFF
        try Data(corrupt).write(to: URL(fileURLWithPath: path))
        do {
            try store.appendCompressed(artifact.sha256, maxSize: 1 << 20, to: &out)
            Issue.record("a corrupt blob was read")
        } catch let error as ArtifactError {
            #expect(error.code == .hashMismatch)
        }
        #expect(out == [1, 2, 3] + artifact.compressed, "a corrupt blob adds nothing")
    }

    @Test("a BlobReader reads blobs by name in open shard folders, with the size it is told, none, or a wrong one")
    func blobReader() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent(".flowmatrix"))
        let reader = BlobReader(store: store)
        var generator = SystemRandomNumberGenerator()
        for size in [0, 10, 5_000, 1_500_000] {
            let raw = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let artifact = try ArtifactSink().attach(name: "r.bin", mediaType: "application/octet-stream", bytes: raw, step: 0)
            try store.store(artifact)
            // The right size, none, one too small and one too large: the hash decides, the bytes are the blob's.
            for told in [artifact.compressedSize, nil, artifact.compressedSize / 2, artifact.compressedSize + 100] {
                var out: [UInt8] = [9]
                #expect(try reader.appendCompressed(artifact.sha256, size: told, maxSize: 1 << 22, to: &out)
                        == artifact.compressedSize, "size \(size), told \(told.map(String.init) ?? "nothing")")
                #expect(out == [9] + artifact.compressed)
            }
        }
        var out: [UInt8] = []
        for missing in [String(repeating: "ab", count: 32), String(repeating: "0", count: 64)] {
            do {
                try reader.appendCompressed(missing, size: 10, maxSize: 1 << 20, to: &out)
                Issue.record("a missing blob was read")
            } catch let error as ArtifactError {
                #expect(error.code == .notFound)
            }
        }
        #expect(throws: ArtifactError.self) { try reader.appendCompressed("not-a-hash", size: nil, maxSize: 10, to: &out) }
        #expect(out.isEmpty)
    }

    @Test("sink → compressed artifact → streamed in chunks → blob → extracted bytes identical")
    func endToEnd() async throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent("workspace/.flowmatrix"))
        let raw = Sample.json(400_000)
        let artifact = try ArtifactSink().attach(
            name: "surface.json", mediaType: "application/json", bytes: raw, step: 3)

        let writer = try store.makeWriter()
        for chunk in artifact.chunks(size: 16 * 1024) { try writer.append(chunk) }
        #expect(!store.contains(artifact.sha256))
        let commit = try writer.commit(expectedSHA256: artifact.sha256)
        #expect(commit == BlobCommit(sha256: artifact.sha256, size: artifact.compressedSize, stored: true))
        #expect(store.contains(artifact.sha256))

        let blob = try store.url(for: artifact.sha256)
        #expect(blob.path.hasSuffix("/blobs/\(artifact.sha256.prefix(2))/\(artifact.sha256).gz"))
        #expect(try await runTool(gzipTool, ["-t", blob.path]).status == 0)
        #expect(try store.read(artifact.sha256, maxSize: raw.count) == raw)
        #expect(try store.compressedBytes(artifact.sha256, maxSize: 1 << 20) == artifact.compressed)
        var streamed: [UInt8] = []
        #expect(try store.read(artifact.sha256, maxSize: raw.count) { streamed.append(contentsOf: $0) } == raw.count)
        #expect(streamed == raw)
        let out = dir.file("extracted.json")
        #expect(try store.extract(artifact.sha256, to: out, maxSize: raw.count) == raw.count)
        #expect(try [UInt8](Data(contentsOf: out)) == raw)
        // The read cap holds.
        let capped = #expect(throws: ArtifactError.self) { try store.read(artifact.sha256, maxSize: 1000) }
        #expect(capped?.code == .tooLarge)
    }

    @Test("a corrupted chunk is rejected at commit and nothing becomes visible")
    func hashMismatch() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let artifact = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.json(100_000), step: 0)
        let writer = try store.makeWriter()
        for (i, chunk) in artifact.chunks(size: 4096).enumerated() {
            var bytes = Array(chunk)
            if i == 3 { bytes[10] ^= 0x01 }
            try writer.append(bytes)
        }
        let error = #expect(throws: ArtifactError.self) { try writer.commit(expectedSHA256: artifact.sha256) }
        #expect(error?.code == .hashMismatch)
        #expect(!store.contains(artifact.sha256))
        #expect(try store.allHashes().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path + "/blobs/tmp").isEmpty)
        #expect(throws: ArtifactError.self) { try writer.append([1]) }
    }

    @Test("identical content is stored once")
    func dedup() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let sink = ArtifactSink()
        let a = try sink.attach(name: "a", mediaType: "x", bytes: Sample.json(30_000), step: 0)
        let b = try sink.attach(name: "b", mediaType: "x", bytes: Sample.json(30_000), step: 1)
        #expect(a.sha256 == b.sha256)
        #expect(try store.store(a).stored)
        #expect(try store.store(b).stored == false)
        #expect(try store.allHashes() == [a.sha256])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path + "/blobs/tmp").isEmpty)
    }

    @Test("writers racing to commit the same blob all succeed and leave one file")
    func concurrentSameHash() async throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let artifact = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.noise(300_000), step: 0)
        let commits = try await withThrowingTaskGroup(of: BlobCommit.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let writer = try store.makeWriter()
                    for chunk in artifact.chunks(size: 8192) { try writer.append(chunk) }
                    return try writer.commit(expectedSHA256: artifact.sha256)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(commits.count == 8)
        #expect(commits.allSatisfy { $0.sha256 == artifact.sha256 })
        #expect(try store.allHashes() == [artifact.sha256])
        #expect(try store.compressedBytes(artifact.sha256, maxSize: 1 << 20) == artifact.compressed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path + "/blobs/tmp").isEmpty)
    }

    @Test("gc removes only unreferenced blobs and stale temporaries, and respects the grace period")
    func gc() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let sink = ArtifactSink()
        let kept = try sink.attach(name: "kept", mediaType: "x", bytes: Sample.json(5_000), step: 0)
        let dropped = try sink.attach(name: "dropped", mediaType: "x", bytes: Sample.noise(5_000), step: 0)
        try store.store(kept)
        try store.store(dropped)
        let abandoned = try store.makeWriter()
        try abandoned.append(Sample.noise(100_000))  // larger than the gather buffer: on disk

        // Within the grace period nothing goes.
        let early = try store.gc(referenced: [kept.sha256], now: Date(), gracePeriod: 3600)
        #expect(early == GCResult(removed: 0, bytesFreed: 0, temporariesRemoved: 0, kept: 2))

        let later = Date().addingTimeInterval(7200)
        let result = try store.gc(referenced: [kept.sha256.uppercased()], now: later, gracePeriod: 3600)
        #expect(result.removed == 1)
        #expect(result.temporariesRemoved == 1)
        #expect(result.kept == 1)
        #expect(result.bytesFreed == dropped.compressedSize + 100_000)
        #expect(try store.allHashes() == [kept.sha256])
        #expect(try store.read(kept.sha256, maxSize: 1 << 20).count == 5_000)
        abandoned.abort()
    }

    @Test("storing content that is already there refreshes it, so a gc in its grace period keeps it")
    func dedupRefreshesTime() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let artifact = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.json(5_000), step: 0)
        try store.store(artifact)
        // Age the blob by a day.
        let path = try store.url(for: artifact.sha256).path
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-86_400)], ofItemAtPath: path)
        #expect(try store.gc(referenced: [], now: Date(), gracePeriod: 3600).kept == 0)  // old and unreferenced: gone
        try store.store(artifact)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-86_400)], ofItemAtPath: path)
        #expect(try store.store(artifact).stored == false)  // the dedup hit refreshes the time
        #expect(try store.gc(referenced: [], now: Date(), gracePeriod: 3600).kept == 1)
        #expect(store.contains(artifact.sha256))
    }

    @Test("a 64 MiB artifact streamed in 64 KiB chunks never has more than one chunk buffered")
    func boundedMemory() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url, syncToDisk: false)
        let chunkSize = 64 * 1024
        var chunk = Sample.noise(chunkSize)
        var senderHash = SHA256()
        let writer = try store.makeWriter()
        for i in 0..<1024 {  // generated on the fly: the test holds one chunk too
            chunk[0] = UInt8(truncatingIfNeeded: i)
            chunk[1] = UInt8(truncatingIfNeeded: i >> 8)
            senderHash.update(chunk)
            try writer.append(chunk)
        }
        #expect(writer.bytesAppended == 64 << 20)
        #expect(writer.bufferedHighWaterMark <= chunkSize)
        let commit = try writer.commit(expectedSHA256: Hex.encode(senderHash.finalize()))
        #expect(commit.size == 64 << 20)
        let attributes = try FileManager.default.attributesOfItem(atPath: try store.url(for: commit.sha256).path)
        #expect((attributes[.size] as? NSNumber)?.intValue == 64 << 20)
    }

    @Test("small chunks are gathered and the high-water mark stays within the gather buffer")
    func smallChunks() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url, syncToDisk: false)
        let artifact = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.noise(500_000), step: 0)
        let writer = try store.makeWriter()
        for chunk in artifact.chunks(size: 1000) { try writer.append(chunk) }
        #expect(writer.bufferedHighWaterMark <= BlobWriter.bufferCapacity)
        #expect(try writer.commit(expectedSHA256: artifact.sha256).stored)
        #expect(try store.compressedBytes(artifact.sha256, maxSize: 1 << 20) == artifact.compressed)
    }

    @Test("bad hashes, missing blobs and blobs corrupted on disk give clear errors")
    func errors() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        #expect(throws: ArtifactError.self) { try store.url(for: "../../etc/passwd") }
        let writer = try store.makeWriter()
        let invalid = #expect(throws: ArtifactError.self) { try writer.commit(expectedSHA256: "abc") }
        #expect(invalid?.code == .invalidHash)
        let missing = #expect(throws: ArtifactError.self) {
            try store.read(String(repeating: "0", count: 64), maxSize: 10)
        }
        #expect(missing?.code == .notFound)

        let artifact = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.json(10_000), step: 0)
        try store.store(artifact)
        let path = try store.url(for: artifact.sha256)
        var bytes = try [UInt8](Data(contentsOf: path))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: path)
        let corrupt = #expect(throws: ArtifactError.self) {
            try store.compressedBytes(artifact.sha256, maxSize: 1 << 20)
        }
        #expect(corrupt?.code == .hashMismatch)
        #expect(corrupt?.message.contains("hashes to \(Hex.encode(SHA256.hash(bytes)))") == true)
    }

    @Test("Hex.matches says whether text is the lowercase hex of bytes, as comparing with Hex.encode does")
    func hexMatches() {
        let samples: [[UInt8]] = [[], [0], [0xff], [0x0a, 0xb0], Array(0...255), SHA256.hash(Array("blob".utf8))]
        for bytes in samples {
            let hex = Hex.encode(bytes)
            #expect(Hex.matches(bytes, lowercaseHex: hex))
            #expect(!Hex.matches(bytes, lowercaseHex: hex.uppercased()) || hex == hex.uppercased())
            #expect(!Hex.matches(bytes, lowercaseHex: hex + "0"))
            #expect(!Hex.matches(bytes, lowercaseHex: String(hex.dropLast(2))) || bytes.isEmpty)
            for flip in [0, hex.count / 2, hex.count - 1] where !hex.isEmpty {
                var changed = Array(hex.utf8)
                changed[flip] = changed[flip] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
                #expect(!Hex.matches(bytes, lowercaseHex: String(decoding: changed, as: UTF8.self)))
            }
        }
    }

    @Test("codec failures reach callers as ArtifactError with the codec's code: not gzip, truncated, bad level")
    func codecErrorsAreArtifactErrors() throws {
        let dir = try TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        func commit(_ bytes: [UInt8]) throws -> String {
            let writer = try store.makeWriter()
            try writer.append(bytes)
            return try writer.commit(expectedSHA256: SHA256.hexHash(bytes)).sha256
        }
        // Stored with its true hash, so only the decompressor can object.
        let notGzip = try commit(Array("hello, this is not gzip at all".utf8))
        let garbled = #expect(throws: ArtifactError.self) { try store.read(notGzip, maxSize: 1 << 20) }
        #expect(garbled?.code == .zlib(-3))
        #expect(garbled?.message.contains("not gzip data") == true)
        let out = dir.file("out")
        let extracted = #expect(throws: ArtifactError.self) { try store.extract(notGzip, to: out, maxSize: 1 << 20) }
        #expect(extracted?.code == .zlib(-3))
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let whole = try ArtifactSink().attach(name: "a", mediaType: "x", bytes: Sample.json(10_000), step: 0)
        let truncated = try commit(Array(whole.compressed.dropLast(6)))
        let cut = #expect(throws: ArtifactError.self) { try store.read(truncated, maxSize: 1 << 20) { _ in } }
        #expect(cut?.code == .truncated)

        let sinkLevel = #expect(throws: ArtifactError.self) {
            try ArtifactSink().attach(name: "b", mediaType: "x", bytes: [1, 2, 3], step: 0, level: 12)
        }
        #expect(sinkLevel?.code == .misuse)
        let streamLevel = #expect(throws: ArtifactError.self) { try ArtifactStream(name: "log", level: 12) }
        #expect(streamLevel?.code == .misuse)
    }
}
