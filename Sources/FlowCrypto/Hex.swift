/// Lowercase hexadecimal encoding and decoding.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Encodes bytes as lowercase hex.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var chars: [UInt8] = []
        chars.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// Whether `text` is the lowercase hex of `bytes`, without building it (a report checks tens of thousands of blob
    /// hashes; the generic ``encode(_:)`` and its string cost more than the hash itself).
    public static func matches(_ bytes: [UInt8], lowercaseHex text: String) -> Bool {
        var text = text
        return text.withUTF8 { hex in
            guard hex.count == bytes.count * 2 else { return false }
            for (i, byte) in bytes.enumerated()
            where hex[2 * i] != digits[Int(byte >> 4)] || hex[2 * i + 1] != digits[Int(byte & 0x0f)] {
                return false
            }
            return true
        }
    }

    /// Decodes hex (either case, whitespace ignored); nil when a character is not a hex digit or the count is odd.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
            default: return nil
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil ? out : nil
    }
}
