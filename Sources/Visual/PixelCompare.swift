/// Tunables of a perceptual comparison, with pixelmatch's defaults.
public struct VisualCompareSettings: Sendable, Hashable {
    /// How different two colours may be and still match, 0…1 (default 0.1; lower is stricter): the square of the
    /// largest YIQ distance (35215) scaled by threshold².
    public var threshold: Double
    /// Count anti-aliased pixels as differences (default false: they are detected and drawn yellow, not counted).
    public var includeAntiAliasing: Bool
    /// How faint the unchanged picture is drawn under the diff image's marks, 0…1 (default 0.1).
    public var alpha: Double
    /// Rectangles ignored (masked elements): not compared, not counted, drawn light blue in the diff image.
    public var masks: [MaskRect]

    public init(threshold: Double = 0.1, includeAntiAliasing: Bool = false, alpha: Double = 0.1, masks: [MaskRect] = []) {
        self.threshold = threshold
        self.includeAntiAliasing = includeAntiAliasing
        self.alpha = alpha
        self.masks = masks
    }
}

/// What a comparison found.
public struct VisualComparison: Sendable, Hashable {
    /// Pixels whose colour distance is over the threshold and that are not anti-aliasing.
    public var differentPixels: Int
    /// Pixels over the threshold taken for anti-aliasing (not counted unless `includeAntiAliasing`).
    public var antiAliasedPixels: Int
    /// Pixels inside masks.
    public var maskedPixels: Int
    public var totalPixels: Int
    /// Red where the pictures differ (orange where the new one is darker), yellow for anti-aliasing, light blue for
    /// masks, over a faint grey copy of the baseline; nil when not asked for.
    public var diff: VisualImage?

    /// `differentPixels` / `totalPixels`.
    public var ratio: Double { totalPixels == 0 ? 0 : Double(differentPixels) / Double(totalPixels) }
}

/// A pixelmatch-compatible perceptual comparison (the algorithm of mapbox/pixelmatch 5: the YIQ colour distance of
/// Kotsarenko and Ramos, and Vysniauskas' anti-aliased pixel detector), over ``VisualImage``s of equal size.
///
/// Equal pixels are compared as 32-bit words first; only differing ones pay for the colour distance, and only those
/// over the threshold for the anti-aliasing test, so a picture with a small change costs little more than a memcmp.
public enum PixelCompare {
    /// The largest YIQ distance two colours can have.
    static let maxYIQDelta = 35215.0

    /// Compares `baseline` with `current`.
    /// - Parameter drawDiff: also draw the diff image (``VisualComparison/diff``).
    /// - Throws: ``VisualError`` `.sizeMismatch` when the sizes differ.
    public static func compare(_ baseline: VisualImage, _ current: VisualImage,
                               settings: VisualCompareSettings = VisualCompareSettings(), drawDiff: Bool = false)
        throws -> VisualComparison {
        guard baseline.width == current.width, baseline.height == current.height else {
            throw VisualError(code: .sizeMismatch, message: "the pictures differ in size: \(baseline.width) × "
                              + "\(baseline.height) and \(current.width) × \(current.height)")
        }
        let width = baseline.width, height = baseline.height
        let mask = MaskBitmap(settings.masks, width: width, height: height)
        var result = VisualComparison(differentPixels: 0, antiAliasedPixels: 0, maskedPixels: mask.count,
                                      totalPixels: width * height, diff: nil)
        var output = drawDiff ? [UInt8](repeating: 0, count: width * height * 4) : []
        if !drawDiff && baseline.rgba == current.rgba { return result }
        let maxDelta = maxYIQDelta * settings.threshold * settings.threshold
        baseline.rgba.withUnsafeBufferPointer { a in
            current.rgba.withUnsafeBufferPointer { b in
                output.withUnsafeMutableBufferPointer { out in
                    let scan = Scan(width: width, height: height)
                    let a32 = UnsafeRawBufferPointer(a).bindMemory(to: UInt32.self)
                    let b32 = UnsafeRawBufferPointer(b).bindMemory(to: UInt32.self)
                    for y in 0..<height {
                        for x in 0..<width {
                            let i = y * width + x, pos = i * 4
                            if mask.contains(i) {
                                if drawDiff { draw(out, pos, (173, 216, 230)) }
                                continue
                            }
                            if a32[i] == b32[i] {
                                if drawDiff { drawGray(a, pos, settings.alpha, out) }
                                continue
                            }
                            let delta = colorDelta(a, b, pos, pos, yOnly: false)
                            guard abs(delta) > maxDelta else {
                                if drawDiff { drawGray(a, pos, settings.alpha, out) }
                                continue
                            }
                            if !settings.includeAntiAliasing
                                && (scan.antialiased(a, x, y, other: b) || scan.antialiased(b, x, y, other: a)) {
                                result.antiAliasedPixels += 1
                                if drawDiff { draw(out, pos, (255, 255, 0)) }
                            } else {
                                result.differentPixels += 1
                                if drawDiff { draw(out, pos, delta < 0 ? (255, 140, 0) : (255, 0, 0)) }
                            }
                        }
                    }
                }
            }
        }
        if drawDiff { result.diff = try VisualImage(width: width, height: height, rgba: output) }
        return result
    }

