import FlowCrypto

/// A worker process's identity across its connections, as HELLO labels (docs/FLEET.md, "Network faults versus
/// crashes"): how a coordinator tells a broken connection of a live process from a crash, without letting another
/// connection claim to be that process.
///
/// Each connection announces a commitment, `flowmatrix.instance=<hex SHA-256 of a fresh secret>`, and — from the
/// second on — reveals the secret behind the commitment of the previous welcomed connection,
/// `flowmatrix.instance-key=<hex secret>`. The coordinator takes a connection as the same process only when its key
/// hashes to a commitment it holds; a key opens one commitment once. Labels seen on the wire therefore prove nothing
/// to whoever copies them: the commitment's secret was never sent, and an old key opens nothing any more.
public struct WorkerInstance: Sendable {
    /// The label carrying the commitment of this connection.
    public static let label = "flowmatrix.instance"
    /// The label carrying the secret of the previous welcomed connection's commitment.
    public static let keyLabel = "flowmatrix.instance-key"

    /// The secret behind the commitment this connection announces (never sent until the next connection).
    private var secret: [UInt8]
    /// The secret of the last welcomed connection, revealed by the next one.
    private var revealed: [UInt8]?

    /// A new process identity with a fresh secret.
    public init() {
        secret = Self.freshSecret()
    }

    /// The labels of the next HELLO: the commitment, and the key of the last welcomed connection if there was one.
    public var labels: [String] {
        ["\(Self.label)=\(Self.commitment(of: secret))"] + (revealed.map { ["\(Self.keyLabel)=\(Hex.encode($0))"] } ?? [])
    }

    /// The connection made with ``labels`` was welcomed: the next connection reveals its secret and commits to a
    /// fresh one. (A connection refused before WELCOME leaves both as they were, so the next attempt sends them again.)
    public mutating func welcomed() {
        revealed = secret
        secret = Self.freshSecret()
    }

    /// The commitment (hex) a key label's value opens; nil when it is not 32 bytes of hex.
    public static func commitment(ofKey key: String) -> String? {
        guard key.utf8.count == 64, let bytes = Hex.decode(key), bytes.count == 32 else { return nil }
        return commitment(of: bytes)
    }

    private static func commitment(of secret: [UInt8]) -> String { SHA256.hexHash(secret) }

    private static func freshSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
