import FlowCrypto
import UVTransport

/// Who may see the live view: the rule of `serve --listen` (docs/FLEET.md) — loopback needs nothing, any other
/// address a token. The token is presented once in the URL (`?token=…`) and exchanged for a session cookie
/// (`HttpOnly; SameSite=Strict`), because the browser's `EventSource` sends no headers of ours. A pure value.
public struct LiveAccess: Sendable {
    /// What to do with a request.
    public enum Decision: Sendable, Hashable {
        case allow
        /// The token was right: answer 303 to `location` with this `Set-Cookie`.
        case exchange(location: String, cookie: String)
        /// 401 (no credentials), 403 (wrong ones, or a foreign Host on loopback).
        case deny(status: Int, reason: String)
    }

    /// The cookie's name.
    public static let cookieName = "flowmatrix_live"
    /// Nil on loopback without a token file.
    let token: [UInt8]?
    /// The session secret the cookie carries (random, never the token itself).
    let session: [UInt8]
    /// The Host values accepted without a token (loopback names with the port): a page on another origin that
    /// resolves to 127.0.0.1 (DNS rebinding) is refused.
    let loopbackHosts: Set<String>?

    /// - Parameters:
    ///   - token: required of every client when set.
    ///   - port: the bound port, for the loopback Host check (ignored with a token).
    ///   - session: the cookie's secret (random by default).
    public init(token: [UInt8]?, port: Int, session: [UInt8] = secureRandomBytes(32)) {
        self.token = token
        self.session = Array(Hex.encode(session).utf8)
        loopbackHosts = token == nil ? ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] : nil
    }

    public func decide(_ request: HTTPRequest) -> Decision {
        guard let token else {
            if let hosts = loopbackHosts, !hosts.contains(request.headers["host"]?.lowercased() ?? "") {
                return .deny(status: 403, reason: "this live view answers to loopback host names only")
            }
            return .allow
        }
        if let presented = request.query["token"] {
            guard constantTimeEquals(Array(presented.utf8), token) else {
                return .deny(status: 403, reason: "wrong token")
            }
            let cookie = "\(Self.cookieName)=\(String(decoding: session, as: UTF8.self)); HttpOnly; SameSite=Strict; Path=/"
            return .exchange(location: request.path, cookie: cookie)
        }
        guard let presented = request.cookie(Self.cookieName) else {
            return .deny(status: 401, reason: "open the URL with ?token=<token> once (the token file's content)")
        }
        guard constantTimeEquals(Array(presented.utf8), session) else {
            return .deny(status: 403, reason: "the session cookie is not this server's: open the URL with ?token= again")
        }
        return .allow
    }
}
