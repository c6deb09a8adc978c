import Foundation
import Gzip
import Testing
import Visual
import Wireframe

/// The decoder against fixtures written by an independent encoder (`Fixtures/make_fixtures.py`: every colour type and
/// bit depth, every filter, Adam7, palette and tRNS), and against damaged files.
@Suite("PNG decoding")
struct PNGDecoderTests {
    static let fixtures: [String] = {
        let base = ["gray1", "gray2", "gray4", "gray8", "gray16", "rgb8", "rgb16", "grayalpha8", "grayalpha16", "rgba8",
                    "rgba16", "palette1", "palette2", "palette4", "palette8"]
        return base + base.map { $0 + "-adam7" } + ["rgb8-trns"]
    }()

    static func fixture(_ name: String, _ ext: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
        return [UInt8](try Data(contentsOf: url))
    }

    @Test("every colour type, bit depth, filter and interlacing decodes to the expected RGBA", arguments: fixtures)
    func decodesFixture(_ name: String) throws {
        let image = try PNGDecoder.decode(try Self.fixture(name, "png"))
        #expect(image.width == 13 && image.height == 7)
        let expected = try Self.fixture(name, "rgba")
        #expect(image.rgba.count == expected.count)
        let first = zip(image.rgba, expected).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(first == nil, "\(name): first differing byte at \(first?.offset ?? -1)")
    }

    @Test("an RGBA picture written by the Wireframe module's PNG writer reads back byte for byte")
    func roundTrip() throws {
        var pixels = [UInt8](repeating: 0, count: 31 * 17 * 4)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i * 31 + i / 7) }
        let png = try PNGWriter.encode(rgba: pixels, width: 31, height: 17)
        let image = try PNGDecoder.decode(png)
        #expect(image.width == 31 && image.height == 17 && image.rgba == pixels)
    }

    @Test("a Catalog-style wireframe (cairo, RGB) decodes at its size, opaque")
    func wireframe() throws {
        let document = WireframeDocument(width: 120, height: 80, caption: "cart", boxes: [
            WireframeBox(x: 10, y: 10, width: 60, height: 20, label: "Total", style: .text),
        ])
        let image = try PNGDecoder.decode(try Wireframe.png(document))
        #expect(image.width == 120 && image.height == 80)
        #expect(stride(from: 3, to: image.rgba.count, by: 4).allSatisfy { image.rgba[$0] == 255 })
    }

    @Test("damaged files give clear errors, never a crash")
    func corrupt() throws {
        let good = try Self.fixture("rgb8", "png")
        #expect(throws: VisualError(code: .notPNG, message: "not a PNG file (it does not start with the PNG signature)")) {
            try PNGDecoder.decode(Array("GIF89a".utf8))
        }
        // A flipped bit inside IDAT: the chunk's CRC no longer matches.
        var flipped = good
        let idat = try #require(Self.offset(of: "IDAT", in: good))
        flipped[idat + 10] ^= 0x40
        let crc = try #require(error(decoding: flipped))
        #expect(crc.code == .corruptPNG && crc.message.contains("IDAT chunk's CRC"))
        // Cut short: no IEND, or cut inside a chunk.
        for length in [good.count - 12, good.count - 30, 20, 9] {
            let cut = try #require(error(decoding: Array(good.prefix(length))), "cut at \(length)")
            #expect(cut.code == .corruptPNG, "cut at \(length): \(cut)")
        }
        // A valid CRC over a bad header (colour type 5).
        var header = good
        header[8 + 8 + 9] = 5
        Self.fixCRC(&header, at: 8)
        #expect(error(decoding: header)?.message.contains("colour type 5") == true)
        // Well-formed chunks around pixel data that inflates to less than the header says.
        let short = try Self.png(width: 50, height: 50, raw: [0, 1, 2, 3])
        #expect(error(decoding: short)?.message.contains("truncated") == true)
        // A row with filter type 9.
        let badFilter = try Self.png(width: 2, height: 1, raw: [9, 1, 2, 3, 4, 5, 6])
        #expect(error(decoding: badFilter)?.message.contains("filter type 9") == true)
        // Too many pixels for the limit.
        #expect(error(decoding: good, maxPixels: 50)?.code == .tooLarge)
    }

    private func error(decoding bytes: [UInt8], maxPixels: Int = PNGDecoder.defaultMaxPixels) -> VisualError? {
        do {
            _ = try PNGDecoder.decode(bytes, maxPixels: maxPixels)
            return nil
        } catch {
            return error as? VisualError
        }
    }

    static func offset(of type: String, in bytes: [UInt8]) -> Int? {
        let t = Array(type.utf8)
        return (0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == t }.map { $0 - 4 }
    }

    /// Recomputes the CRC of the chunk starting at `at`.
    static func fixCRC(_ bytes: inout [UInt8], at: Int) {
        let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        let crc = Array(bytes[(at + 4)..<(at + 8 + length)]).withUnsafeBytes { GzipCodec.crc32($0) }
        for i in 0..<4 { bytes[at + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(i))) }
    }

    /// An 8-bit RGB PNG around `raw` (filtered rows as given).
    static func png(width: Int, height: Int, raw: [UInt8]) throws -> [UInt8] {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            var out = withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init)
            let typed = Array(type.utf8) + body
            out += typed
            return out + withUnsafeBytes(of: typed.withUnsafeBytes { GzipCodec.crc32($0) }.bigEndian, Array.init)
        }
        var header = withUnsafeBytes(of: UInt32(width).bigEndian, Array.init)
        header += withUnsafeBytes(of: UInt32(height).bigEndian, Array.init) + [8, 2, 0, 0, 0]
        let idat = try raw.withUnsafeBytes { try GzipCodec.zlib($0) }
        return Wireframe.pngSignature + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", [])
    }
}
