/// Why a picture could not be read or compared: a stable code and a sentence a person can act on.
public struct VisualError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The bytes do not start with the PNG signature.
        case notPNG = "not-png"
        /// A PNG whose chunks, checksums, header or compressed pixels are damaged or truncated.
        case corruptPNG = "corrupt-png"
        /// A well-formed PNG this decoder does not read (an unknown compression or filter method).
        case unsupportedPNG = "unsupported-png"
        /// More pixels than the decoder's limit.
        case tooLarge = "too-large"
        /// Two pictures of different sizes were compared pixel by pixel.
        case sizeMismatch = "size-mismatch"
        /// A pixel buffer that does not hold width × height pixels.
        case badPixels = "bad-pixels"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
