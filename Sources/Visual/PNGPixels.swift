/// Unfiltered PNG rows to 8-bit RGBA pixels, for every colour type and bit depth.
enum PNGPixels {
    /// Writes the pixels of one pass (rows of `pass.width` samples starting at `offset`, each after its filter byte)
    /// into their places in `rgba`.
    static func expand(_ raw: [UInt8], offset: Int, pass: PNGDecoder.Pass, chunks: PNGChunks, into rgba: inout [UInt8]) {
        let header = chunks.header
        let rowBytes = header.rowBytes(pass.width)
        let imageWidth = header.width
        raw.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { out in
                for y in 0..<pass.height {
                    let row = offset + y * (rowBytes + 1) + 1
                    let outY = pass.y0 + y * pass.dy
                    if pass.dx == 1 && header.bitDepth == 8 && (header.colourType == 6 || header.colourType == 2) {
                        fastRow(source, row: row, width: pass.width, rgb: header.colourType == 2,
                                transparent: chunks.transparency, out: out, at: outY * imageWidth * 4)
                        continue
                    }
                    for x in 0..<pass.width {
                        let p = pixel(source, row: row, x: x, chunks: chunks)
                        let o = (outY * imageWidth + pass.x0 + x * pass.dx) * 4
                        (out[o], out[o + 1], out[o + 2], out[o + 3]) = p
                    }
                }
            }
        }
    }

    /// 8-bit RGBA or RGB rows, the registries' formats (browser screenshots, wireframes).
    @inline(__always)
    private static func fastRow(_ s: UnsafeBufferPointer<UInt8>, row: Int, width: Int, rgb: Bool, transparent: [UInt16],
                                out: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        guard rgb else {
            for i in 0..<(width * 4) { out[start + i] = s[row + i] }
            return
        }
        let key = transparent.count == 3 ? transparent.map { UInt8(truncatingIfNeeded: $0) } : nil
        for x in 0..<width {
            let r = s[row + x * 3], g = s[row + x * 3 + 1], b = s[row + x * 3 + 2]
            let o = start + x * 4
            out[o] = r
            out[o + 1] = g
            out[o + 2] = b
            out[o + 3] = key.map { r == $0[0] && g == $0[1] && b == $0[2] ? 0 : 255 } ?? 255
        }
    }

    /// Sample `index` of a row at `depth` bits (1, 2, 4, 8 or 16), as its full-depth value.
    @inline(__always)
    private static func sample(_ s: UnsafeBufferPointer<UInt8>, row: Int, index: Int, depth: Int) -> Int {
        switch depth {
        case 16: return Int(s[row + index * 2]) << 8 | Int(s[row + index * 2 + 1])
        case 8: return Int(s[row + index])
        default:
            let bit = index * depth
            let byte = Int(s[row + bit / 8])
            return (byte >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
        }
    }

    /// A full-depth sample as 8 bits: 16-bit samples keep their high byte; 1/2/4-bit grey is scaled to 0…255.
    @inline(__always)
    private static func eight(_ value: Int, depth: Int) -> UInt8 {
        switch depth {
        case 16: UInt8(value >> 8)
        case 8: UInt8(value)
        default: UInt8(value * 255 / ((1 << depth) - 1))
        }
    }

    private static func pixel(_ s: UnsafeBufferPointer<UInt8>, row: Int, x: Int, chunks: PNGChunks)
        -> (UInt8, UInt8, UInt8, UInt8) {
        let header = chunks.header, depth = header.bitDepth
        switch header.colourType {
        case 0:
            let v = sample(s, row: row, index: x, depth: depth)
            let g = eight(v, depth: depth)
            return (g, g, g, chunks.transparency.first.map { Int($0) == v ? 0 : 255 } ?? 255)
        case 2:
            let r = sample(s, row: row, index: x * 3, depth: depth), g = sample(s, row: row, index: x * 3 + 1, depth: depth)
            let b = sample(s, row: row, index: x * 3 + 2, depth: depth)
            let t = chunks.transparency
            let alpha: UInt8 = t.count == 3 && Int(t[0]) == r && Int(t[1]) == g && Int(t[2]) == b ? 0 : 255
            return (eight(r, depth: depth), eight(g, depth: depth), eight(b, depth: depth), alpha)
        case 3:
            let i = sample(s, row: row, index: x, depth: depth)
            // An index past the palette is an error in the file; it reads as opaque black rather than failing.
            let (r, g, b) = i < chunks.palette.count ? chunks.palette[i] : (0, 0, 0)
            return (r, g, b, i < chunks.paletteAlpha.count ? chunks.paletteAlpha[i] : 255)
        case 4:
            let g = eight(sample(s, row: row, index: x * 2, depth: depth), depth: depth)
            return (g, g, g, eight(sample(s, row: row, index: x * 2 + 1, depth: depth), depth: depth))
        default:
            let c = (0..<4).map { eight(sample(s, row: row, index: x * 4 + $0, depth: depth), depth: depth) }
            return (c[0], c[1], c[2], c[3])
        }
    }
}
