import CodecFixtures
import Foundation
import Gzip
import Testing

@Suite("Gzip codec")
struct GzipCodecTests {
    static let inputs: [(String, [UInt8])] = [
        ("empty", []),
        ("one byte", [0x41]),
        ("json", Sample.json(300_000)),
        ("noise", Sample.noise(200_000)),
    ]

    @Test(
        "compressed output is a valid .gz: gzip -t passes and gzip -dc gives the input back", arguments: [0, 1, 6, 9])
    func realGzipAccepts(level: Int) async throws {
        let dir = try TemporaryDirectory()
        for (name, input) in Self.inputs {
            let file = dir.file("\(name)-\(level).gz")
            try Data(try GzipCodec.compress(input, level: level)).write(to: file)
            #expect(try await runTool(gzipTool, ["-t", file.path]).status == 0, "gzip -t \(name)")
            let decoded = try await runTool(gzipTool, ["-dc", file.path])
            #expect(decoded.status == 0)
            #expect(decoded.output == input, "gzip -dc \(name)")
        }
    }

    @Test("the decompressor reads what the gzip tool writes, including concatenated members")
    func readsGzipTool() async throws {
        let dir = try TemporaryDirectory()
        let input = Sample.json(100_000)
        let file = dir.file("input.json")
        try Data(input).write(to: file)
        let compressed = try await runTool(gzipTool, ["-1", "-c", file.path])
        #expect(compressed.status == 0)
        #expect(try GzipCodec.decompress(compressed.output, maxOutputSize: 1 << 20) == input)
        let twice = compressed.output + (try GzipCodec.compress(input))
        #expect(try GzipCodec.decompress(twice, maxOutputSize: 1 << 20) == input + input)
    }

    @Test(
        "streaming gives the same bytes fed byte by byte, in chunks, or all at once", arguments: [1, 7, 4096, Int.max])
    func streaming(chunk: Int) throws {
        let input = Sample.json(20_000) + Sample.noise(5_000)
        let compressor = try GzipCompressor(outputBufferSize: 1024)
        var compressed: [UInt8] = []
        try input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = offset + min(chunk, raw.count - offset)
                try compressor.compress(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) {
                    compressed.append(contentsOf: $0)
                }
                offset = end
            }
        }
        try compressor.finish { compressed.append(contentsOf: $0) }
        #expect(compressor.totalIn == input.count)
        #expect(compressor.totalOut == compressed.count)

        let decompressor = try GzipDecompressor(maxOutputSize: input.count, outputBufferSize: 1024)
        var output: [UInt8] = []
        try compressed.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = offset + min(chunk, raw.count - offset)
                try decompressor.decompress(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) {
                    output.append(contentsOf: $0)
                }
                offset = end
            }
        }
        try decompressor.finish()
        #expect(output == input)
    }

    @Test("a zip bomb stops at the output cap instead of exhausting memory")
    func zipBomb() throws {
        let compressor = try GzipCompressor(level: 9)
        var bomb: [UInt8] = []
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<256 {  // 256 MiB of zeros → about 250 KiB
            try zeros.withUnsafeBytes { try compressor.compress($0) { bomb.append(contentsOf: $0) } }
        }
        try compressor.finish { bomb.append(contentsOf: $0) }
        #expect(bomb.count < 1 << 20)
        let decompressor = try GzipDecompressor(maxOutputSize: 4 << 20)
        var produced = 0
        let error = #expect(throws: GzipError.self) {
            try bomb.withUnsafeBytes { try decompressor.decompress($0) { produced += $0.count } }
        }
        #expect(error?.code == .tooLarge)
        #expect(produced <= 4 << 20)
    }

    @Test("corrupt, truncated and non-gzip data give clear errors")
    func badInput() throws {
        let good = try GzipCodec.compress(Sample.json(10_000))
        var corrupt = good
        corrupt[good.count / 2] ^= 0xff
        #expect(throws: GzipError.self) { try GzipCodec.decompress(corrupt, maxOutputSize: 1 << 20) }

        let truncated = Array(good.prefix(good.count - 6))
        let cut = #expect(throws: GzipError.self) { try GzipCodec.decompress(truncated, maxOutputSize: 1 << 20) }
        #expect(cut?.code == .truncated)

        let notGzip = #expect(throws: GzipError.self) {
            try GzipCodec.decompress(Array("hello world".utf8), maxOutputSize: 100)
        }
        #expect(notGzip?.code == .zlib(-3))
        #expect(notGzip?.message.contains("not gzip data") == true)

        #expect(throws: GzipError.self) { try GzipCodec.decompress([], maxOutputSize: 100) }
        let level = #expect(throws: GzipError.self) { try GzipCompressor(level: 12) }
        #expect(level?.code == .misuse)
    }
}
