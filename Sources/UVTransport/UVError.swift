import CLibUV

/// A libuv failure: the negative code, its name (`ECONNREFUSED`) and the operation that failed.
public struct UVError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Int32
    public let name: String
    public let operation: String

    init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        name = String(cString: uv_err_name(code))
    }

    /// libuv's sentence for the code.
    public var message: String { String(cString: uv_strerror(code)) }

    public var description: String { "\(operation) failed: \(name) (\(message))" }
}

/// The one funnel for libuv return codes: a negative result becomes a `UVError`.
@discardableResult
func uvCheck(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if result < 0 { throw UVError(code: result, operation: operation()) }
    return result
}

/// Errors of the transport layer that are not libuv return codes.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The event loop is shut down (or shutting down): nothing new can start on it.
        case loopShutDown
        /// The host is not a numeric IPv4 or IPv6 address (or `localhost`).
        case badAddress
    }
    public let code: Code
    public let message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
