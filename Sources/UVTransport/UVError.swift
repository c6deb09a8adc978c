import CLibUV
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

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

// The one funnel for libuv return codes. Every libuv call's result goes through one of these four, by what its
// caller can do about a failure:
// - `uvCheck` throws it (set-up the caller can refuse: bind, listen, init of a connection);
// - `uvError` returns it, for the I/O paths that close their connection with it (write, read, connect);
// - `uvRequire` traps with it, for resources without which nothing can run (the loop itself, its wake-up handle);
// - `uvExpect` reports it on stderr, for calls libuv documents as not failing on a live handle (timer start,
//   read stop, TCP_NODELAY): never silently ignored, and nothing to undo.

/// A negative result becomes a thrown `UVError`. - Returns: the result when it is not an error.
@discardableResult
func uvCheck(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if let error = uvError(result, operation()) { throw error }
    return result
}

/// A negative result as a `UVError` (nil otherwise), for paths that close their connection with it.
@inline(__always)
func uvError(_ result: some BinaryInteger, _ operation: @autoclosure () -> String) -> UVError? {
    result < 0 ? UVError(code: Int32(truncatingIfNeeded: result), operation: operation()) : nil
}

/// Traps on a negative result: the process cannot run without this resource (out of descriptors or memory).
func uvRequire(_ result: Int32, _ operation: @autoclosure () -> String) {
    if let error = uvError(result, operation()) { preconditionFailure("\(error)") }
}

/// Reports a negative result on stderr: a call libuv documents as not failing on a live handle, whose failure
/// leaves nothing to undo and no caller to tell.
func uvExpect(_ result: Int32, _ operation: @autoclosure () -> String) {
    guard let error = uvError(result, operation()) else { return }
    let line = "flowmatrix: unexpected libuv failure: \(error)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
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
