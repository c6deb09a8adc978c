import CCairo

/// A screen drawn as labelled boxes: the generic input of a wireframe (nothing here is app-specific).
public struct WireframeDocument: Sendable, Hashable {
    /// Canvas size in points (one point = one pixel).
    public var width: Int
    public var height: Int
    /// A caption drawn in the top-left corner (e.g. the screen and configuration).
    public var caption: String
    /// True to draw labels right-aligned in their boxes and mark the canvas as right-to-left.
    public var rightToLeft: Bool
    public var boxes: [WireframeBox]

    public init(width: Int, height: Int, caption: String = "", rightToLeft: Bool = false, boxes: [WireframeBox]) {
        self.width = width
        self.height = height
        self.caption = caption
        self.rightToLeft = rightToLeft
        self.boxes = boxes
    }
}

/// One box of a wireframe: a frame, a label and what is wrong with it.
public struct WireframeBox: Sendable, Hashable {
    public enum Style: String, Sendable, Hashable {
        case text, button, field, image, control, container, overlay
    }

    /// Problems a box is highlighted for.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Drawn in red.
        public static let truncated = Flags(rawValue: 1 << 0)
        /// Drawn in orange.
        public static let overlapping = Flags(rawValue: 1 << 1)
        /// Drawn in red, dashed.
        public static let offScreen = Flags(rawValue: 1 << 2)
        /// Drawn in magenta.
        public static let notMirrored = Flags(rawValue: 1 << 3)
        /// Drawn in purple.
        public static let notLocalized = Flags(rawValue: 1 << 4)
    }

    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var label: String
    public var style: Style
    public var flags: Flags

    public init(
        x: Double, y: Double, width: Double, height: Double, label: String, style: Style = .text,
        flags: Flags = []
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.label = label
        self.style = style
        self.flags = flags
    }
}

