import Testing
import Visual

/// The perceptual compare: threshold, anti-aliasing, masks, the diff image.
@Suite("Perceptual compare")
struct PixelCompareTests {
    /// A pixel's four bytes (nil image: none).
    func px(_ image: VisualImage?, _ x: Int, _ y: Int) -> [UInt8] {
        guard let image else { return [] }
        let p = image.pixel(x: x, y: y)
        return [p.0, p.1, p.2, p.3]
    }

    /// Black on the left, white on the right, a grey (anti-aliasing) column between them at x = 10.
    static func edge(grey: UInt8 = 128) -> VisualImage {
        var image = VisualImage(width: 20, height: 12, filledWith: (255, 255, 255, 255))
        for y in 0..<12 {
            for x in 0..<10 { image.setPixel(x: x, y: y, (0, 0, 0, 255)) }
            image.setPixel(x: 10, y: y, (grey, grey, grey, 255))
        }
        return image
    }

    @Test("equal pictures have no differing pixel; one changed pixel counts once and is red in the diff")
    func onePixel() throws {
        let a = Self.edge()
        #expect(try PixelCompare.compare(a, a).differentPixels == 0)
        var b = a
        b.setPixel(x: 15, y: 6, (0, 0, 0, 255))
        let result = try PixelCompare.compare(a, b, drawDiff: true)
        #expect(result.differentPixels == 1 && result.totalPixels == 240)
        // Darker in the new picture: pixelmatch's alternate colour; the rest is a faint grey copy.
        let diff = try #require(result.diff)
        #expect(px(diff, 15, 6) == [255, 140, 0, 255])
        #expect(diff.pixel(x: 16, y: 6).0 > 200 && diff.pixel(x: 16, y: 6).0 == diff.pixel(x: 16, y: 6).1)
        var lighter = a
        lighter.setPixel(x: 3, y: 3, (255, 255, 255, 255))
        #expect(px(try PixelCompare.compare(a, lighter, drawDiff: true).diff, 3, 3) == [255, 0, 0, 255])
    }

    @Test("a colour change under the threshold does not count; a stricter threshold counts it")
    func threshold() throws {
        let a = VisualImage(width: 8, height: 8, filledWith: (200, 200, 200, 255))
        let b = VisualImage(width: 8, height: 8, filledWith: (196, 200, 200, 255))
        #expect(try PixelCompare.compare(a, b).differentPixels == 0)
        #expect(try PixelCompare.compare(a, b, settings: VisualCompareSettings(threshold: 0.005)).differentPixels == 64)
    }

    @Test("a changed anti-aliasing pixel is detected and not counted, unless includeAntiAliasing")
    func antiAliasing() throws {
        let a = Self.edge(grey: 128)
        var b = a
        b.setPixel(x: 10, y: 5, (40, 40, 40, 255))
        let result = try PixelCompare.compare(a, b, drawDiff: true)
        #expect(result.differentPixels == 0 && result.antiAliasedPixels == 1)
        #expect(px(result.diff, 10, 5) == [255, 255, 0, 255])
        let strict = try PixelCompare.compare(a, b, settings: VisualCompareSettings(includeAntiAliasing: true))
        #expect(strict.differentPixels == 1)
    }

    @Test("changes inside a mask do not count; outside they do")
    func masks() throws {
        let a = Self.edge()
        var b = a
        for x in 12...14 { b.setPixel(x: x, y: 2, (255, 0, 0, 255)) }
        b.setPixel(x: 18, y: 10, (0, 0, 255, 255))
        let masked = VisualCompareSettings(masks: [MaskRect(x: 11, y: 1, width: 5, height: 3)])
        let result = try PixelCompare.compare(a, b, settings: masked, drawDiff: true)
        #expect(result.differentPixels == 1 && result.maskedPixels == 15)
        #expect(px(result.diff, 13, 2) == [173, 216, 230, 255])
        #expect(try PixelCompare.compare(a, b).differentPixels == 4)
    }

    @Test("semi-transparent pixels are blended over white, as pixelmatch does")
    func alpha() throws {
        let a = VisualImage(width: 4, height: 4, filledWith: (0, 0, 0, 0))
        let b = VisualImage(width: 4, height: 4, filledWith: (255, 255, 255, 255))
        // Transparent black over white is white.
        #expect(try PixelCompare.compare(a, b).differentPixels == 0)
    }

    @Test("pictures of different sizes are refused with a sentence naming both sizes")
    func sizes() {
        let a = VisualImage(width: 4, height: 4, filledWith: (0, 0, 0, 255))
        let b = VisualImage(width: 5, height: 4, filledWith: (0, 0, 0, 255))
        #expect(throws: VisualError.self) { try PixelCompare.compare(a, b) }
    }

    @Test("element boxes come from surface.json and elements.json shapes, scaled to pixels")
    func elementBoxes() {
        let surface = #"{"format":1,"surface":{"elements":[{"id":"clock","frame":{"x":1.5,"y":2,"width":10,"height":4}},"#
            + #"{"id":"total","frame":{"x":0,"y":30,"width":5,"height":5}}]}}"#
        let boxes = ElementBoxes(json: Array(surface.utf8))
        #expect(boxes.masks(for: ["clock"]) == [MaskRect(x: 1, y: 2, width: 11, height: 4)])
        #expect(boxes.masks(for: ["missing"]).isEmpty)
        let web = ElementBoxes(json: Array(#"{"scale":2,"elements":[{"id":"ad","frame":{"x":1,"y":1,"width":2,"height":2}}]}"#.utf8))
        #expect(web.masks(for: ["ad"]) == [MaskRect(x: 2, y: 2, width: 4, height: 4)])
        #expect(ElementBoxes(json: Array("not json".utf8)).boxes.isEmpty)
    }
}
