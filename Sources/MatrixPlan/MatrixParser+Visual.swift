import FlowSpec
import FlowVocabulary

extension MatrixParser {
    static let visualMembers: Set<String> = ["threshold", "maxDiffPixels", "maxDiffRatio", "masks", "includeAntiAliasing",
                                             "onChange"]

    /// `policy.visual` (MX045–MX049), every finding at once.
    /// - Parameter keep: the policy's `keep` as written (nil when not written).
    mutating func parseVisual(_ node: JSONNode, keep: KeepPolicy?) -> VisualPolicy? {
        let path = "$.policy.visual"
        guard node.members != nil else {
            add(.wrongType, path, node.position, "expected an object, found \(node.kindName)")
            return nil
        }
        checkMembers(node, path: path, allowed: Self.visualMembers)
        var policy = VisualPolicy()
        if let t = node["threshold"] {
            if let n = t.number, n >= 0, n <= 1 { policy.threshold = n } else {
                add(.badVisualThreshold, "\(path).threshold", t.position,
                    "threshold is a number from 0 (exact) to 1 (anything matches), not \(t.scalarText ?? t.kindName); pixelmatch's default is 0.1")
            }
        }
        if let p = node["maxDiffPixels"] {
            if let n = p.number, n >= 0, n == n.rounded(), n <= 1e12 { policy.maxDiffPixels = Int(n) } else {
                add(.badVisualTolerance, "\(path).maxDiffPixels", p.position,
                    "maxDiffPixels is a whole number of pixels, 0 or more, not \(p.scalarText ?? p.kindName)")
            }
        }
        if let r = node["maxDiffRatio"] {
            if let n = r.number, n >= 0, n <= 1 { policy.maxDiffRatio = n } else {
                add(.badVisualTolerance, "\(path).maxDiffRatio", r.position,
                    "maxDiffRatio is a share of the picture from 0 to 1 (0.01 = 1 %), not \(r.scalarText ?? r.kindName)")
            }
        }
        if let a = node["includeAntiAliasing"] {
            if let b = a.bool { policy.includeAntiAliasing = b } else {
                add(.wrongType, "\(path).includeAntiAliasing", a.position, "expected true or false, found \(a.kindName)")
            }
        }
        if let m = node["masks"] { policy.masks = parseMasks(m, path: "\(path).masks") }
        if let o = node["onChange"] {
            if let text = o.string, let value = VisualPolicy.OnChange(rawValue: text) { policy.onChange = value } else {
                add(.badVisualOnChange, "\(path).onChange", o.position,
                    "onChange is 'fail' (a visual change fails the job) or 'report' (it is only reported), not "
                        + "\(o.string.map { "'\($0)'" } ?? o.kindName)")
            }
        }
        if keep == KeepPolicy.none {
            add(.visualWithoutPictures, path, node.position,
                "policy.visual compares each step's picture with its baseline, but keep 'none' records no picture; "
                    + "use keep 'all' (the default with policy.visual) or remove policy.visual")
        }
        return policy
    }

    private mutating func parseMasks(_ node: JSONNode, path: String) -> [VisualPolicy.Mask] {
        guard let items = node.array else {
            add(.wrongType, path, node.position, "expected a list of element identifiers or rectangles, found \(node.kindName)")
            return []
        }
        var masks: [VisualPolicy.Mask] = []
        for (i, item) in items.enumerated() {
            if let id = item.string {
                if id.trimmingSpaces.isEmpty {
                    add(.badVisualMask, "\(path)[\(i)]", item.position, "a mask identifier is empty; name the element (its identifier)")
                } else { masks.append(.identifier(id)) }
                continue
            }
            let numbers = ["x", "y", "width", "height"].map { item[$0]?.number }
            if item.members != nil, item.members?.count == 4, numbers.allSatisfy({ $0 != nil && $0 == $0?.rounded() }),
               let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3], w > 0, h > 0,
               abs(x) < 1e9, abs(y) < 1e9, w < 1e9, h < 1e9 {
                masks.append(.rect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)))
            } else {
                add(.badVisualMask, "\(path)[\(i)]", item.position,
                    "a mask is an element identifier (\"clock\") or a rectangle {\"x\", \"y\", \"width\", \"height\"} in "
                        + "whole pixels with width and height above 0")
            }
        }
        return masks
    }
}
