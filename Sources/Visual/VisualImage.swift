/// A decoded picture: 8-bit RGBA pixels, row-major, not premultiplied (what ``PNGDecoder`` returns and
/// ``PixelCompare`` reads).
public struct VisualImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// `width` × `height` × 4 bytes: red, green, blue, alpha.
    public var rgba: [UInt8]

    /// - Throws: ``VisualError`` `.badPixels` when `rgba` does not hold `width` × `height` pixels.
    public init(width: Int, height: Int, rgba: [UInt8]) throws {
        guard width > 0, height > 0, rgba.count == width * height * 4 else {
            throw VisualError(code: .badPixels, message: "\(rgba.count) bytes are not \(width) × \(height) RGBA pixels")
        }
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// An image of one colour.
    public init(width: Int, height: Int, filledWith pixel: (UInt8, UInt8, UInt8, UInt8)) {
        self.width = max(1, width)
        self.height = max(1, height)
        var bytes = [UInt8](repeating: 0, count: self.width * self.height * 4)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = pixel
        }
        rgba = bytes
    }

    public var pixelCount: Int { width * height }

    /// The pixel at (`x`, `y`) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 4
        return (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
    }

    /// Sets the pixel at (`x`, `y`); outside the image it does nothing.
    public mutating func setPixel(x: Int, y: Int, _ pixel: (UInt8, UInt8, UInt8, UInt8)) {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return }
        let i = (y * width + x) * 4
        (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]) = pixel
    }

    /// Fills a rectangle (clipped to the image) with one colour.
    public mutating func fill(_ rect: MaskRect, with pixel: (UInt8, UInt8, UInt8, UInt8)) {
        guard let r = rect.clipped(width: width, height: height) else { return }
        for y in r.y..<(r.y + r.height) {
            for x in r.x..<(r.x + r.width) { setPixel(x: x, y: y, pixel) }
        }
    }
}

/// A rectangle of pixels a comparison ignores (a masked element's box), in image pixels.
public struct MaskRect: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part inside a `width` × `height` image; nil when none is.
    public func clipped(width w: Int, height h: Int) -> MaskRect? {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(w, x + max(0, width)), y1 = min(h, y + max(0, height))
        guard x1 > x0, y1 > y0 else { return nil }
        return MaskRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