    /// The squared YIQ distance of pixel `k` of `img1` and `m` of `img2`, negative when the second is lighter (as
    /// pixelmatch encodes it); with `yOnly`, the brightness difference alone.
    @inline(__always)
    static func colorDelta(_ img1: UnsafeBufferPointer<UInt8>, _ img2: UnsafeBufferPointer<UInt8>, _ k: Int, _ m: Int,
                           yOnly: Bool) -> Double {
        var r1 = Double(img1[k]), g1 = Double(img1[k + 1]), b1 = Double(img1[k + 2])
        let a1 = img1[k + 3]
        var r2 = Double(img2[m]), g2 = Double(img2[m + 1]), b2 = Double(img2[m + 2])
        let a2 = img2[m + 3]
        if a1 == a2 && r1 == r2 && g1 == g2 && b1 == b2 { return 0 }
        if a1 < 255 {
            let a = Double(a1) / 255
            (r1, g1, b1) = (blend(r1, a), blend(g1, a), blend(b1, a))
        }
        if a2 < 255 {
            let a = Double(a2) / 255
            (r2, g2, b2) = (blend(r2, a), blend(g2, a), blend(b2, a))
        }
        let y1 = rgb2y(r1, g1, b1), y2 = rgb2y(r2, g2, b2)
        let y = y1 - y2
        if yOnly { return y }
        let i = rgb2i(r1, g1, b1) - rgb2i(r2, g2, b2)
        let q = rgb2q(r1, g1, b1) - rgb2q(r2, g2, b2)
        let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
        return y1 > y2 ? -delta : delta
    }

    @inline(__always) static func rgb2y(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.29889531 + g * 0.58662247 + b * 0.11448223
    }
    @inline(__always) static func rgb2i(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.59597799 - g * 0.27417610 - b * 0.32180189
    }
    @inline(__always) static func rgb2q(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.21147017 - g * 0.52261711 + b * 0.31114694
    }
    /// A semi-transparent colour over white.
    @inline(__always) static func blend(_ c: Double, _ a: Double) -> Double { 255 + (c - 255) * a }

    @inline(__always)
    static func draw(_ out: UnsafeMutableBufferPointer<UInt8>, _ pos: Int, _ c: (UInt8, UInt8, UInt8)) {
        (out[pos], out[pos + 1], out[pos + 2], out[pos + 3]) = (c.0, c.1, c.2, 255)
    }

    @inline(__always)
    static func drawGray(_ img: UnsafeBufferPointer<UInt8>, _ pos: Int, _ alpha: Double,
                         _ out: UnsafeMutableBufferPointer<UInt8>) {
        let y = rgb2y(Double(img[pos]), Double(img[pos + 1]), Double(img[pos + 2]))
        let v = UInt8(max(0, min(255, blend(y, alpha * Double(img[pos + 3]) / 255))))
        draw(out, pos, (v, v, v))
    }
}

/// The anti-aliasing detector's neighbourhood walks over two pictures of one size.
struct Scan {
    let width: Int
    let height: Int

    /// Whether pixel (`x1`, `y1`) of `img` is likely anti-aliasing ("Anti-aliased Pixel and Intensity Slope Detector",
    /// Vysniauskas 2009): it has both a darker and a lighter neighbour, and the darkest or the lightest of them sits
    /// in a flat area (3+ equal neighbours) in both pictures.
    func antialiased(_ img: UnsafeBufferPointer<UInt8>, _ x1: Int, _ y1: Int, other: UnsafeBufferPointer<UInt8>) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let pos = (y1 * width + x1) * 4
        var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
        var minDelta = 0.0, maxDelta = 0.0
        var minX = 0, minY = 0, maxX = 0, maxY = 0
        for x in x0...x2 {
            for y in y0...y2 where !(x == x1 && y == y1) {
                let delta = PixelCompare.colorDelta(img, img, pos, (y * width + x) * 4, yOnly: true)
                if delta == 0 {
                    zeroes += 1
                    if zeroes > 2 { return false }
                } else if delta < minDelta {
                    (minDelta, minX, minY) = (delta, x, y)
                } else if delta > maxDelta {
                    (maxDelta, maxX, maxY) = (delta, x, y)
                }
            }
        }
        if minDelta == 0 || maxDelta == 0 { return false }
        return (hasManySiblings(img, minX, minY) && hasManySiblings(other, minX, minY))
            || (hasManySiblings(img, maxX, maxY) && hasManySiblings(other, maxX, maxY))
    }

    /// Whether pixel (`x1`, `y1`) has 3 or more neighbours of exactly its colour.
    func hasManySiblings(_ img: UnsafeBufferPointer<UInt8>, _ x1: Int, _ y1: Int) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let pos = (y1 * width + x1) * 4
        var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
        for x in x0...x2 {
            for y in y0...y2 where !(x == x1 && y == y1) {
                let p = (y * width + x) * 4
                if img[pos] == img[p] && img[pos + 1] == img[p + 1] && img[pos + 2] == img[p + 2]
                    && img[pos + 3] == img[p + 3] {
                    zeroes += 1
                }
                if zeroes > 2 { return true }
            }
        }
        return false
    }
}

/// Which pixels masks cover: one flag a pixel, built only when there are masks.
struct MaskBitmap {
    private var bits: [Bool]
    private(set) var count = 0

    init(_ masks: [MaskRect], width: Int, height: Int) {
        bits = masks.isEmpty ? [] : [Bool](repeating: false, count: width * height)
        for mask in masks {
            guard let r = mask.clipped(width: width, height: height) else { continue }
            for y in r.y..<(r.y + r.height) {
                for x in r.x..<(r.x + r.width) where !bits[y * width + x] {
                    bits[y * width + x] = true
                    count += 1
                }
            }
        }
    }

    @inline(__always) func contains(_ i: Int) -> Bool { !bits.isEmpty && bits[i] }
}
