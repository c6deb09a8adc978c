import Foundation
import Gzip

/// An artifact failure with a stable code, a sentence, and what the module was doing.
///
/// A codec failure (``GzipError``, from the Gzip module) becomes an `ArtifactError` in one place
/// (``init(_:)``), POSIX `errno` in another (``SystemFunnel``); nothing else in the module inspects a C return code.
public struct ArtifactError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// A zlib return code (`Z_DATA_ERROR` = -3: not gzip data or corrupt, `Z_MEM_ERROR` = -4, …).
        case zlib(Int32)
        /// A POSIX `errno` from a file operation.
        case system(Int32)
        /// The bytes do not hash to the expected SHA-256.
        case hashMismatch
        /// Decompressed output would exceed the caller's cap (a zip bomb, or a cap set too low).
        case tooLarge
        /// The gzip stream ended before its trailer, or has bytes after it that are not another member.
        case truncated
        /// Not a 64-character lowercase hex SHA-256.
        case invalidHash
        /// No blob with that hash in the store.
        case notFound
        /// A step already has an artifact with that name.
        case duplicateName
        /// The API was used out of order (append after commit…).
        case misuse
    }

    public var code: Code
    public var message: String
    public var operation: String

    public init(code: Code, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    public var description: String { "artifacts: \(operation): \(message)" }
}

extension ArtifactError {
    /// The one place a codec failure becomes an artifact failure: the same code (`.zlib`, `.tooLarge`,
    /// `.truncated`, `.misuse`), sentence and operation, so callers that match on ``ArtifactError/Code`` keep working.
    public init(_ gzip: GzipError) {
        let code: Code
        switch gzip.code {
        case .zlib(let rc): code = .zlib(rc)
        case .tooLarge: code = .tooLarge
        case .truncated: code = .truncated
        case .misuse: code = .misuse
        }
        self.init(code: code, message: gzip.message, operation: gzip.operation)
    }

    /// Runs `body` (codec calls), rethrowing a ``GzipError`` as an `ArtifactError`; other errors pass unchanged.
    static func convertingGzip<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as GzipError {
            throw ArtifactError(error)
        }
    }
}

/// The POSIX error funnel: `-1` from a system call becomes an ``ArtifactError`` carrying `errno`.
enum SystemFunnel {
    @discardableResult
    static func check<R: BinaryInteger>(_ result: R, _ operation: @autoclosure () -> String) throws -> R {
        guard result == -1 else { return result }
        let code = errno
        throw ArtifactError(code: .system(code), message: String(cString: strerror(code)), operation: operation())
    }

    /// Throws the current `errno` for `operation`.
    static func fail(_ operation: String) throws -> Never {
        let code = errno
        throw ArtifactError(code: .system(code), message: String(cString: strerror(code)), operation: operation)
    }

    /// Runs a system call, retrying on EINTR.
    @discardableResult
    static func retrying<R: BinaryInteger>(_ operation: @autoclosure () -> String, _ call: () -> R) throws -> R {
        while true {
            let result = call()
            if result == -1, errno == EINTR { continue }
            return try check(result, operation())
        }
    }
}

/// `read(2)` into `buffer` (a free function, so types with a `read` method can call it).
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}
