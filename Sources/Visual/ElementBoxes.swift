import Foundation

/// The boxes of a step's identified elements, read from what registries attach beside a picture: the Catalog's
/// `surface.json` holds objects with an `id` and a `frame` (`{"x", "y", "width", "height"}` in points), the web
/// registry's `elements.json` objects with an `id` and a `box` (`[x, y, width, height]` in CSS pixels); a top-level
/// `scale` (device pixels a point, default 1) converts them to image pixels. Masks name elements by identifier (``masks(for:)``).
public struct ElementBoxes: Sendable, Hashable {
    /// Identifier → boxes in image pixels (an identifier may name several elements).
    public var boxes: [String: [MaskRect]]

    public init(boxes: [String: [MaskRect]] = [:]) { self.boxes = boxes }

    /// Reads the boxes from a JSON document; an unreadable document has none.
    public init(json bytes: [UInt8]) {
        boxes = [:]
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return }
        let scale = ((root as? [String: Any])?["scale"] as? NSNumber)?.doubleValue ?? 1
        collect(root, scale: scale > 0 ? scale : 1)
    }

    /// The boxes of the elements these identifiers name; identifiers the step does not show add nothing.
    public func masks(for identifiers: [String]) -> [MaskRect] {
        identifiers.flatMap { boxes[$0] ?? [] }
    }

    private mutating func collect(_ node: Any, scale: Double) {
        if let list = node as? [Any] {
            for item in list { collect(item, scale: scale) }
            return
        }
        guard let object = node as? [String: Any] else { return }
        if let id = object["id"] as? String, !id.isEmpty {
            if let frame = object["frame"] as? [String: Any], let rect = Self.rect(frame, scale: scale) {
                boxes[id, default: []].append(rect)
            } else if let box = object["box"] as? [NSNumber], box.count == 4 {
                // The web registry's form: `box` is `[x, y, width, height]` in CSS pixels.
                let frame = ["x": box[0], "y": box[1], "width": box[2], "height": box[3]]
                if let rect = Self.rect(frame, scale: scale) { boxes[id, default: []].append(rect) }
            }
        }
        for (key, value) in object where key != "frame" && key != "box" { collect(value, scale: scale) }
    }

    private static func rect(_ frame: [String: Any], scale: Double) -> MaskRect? {
        let values = ["x", "y", "width", "height"].map { (frame[$0] as? NSNumber)?.doubleValue }
        guard let x = values[0], let y = values[1], let w = values[2], let h = values[3], w.isFinite, h.isFinite,
              x.isFinite, y.isFinite else { return nil }
        // Whole pixels that the box touches at all (anti-aliased edges included).
        let x0 = Int((x * scale).rounded(.down)), y0 = Int((y * scale).rounded(.down))
        let x1 = Int(((x + w) * scale).rounded(.up)), y1 = Int(((y + h) * scale).rounded(.up))
        return MaskRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}
