import Gzip

/// Decodes PNG files (ISO/IEC 15948) into 8-bit RGBA: every colour type (grey, RGB, palette, grey + alpha, RGBA), every
/// bit depth (1, 2, 4, 8, 16; 16-bit samples keep their high byte), `tRNS` transparency, Adam7 interlacing. Chunk CRCs
/// are checked; the pixel data is inflated with zlib (the Gzip module) under a cap from the header's size.
///
/// Ancillary chunks other than `tRNS` (gamma, colour profiles, text) are skipped: pictures are compared as stored.
public enum PNGDecoder {
    /// The most pixels a PNG may have (default 64 megapixels: 256 MiB of RGBA).
    public static let defaultMaxPixels = 64 << 20

    /// Decodes a PNG file's bytes.
    /// - Throws: ``VisualError`` `.notPNG`, `.corruptPNG` (naming the chunk or what is wrong), `.unsupportedPNG`,
    ///   `.tooLarge`.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = defaultMaxPixels) throws -> VisualImage {
        let parts = try PNGChunks.read(bytes)
        let header = parts.header
        guard header.width.multipliedReportingOverflow(by: header.height).partialValue <= maxPixels,
              header.width <= maxPixels, header.height <= maxPixels
        else {
            throw VisualError(code: .tooLarge, message: "the PNG is \(header.width) × \(header.height) pixels, over the "
                              + "limit of \(maxPixels)")
        }
        let passes = header.interlaced ? adam7(header) : [Pass(x0: 0, y0: 0, dx: 1, dy: 1, width: header.width,
                                                               height: header.height)]
        let expected = passes.reduce(0) { $0 + ($1.width == 0 ? 0 : $1.height * (1 + header.rowBytes($1.width))) }
        var raw: [UInt8] = []
        raw.reserveCapacity(expected)
        do {
            try parts.idat.withUnsafeBytes { try GzipCodec.inflateZlib($0, maxOutputSize: expected, into: &raw) }
        } catch let error as GzipError {
            throw VisualError(code: .corruptPNG, message: error.code == .tooLarge
                              ? "the PNG's pixel data is longer than its \(header.width) × \(header.height) header says"
                              : "the PNG's pixel data cannot be inflated: \(error.message)")
        }
        guard raw.count == expected else {
            throw VisualError(code: .corruptPNG, message: "the PNG's pixel data is truncated: \(raw.count) of "
                              + "\(expected) bytes")
        }
        var rgba = [UInt8](repeating: 0, count: header.width * header.height * 4)
        var offset = 0
        for pass in passes where pass.width > 0 && pass.height > 0 {
            let length = pass.height * (1 + header.rowBytes(pass.width))
            try unfilter(&raw, offset: offset, rows: pass.height, rowBytes: header.rowBytes(pass.width),
                         bpp: header.filterStride)
            PNGPixels.expand(raw, offset: offset, pass: pass, chunks: parts, into: &rgba)
            offset += length
        }
        return try VisualImage(width: header.width, height: header.height, rgba: rgba)
    }

    /// One sub-image: every `dx`-th column from `x0` of every `dy`-th row from `y0` (one pass for a plain PNG).
    struct Pass {
        var x0: Int, y0: Int, dx: Int, dy: Int, width: Int, height: Int
    }

    /// Adam7's seven passes for the header's size.
    static func adam7(_ header: PNGHeader) -> [Pass] {
        let shape = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return shape.map { x0, y0, dx, dy in
            Pass(x0: x0, y0: y0, dx: dx, dy: dy, width: header.width > x0 ? (header.width - x0 + dx - 1) / dx : 0,
                 height: header.height > y0 ? (header.height - y0 + dy - 1) / dy : 0)
        }
    }

    /// Undoes the scanline filters in place (each row keeps its filter byte, then the reconstructed bytes).
    static func unfilter(_ raw: inout [UInt8], offset: Int, rows: Int, rowBytes: Int, bpp: Int) throws {
        try raw.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in 0..<rows {
                let start = offset + y * (rowBytes + 1)
                let row = base + start + 1
                let previous: UnsafeMutablePointer<UInt8>? = y == 0 ? nil : base + start - rowBytes
                switch buffer[start] {
                case 0:
                    break
                case 1:
                    if rowBytes > bpp { for i in bpp..<rowBytes { row[i] = row[i] &+ row[i - bpp] } }
                case 2:
                    if let up = previous { for i in 0..<rowBytes { row[i] = row[i] &+ up[i] } }
                case 3:
                    for i in 0..<rowBytes {
                        let left = i >= bpp ? Int(row[i - bpp]) : 0
                        let above = previous.map { Int($0[i]) } ?? 0
                        row[i] = row[i] &+ UInt8((left + above) / 2)
                    }
                case 4:
                    for i in 0..<rowBytes {
                        let a = i >= bpp ? Int(row[i - bpp]) : 0
                        let b = previous.map { Int($0[i]) } ?? 0
                        let c = i >= bpp ? (previous.map { Int($0[i - bpp]) } ?? 0) : 0
                        row[i] = row[i] &+ UInt8(paeth(a, b, c))
                    }
                default:
                    throw VisualError(code: .corruptPNG, message: "row \(y + 1) of the PNG has filter type "
                                      + "\(buffer[start]), which PNG does not define (0–4)")
                }
            }
        }
    }

    @inline(__always)
    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }
}
