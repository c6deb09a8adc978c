import FlowCrypto
import Gzip

/// Bytes compressed as the store keeps them (one gzip member at the default level) and the hash that names them.
enum GzipBlob {
    static func compress(_ bytes: [UInt8]) throws -> (bytes: [UInt8], sha256: String) {
        let gz = try GzipCodec.compress(bytes)
        return (gz, Hex.encode(SHA256.hash(gz)))
    }
}
