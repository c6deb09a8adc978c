import CCrypto

/// SHA-256 over libcrypto: one-shot and incremental (for streaming artifacts).
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// Starts a new digest.
    public init() {
        // EVP_MD_CTX_new only fails when out of memory; a process without memory cannot continue anyway.
        guard let ctx = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed: out of memory") }
        EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
        context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds bytes into the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Feeds a byte collection into the digest.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest and returns its 32 bytes.
    public consuming func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        // EVP_DigestFinal_ex fails only on a corrupt context, which this type never builds.
        precondition(status == 1 && length == 32, "EVP_DigestFinal_ex failed")
        return out
    }

    /// The SHA-256 of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var digest = SHA256()
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-256 of `bytes` as 64 lowercase hex characters.
    public static func hexHash<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.encode(hash(bytes))
    }
}
