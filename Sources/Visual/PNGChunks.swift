import Gzip

/// A PNG's `IHDR`: size and sample format.
struct PNGHeader {
    var width: Int
    var height: Int
    var bitDepth: Int
    /// 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    var colourType: Int
    var interlaced: Bool

    var channels: Int {
        switch colourType {
        case 0, 3: 1
        case 2: 3
        case 4: 2
        default: 4
        }
    }

    /// Bytes of one unfiltered row of `width` pixels.
    func rowBytes(_ width: Int) -> Int { (width * channels * bitDepth + 7) / 8 }

    /// The filters' byte distance to the pixel on the left (1 for depths under 8).
    var filterStride: Int { max(1, channels * bitDepth / 8) }
}

/// The chunks of a PNG that decoding needs, with their CRCs checked.
struct PNGChunks {
    var header: PNGHeader
    var palette: [(UInt8, UInt8, UInt8)] = []
    /// `tRNS`: palette alphas (colour type 3), or the one transparent grey / RGB value (types 0 and 2) as 16-bit samples.
    var transparency: [UInt16] = []
    var paletteAlpha: [UInt8] = []
    var idat: [UInt8] = []

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func read(_ bytes: [UInt8]) throws -> PNGChunks {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else {
            throw VisualError(code: .notPNG, message: "not a PNG file (it does not start with the PNG signature)")
        }
        var offset = 8
        var chunks: PNGChunks?
        var sawEnd = false
        while offset < bytes.count {
            guard bytes.count - offset >= 12 else { throw corrupt("the file ends inside a chunk header") }
            let length = Int(bigEndian32(bytes, offset))
            let typeBytes = Array(bytes[(offset + 4)..<(offset + 8)])
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw corrupt("the \(type) chunk is truncated") }
            let body = offset + 8..<offset + 8 + length
            let stored = bigEndian32(bytes, body.upperBound)
            let actual = bytes.withUnsafeBytes { GzipCodec.crc32(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<body.upperBound])) }
            guard stored == actual else { throw corrupt("the \(type) chunk's CRC does not match its bytes") }
            offset = body.upperBound + 4
            if type == "IHDR" {
                guard chunks == nil else { throw corrupt("the PNG has two IHDR chunks") }
                chunks = PNGChunks(header: try parseHeader(Array(bytes[body])))
                continue
            }
            guard chunks != nil else { throw corrupt("the first chunk is \(type), not IHDR") }
            switch type {
            case "PLTE":
                guard length % 3 == 0, length > 0, length <= 768 else { throw corrupt("the PLTE chunk has \(length) bytes") }
                chunks?.palette = stride(from: body.lowerBound, to: body.upperBound, by: 3).map {
                    (bytes[$0], bytes[$0 + 1], bytes[$0 + 2])
                }
            case "tRNS":
                chunks?.readTransparency(Array(bytes[body]))
            case "IDAT":
                chunks?.idat.append(contentsOf: bytes[body])
            case "IEND":
                sawEnd = true
            default:
                // An unknown critical chunk (upper-case first letter) changes how pixels read: refuse it.
                if let first = typeBytes.first, first >= 0x41, first <= 0x5A {
                    throw VisualError(code: .unsupportedPNG, message: "the PNG has a critical chunk \(type) this decoder does not know")
                }
            }
            if sawEnd { break }
        }
        guard var result = chunks else { throw corrupt("the PNG has no IHDR chunk") }
        guard sawEnd else { throw corrupt("the PNG is truncated (no IEND chunk)") }
        guard !result.idat.isEmpty else { throw corrupt("the PNG has no IDAT chunk (no pixels)") }
        if result.header.colourType == 3 && result.palette.isEmpty { throw corrupt("a palette PNG without a PLTE chunk") }
        if result.header.colourType == 3 {
            result.paletteAlpha = result.transparency.map { UInt8(truncatingIfNeeded: $0) }
        }
        return result
    }

    private mutating func readTransparency(_ body: [UInt8]) {
        switch header.colourType {
        case 3: transparency = body.map(UInt16.init)
        case 0 where body.count >= 2: transparency = [UInt16(body[0]) << 8 | UInt16(body[1])]
        case 2 where body.count >= 6:
            transparency = (0..<3).map { UInt16(body[$0 * 2]) << 8 | UInt16(body[$0 * 2 + 1]) }
        default: break
        }
    }

    private static func parseHeader(_ b: [UInt8]) throws -> PNGHeader {
        guard b.count == 13 else { throw corrupt("the IHDR chunk has \(b.count) bytes, not 13") }
        let header = PNGHeader(width: Int(bigEndian32(b, 0)), height: Int(bigEndian32(b, 4)), bitDepth: Int(b[8]),
                               colourType: Int(b[9]), interlaced: b[12] == 1)
        guard header.width > 0, header.height > 0, header.width <= Int(Int32.max), header.height <= Int(Int32.max) else {
            throw corrupt("the PNG's size \(header.width) × \(header.height) is not valid")
        }
        let depths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let allowed = depths[header.colourType] else {
            throw corrupt("colour type \(header.colourType) is not a PNG colour type (0, 2, 3, 4, 6)")
        }
        guard allowed.contains(header.bitDepth) else {
            throw corrupt("bit depth \(header.bitDepth) is not allowed with colour type \(header.colourType)")
        }
        guard b[10] == 0, b[11] == 0, b[12] <= 1 else {
            throw VisualError(code: .unsupportedPNG, message: "compression \(b[10]), filter \(b[11]) or interlace "
                              + "\(b[12]) method is not one PNG defines")
        }
        return header
    }

    static func corrupt(_ what: String) -> VisualError { VisualError(code: .corruptPNG, message: "corrupt PNG: \(what)") }

    static func bigEndian32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
