import CZlib

/// A gzip or zlib failure with a stable code and a plain sentence.
///
/// zlib return codes become a `GzipError` in one place (``GzipFunnel``); nothing else in the module inspects a
/// C return code. Artifacts turns one into an `ArtifactError` with the same code at its boundary.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// A zlib return code (`Z_DATA_ERROR` = -3: not gzip data or corrupt, `Z_MEM_ERROR` = -4, …).
        case zlib(Int32)
        /// Decompressed output would exceed the caller's cap (a zip bomb, or a cap set too low).
        case tooLarge
        /// The gzip stream ended before its trailer.
        case truncated
        /// The API was used out of order or with a bad argument (compress after finish, level 12…).
        case misuse
    }

    public var code: Code
    public var message: String
    /// What the codec was doing (`inflate`, `deflateInit2 (level 1)`…).
    public var operation: String

    public init(code: Code, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    public var description: String { "gzip: \(operation): \(message)" }
}

/// The zlib error funnel.
enum GzipFunnel {
    /// Throws for zlib codes that mean failure; returns the code otherwise (`Z_OK`, `Z_STREAM_END`, `Z_BUF_ERROR`).
    @discardableResult
    static func check(_ rc: Int32, _ stream: UnsafePointer<z_stream>?, _ operation: @autoclosure () -> String) throws
        -> Int32
    {
        switch rc {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
            return rc
        default:
            let detail = stream?.pointee.msg.map { String(cString: $0) } ?? String(cString: zError(rc))
            let text: String
            switch rc {
            case Z_DATA_ERROR: text = "not gzip data, or corrupt: \(detail)"
            case Z_NEED_DICT: text = "the stream needs a preset dictionary (not a FlowMatrix gzip artifact)"
            case Z_MEM_ERROR: text = "zlib is out of memory"
            default: text = detail
            }
            throw GzipError(code: .zlib(rc), message: text, operation: operation())
        }
    }
}