/// Why a wireframe could not be drawn.
public struct WireframeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Draws wireframes with cairo and reads PNG sizes back.
public enum Wireframe {
    /// The 8-byte PNG signature.
    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Renders `document` as a PNG of exactly `width` × `height` pixels.
    /// - Throws: `WireframeError` when the canvas is empty or too large, or cairo fails.
    public static func png(_ document: WireframeDocument) throws -> [UInt8] {
        guard (1...8192).contains(document.width), (1...8192).contains(document.height) else {
            throw WireframeError(
                message: "a wireframe must be 1…8192 points on each side, not \(document.width)x\(document.height)")
        }
        guard
            let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(document.width), Int32(document.height))
        else { throw WireframeError(message: "cairo could not create a surface") }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            throw WireframeError(message: "cairo could not create a drawing context")
        }
        defer { cairo_destroy(cr) }
        draw(document, on: cr)
        cairo_surface_flush(surface)

        return try PNGWriter.encode(surface)
    }

    /// Decodes a PNG with cairo and returns its size, or nil when the bytes are not a PNG cairo can read.
    public static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.starts(with: pngSignature) else { return nil }
        let source = ByteSource(bytes)
        let context = Unmanaged.passUnretained(source).toOpaque()
        let surface = withExtendedLifetime(source) {
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                    let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
                    return source.read(into: data, count: Int(length)) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
                }, context)
        }
        guard let surface else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return nil }
        return (Int(cairo_image_surface_get_width(surface)), Int(cairo_image_surface_get_height(surface)))
    }

    // MARK: drawing

    private typealias RGB = (Double, Double, Double)

    private static func draw(_ document: WireframeDocument, on cr: OpaquePointer) {
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        for box in document.boxes { drawBox(box, rightToLeft: document.rightToLeft, on: cr) }
        // Caption and a direction marker, so a mirrored layout is visible at a glance.
        cairo_set_font_size(cr, 9)
        cairo_set_source_rgba(cr, 0.2, 0.2, 0.6, 0.9)
        cairo_move_to(cr, 4, Double(document.height) - 4)
        cairo_show_text(cr, (document.rightToLeft ? "RTL ← " : "LTR → ") + document.caption)
    }

    private static func drawBox(_ box: WireframeBox, rightToLeft: Bool, on cr: OpaquePointer) {
        let (fill, fillAlpha): (RGB, Double) =
            switch box.style {
            case .button: ((0.80, 0.88, 1.0), 1)
            case .field: ((0.96, 0.96, 0.96), 1)
            case .image: ((0.85, 0.85, 0.85), 1)
            case .control: ((0.85, 0.95, 0.85), 1)
            case .container: ((0.97, 0.97, 0.99), 1)
            case .overlay: ((1.0, 1.0, 0.92), 0.95)
            case .text: ((1, 1, 1), 0)
            }
        var stroke: RGB = (0.55, 0.55, 0.6)
        var lineWidth = 1.0
        var dashed = false
        if box.flags.contains(.overlapping) { stroke = (1.0, 0.55, 0.0); lineWidth = 2 }
        if box.flags.contains(.notLocalized) { stroke = (0.5, 0.0, 0.7); lineWidth = 2 }
        if box.flags.contains(.notMirrored) { stroke = (0.9, 0.0, 0.8); lineWidth = 2 }
        if box.flags.contains(.truncated) { stroke = (0.9, 0.0, 0.0); lineWidth = 2 }
        if box.flags.contains(.offScreen) { stroke = (0.9, 0.0, 0.0); lineWidth = 2; dashed = true }

        cairo_save(cr)
        cairo_rectangle(cr, box.x, box.y, box.width, box.height)
        cairo_set_source_rgba(cr, fill.0, fill.1, fill.2, fillAlpha)
        cairo_fill_preserve(cr)
        if !box.flags.isEmpty {
            cairo_set_source_rgba(cr, stroke.0, stroke.1, stroke.2, 0.12)
            cairo_fill_preserve(cr)
        }
        cairo_set_source_rgb(cr, stroke.0, stroke.1, stroke.2)
        cairo_set_line_width(cr, lineWidth)
        if dashed {
            let pattern: [Double] = [4, 3]
            pattern.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, 2, 0) }
        }
        cairo_stroke(cr)
        cairo_restore(cr)

        guard !box.label.isEmpty, box.height >= 8 else { return }
        cairo_save(cr)
        cairo_rectangle(cr, box.x, box.y, box.width, box.height)
        cairo_clip(cr)
        let size = min(13, max(7, min(box.height, 22) * 0.45))
        cairo_set_font_size(cr, size)
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1)
        let inset = 3.0
        // Word-wrap into as many lines as the box holds (tall text boxes are multi-line labels).
        let lineHeight = size * 1.3
        let maxLines = max(1, Int(box.height / lineHeight))
        let lines = maxLines == 1 ? [box.label] : wrap(box.label, width: box.width - 2 * inset, maxLines: maxLines, on: cr)
        let top = box.y + (box.height - lineHeight * Double(lines.count)) / 2
        for (i, line) in lines.enumerated() {
            let advance = textAdvance(line, on: cr)
            let x: Double =
                switch (box.style, rightToLeft) {
                case (.button, _): box.x + max(inset, (box.width - advance) / 2)
                case (_, true): box.x + box.width - inset - advance
                case (_, false): box.x + inset
                }
            cairo_move_to(cr, x, top + lineHeight * Double(i) + lineHeight * 0.5 + size * 0.35)
            cairo_show_text(cr, line)
        }
        cairo_restore(cr)
    }
}

private func textAdvance(_ text: String, on cr: OpaquePointer) -> Double {
    var extents = cairo_text_extents_t()
    cairo_text_extents(cr, text, &extents)
    return extents.x_advance
}

/// Greedy word wrap of `text` into at most `maxLines` lines of `width` (the last line takes the rest).
private func wrap(_ text: String, width: Double, maxLines: Int, on cr: OpaquePointer) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
        let candidate = current.isEmpty ? String(word) : current + " " + word
        if !current.isEmpty, textAdvance(candidate, on: cr) > width, lines.count < maxLines - 1 {
            lines.append(current)
            current = String(word)
        } else {
            current = candidate
        }
    }
    lines.append(current)
    return lines
}

/// Feeds a PNG stream to cairo (used only inside `Wireframe.pngSize`, on one thread).
private final class ByteSource {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard count >= 0, offset + count <= bytes.count else { return false }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.update(from: base + offset, count: count) }
        }
        offset += count
        return true
    }
}
