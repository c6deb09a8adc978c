/// Z85 (ZeroMQ RFC 32) text for the blobs the report folder carries: 5 characters per 4 bytes (1.25×, where base64
/// is 1.33×), from an alphabet with no quote, backslash or white space, so it sits in a JavaScript string literal
/// as it is. The first character says how many zero bytes pad the last group (`0`…`3`); the page drops them.
enum Z85 {
    static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    /// Every pair of digits, by value (0..<85²): the encoder looks up two characters per division.
    private static let pairs: [UInt16] = (0..<(85 * 85)).map { v in
        UInt16(alphabet[v / 85]) | UInt16(alphabet[v % 85]) << 8
    }

    /// The pad count, then the Z85 of `bytes` padded with zeros to a multiple of 4.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { encode($0, appendingTo: &out) }
        return out
    }

    /// Appends `encode`'s text of `bytes` to `text` (a report appends every blob of a batch to one buffer).
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>, appendingTo text: inout [UInt8]) {
        let pad = (4 - bytes.count % 4) % 4
        let groups = (bytes.count + pad) / 4
        let start = text.count
        text.append(contentsOf: repeatElement(0, count: 1 + groups * 5))
        // Written through pointers, two digits per table entry: a report encodes tens of megabytes of blobs.
        text.withUnsafeMutableBufferPointer { text in
            alphabet.withUnsafeBufferPointer { alphabet in
                pairs.withUnsafeBufferPointer { pairs in
                    let out = UnsafeMutableBufferPointer(rebasing: text[start...])
                    out[0] = UInt8(ascii: "0") + UInt8(pad)
                    var at = 1
                    for group in 0..<groups {
                        let index = group * 4
                        var value: UInt32
                        if index + 4 <= bytes.count {
                            value = UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16
                                | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
                        } else {
                            value = 0
                            for k in 0..<4 { value = value << 8 | UInt32(index + k < bytes.count ? bytes[index + k] : 0) }
                        }
                        let low = pairs[Int(value % 7225)]
                        value /= 7225
                        let middle = pairs[Int(value % 7225)]
                        out[at] = alphabet[Int(value / 7225)]
                        out[at + 1] = UInt8(truncatingIfNeeded: middle)
                        out[at + 2] = UInt8(truncatingIfNeeded: middle >> 8)
                        out[at + 3] = UInt8(truncatingIfNeeded: low)
                        out[at + 4] = UInt8(truncatingIfNeeded: low >> 8)
                        at += 5
                    }
                }
            }
        }
    }

    /// The bytes of `encode`'s text; nil when it is not such text.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard let first = text.first, (UInt8(ascii: "0")...UInt8(ascii: "3")).contains(first),
              (text.count - 1) % 5 == 0 else { return nil }
        var table = [Int](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = i }
        var out: [UInt8] = []
        var value: UInt64 = 0
        var n = 0
        for c in text.dropFirst() {
            guard c < 128, table[Int(c)] >= 0 else { return nil }
            value = value * 85 + UInt64(table[Int(c)])
            n += 1
            if n == 5 {
                guard value <= UInt64(UInt32.max) else { return nil }
                out += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
                value = 0
                n = 0
            }
        }
        let pad = Int(first - UInt8(ascii: "0"))
        guard pad <= out.count else { return nil }
        return Array(out.dropLast(pad))
    }
}
