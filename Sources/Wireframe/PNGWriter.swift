import CCairo
import Gzip

/// Writes a cairo image surface as an 8-bit RGB PNG (and RGBA pixels as an RGBA PNG, for the Visual module) through zlib at the fastest level, with the `Sub` filter.
///
/// cairo's own PNG writer goes through libpng at its default compression with adaptive filtering, which cost
/// ~5 ms per wireframe — more than running a 10-step headless job. Wireframes are opaque flat-colour drawings:
/// `Sub` turns flat runs into zeros and level-1 deflate squeezes them, several times faster for similar sizes.
public enum PNGWriter {
    /// - Throws: `WireframeError` when the surface is not an ARGB32/RGB24 image, or zlib fails.
    static func encode(_ surface: OpaquePointer) throws -> [UInt8] {
        let format = cairo_image_surface_get_format(surface)
        guard format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24,
              let data = cairo_image_surface_get_data(surface)
        else { throw WireframeError(message: "the wireframe surface is not a 32-bit image") }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let rowBytes = 1 + width * 3
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        raw.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = (data + y * stride).withMemoryRebound(to: UInt32.self, capacity: width) { $0 }
                let base = y * rowBytes
                out[base] = 1  // filter: Sub
                var previous: (UInt8, UInt8, UInt8) = (0, 0, 0)
                for x in 0..<width {
                    // cairo stores native-endian 0xAARRGGBB, premultiplied; wireframes are opaque.
                    let pixel = row[x]
                    let r = UInt8(truncatingIfNeeded: pixel >> 16)
                    let g = UInt8(truncatingIfNeeded: pixel >> 8)
                    let b = UInt8(truncatingIfNeeded: pixel)
                    let o = base + 1 + x * 3
                    out[o] = r &- previous.0
                    out[o + 1] = g &- previous.1
                    out[o + 2] = b &- previous.2
                    previous = (r, g, b)
                }
            }
        }
        return try assemble(width: width, height: height, colourType: 2, filtered: raw)
    }

    /// Encodes 8-bit RGBA pixels (row-major, 4 bytes a pixel, not premultiplied) as a PNG with the `Sub` filter, e.g.
    /// a visual comparison's diff image.
    /// - Throws: `WireframeError` when `rgba` does not hold `width` × `height` pixels, or zlib fails.
    public static func encode(rgba: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        guard width > 0, height > 0, rgba.count == width * height * 4 else {
            throw WireframeError(message: "\(rgba.count) bytes are not \(width) × \(height) RGBA pixels")
        }
        let rowBytes = 1 + width * 4
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        raw.withUnsafeMutableBufferPointer { out in
            rgba.withUnsafeBufferPointer { pixels in
                for y in 0..<height {
                    let base = y * rowBytes, source = y * width * 4
                    out[base] = 1  // filter: Sub
                    for i in 0..<4 { out[base + 1 + i] = pixels[source + i] }
                    for i in 4..<(width * 4) { out[base + 1 + i] = pixels[source + i] &- pixels[source + i - 4] }
                }
            }
        }
        return try assemble(width: width, height: height, colourType: 6, filtered: raw)
    }

    /// The PNG around filtered rows: signature, IHDR (8-bit, `colourType`), one IDAT at zlib level 1, IEND.
    private static func assemble(width: Int, height: Int, colourType: UInt8, filtered raw: [UInt8]) throws -> [UInt8] {
        let idat: [UInt8]
        do {
            idat = try raw.withUnsafeBytes { try GzipCodec.zlib($0, level: 1) }
        } catch {
            throw WireframeError(message: "zlib could not compress the PNG: \(error)")
        }
        var png = Wireframe.pngSignature
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, colourType, 0, 0, 0]  // 8-bit, RGB (2) or RGBA (6), deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", idat, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    private static func appendChunk(_ type: String, _ body: [UInt8], to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        png.appendBigEndian(UInt32(body.count))
        png += typeBytes
        png += body
        var crc = typeBytes.withUnsafeBytes { GzipCodec.crc32($0) }
        crc = body.withUnsafeBytes { GzipCodec.crc32($0, continuing: crc) }
        png.appendBigEndian(crc)
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
