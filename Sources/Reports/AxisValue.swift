import Foundation

/// One axis of a job's configuration with its value (`locale` = `ar`).
public struct AxisValue: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var axis: String
    public var value: String

    public init(axis: String, value: String) {
        self.axis = axis
        self.value = value
    }

    /// `axis=value`.
    public var description: String { "\(axis)=\(value)" }

    public static func < (a: AxisValue, b: AxisValue) -> Bool {
        a.axis != b.axis ? a.axis < b.axis : naturalLess(a.value, b.value)
    }

    /// The axis values of a journal job: from its configuration JSON object when it parses (numbers and booleans
    /// become their JSON text), else from the canonical `k=v,k=v` text. Sorted by axis name.
    public static func parse(configuration: String, json: String) -> [AxisValue] {
        if let flat = flatStrings(json) { return flat.sorted() }
        if let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(json.utf8)) {
            return object.map { AxisValue(axis: $0.key, value: $0.value.text) }.sorted()
        }
        return configuration.split(separator: ",", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return AxisValue(axis: String(pieces[0]), value: pieces.count > 1 ? String(pieces[1]) : "")
        }.sorted()
    }

    /// The members of a flat JSON object whose keys and values are all strings without escapes (`{"locale":"ar"}`),
    /// read without a decoder (a report parses one per job); nil for anything else, which the decoder handles.
    static func flatStrings(_ json: String) -> [AxisValue]? {
        var bytes = json.utf8[...]
        func skipSpace() { while let b = bytes.first, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { bytes.removeFirst() } }
        func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard bytes.first == byte else { return false }
            bytes.removeFirst()
            return true
        }
        func string() -> String? {
            guard expect(0x22) else { return nil }
            guard let end = bytes.firstIndex(of: 0x22) else { return nil }
            let body = bytes[..<end]
            if body.contains(0x5C) || body.contains(where: { $0 < 0x20 }) { return nil }
            bytes = bytes[bytes.index(after: end)...]
            return String(decoding: body, as: UTF8.self)
        }
        guard expect(0x7B) else { return nil }
        var out: [AxisValue] = []
        if expect(0x7D) { skipSpace(); return bytes.isEmpty ? out : nil }
        while true {
            guard let key = string(), expect(0x3A), let value = string() else { return nil }
            // A repeated key: leave the decoder's rules to the decoder.
            if out.contains(where: { $0.axis == key }) { return nil }
            out.append(AxisValue(axis: key, value: value))
            if expect(0x2C) { continue }
            guard expect(0x7D) else { return nil }
            skipSpace()
            return bytes.isEmpty ? out : nil
        }
    }

    /// A JSON member value as text.
    private struct Scalar: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let s = try? container.decode(String.self) {
                text = s
            } else if let b = try? container.decode(Bool.self) {
                text = b ? "true" : "false"
            } else if let i = try? container.decode(Int64.self) {
                text = String(i)
            } else if let d = try? container.decode(Double.self) {
                text = String(d)
            } else if container.decodeNil() {
                text = "null"
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a scalar")
            }
        }
    }

    /// Orders `w2` before `w10` (digit runs compare by value), otherwise by Unicode scalars.
    static func naturalLess(_ a: String, _ b: String) -> Bool {
        var i = a.unicodeScalars.makeIterator()
        var j = b.unicodeScalars.makeIterator()
        var x = i.next()
        var y = j.next()
        while let cx = x, let cy = y {
            if cx.properties.numericType == .decimal, cy.properties.numericType == .decimal,
               cx.isASCII, cy.isASCII {
                var nx = "", ny = ""
                while let c = x, c.isASCII, c.properties.numericType == .decimal { nx.unicodeScalars.append(c); x = i.next() }
                while let c = y, c.isASCII, c.properties.numericType == .decimal { ny.unicodeScalars.append(c); y = j.next() }
                let tx = nx.drop { $0 == "0" }, ty = ny.drop { $0 == "0" }
                if tx.count != ty.count { return tx.count < ty.count }
                if tx != ty { return tx < ty }
                continue
            }
            if cx != cy { return cx.value < cy.value }
            x = i.next()
            y = j.next()
        }
        return x == nil && y != nil
    }
}
