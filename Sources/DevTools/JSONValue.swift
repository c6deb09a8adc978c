import Foundation

/// A JSON value that can cross tasks: DevTools messages are parsed into it once, on the reader thread.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object; nil for other values or a missing member.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var double: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    public var int: Int? { double.flatMap { $0.isFinite && $0 == $0.rounded() ? Int(exactly: $0) : nil } }
    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Parses UTF-8 JSON text.
    /// - Throws: `DevToolsError` with code `.malformedMessage` when the bytes are not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(DevToolsError) -> JSONValue {
        let any: Any
        do {
            any = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw DevToolsError(.malformedMessage, "not JSON (\(bytes.count) bytes): \(Self.preview(bytes))")
        }
        return JSONValue(foundation: any)
    }

    /// The first bytes of a message, for error messages.
    static func preview(_ bytes: some Collection<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        return bytes.count > 80 ? text + "…" : text
    }

    init(foundation any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let n as NSNumber:
            // JSON true/false arrive as NSNumbers of C type `char` (on Darwin and Linux); numbers are `q` or `d`.
            if String(cString: n.objCType) == "c" { self = .bool(n.boolValue) } else { self = .number(n.doubleValue) }
        case let a as [Any]: self = .array(a.map(JSONValue.init(foundation:)))
        case let o as [String: Any]: self = .object(o.mapValues(JSONValue.init(foundation:)))
        default: self = .null
        }
    }

    /// Compact JSON text.
    public var serialized: String {
        var out = ""
        write(into: &out)
        return out
    }

    func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if n.isFinite, n == n.rounded(), abs(n) < 1e15 {
                out += String(Int64(n))
            } else if n.isFinite {
                out += "\(n)"
            } else {
                out += "null"
            }
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                o[key]?.write(into: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
