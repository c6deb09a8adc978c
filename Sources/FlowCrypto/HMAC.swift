import CCrypto

/// HMAC-SHA256 over libcrypto, and the comparisons and randomness that authentication needs.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = HMAC(
                        EVP_sha256(), k.baseAddress, Int32(k.count),
                        m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                        o.baseAddress, &length
                    )
                }
            }
        }
        return out
    }
}

/// Constant-time comparison: the time taken does not depend on where two equal-length values differ.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
}

/// Cryptographically secure random bytes (libcrypto's RAND_bytes).
public func secureRandomBytes(_ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
    if ok != 1 {
        // RAND_bytes fails only when the system entropy source is broken; refuse to hand out weak nonces.
        preconditionFailure("RAND_bytes failed: no secure randomness available")
    }
    return out
}

/// The libcrypto version text, e.g. "OpenSSL 3.0.x".
public var libcryptoVersion: String { String(cString: ccrypto_version_text()) }
