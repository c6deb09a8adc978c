/// A protocol error: a stable numeric code (also carried by ERROR frames) and a sentence for people.
///
/// Every malformed input the decoders can meet — truncated frame, oversized length, unknown type, bad varint,
/// string not UTF-8, trailing bytes, counts that exceed the frame — becomes one of these, never a crash.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable error codes (docs/PROTOCOL.md, "Error codes"). Values never change meaning; new ones are appended.
    public enum Code: UInt16, Sendable, Hashable, CaseIterable {
        /// The input ended inside a field or a frame.
        case truncated = 1
        /// A frame length exceeds the receiver's maximum frame size.
        case frameTooLarge = 2
        /// A frame length of zero (a frame always holds at least its type byte).
        case emptyFrame = 3
        /// A frame type that the negotiated protocol version does not define.
        case unknownType = 4
        /// A varint longer than 10 bytes, overflowing 64 bits, or not in its shortest form.
        case badVarint = 5
        /// A string field whose bytes are not valid UTF-8.
        case invalidUTF8 = 6
        /// Bytes left over in a payload after its last field.
        case trailingBytes = 7
        /// A length or element count larger than what remains of the frame.
        case countExceedsFrame = 8
        /// A field value out of its range (an unknown enum value, a number too large for its field).
        case invalidValue = 9
        /// A well-formed message that is not allowed in the current state (e.g. ASSIGN before WELCOME).
        case unexpectedMessage = 10
        /// The handshake did not complete before its deadline.
        case handshakeTimeout = 11
        /// The peer sent nothing for longer than the heartbeat timeout.
        case heartbeatTimeout = 12
        /// A MAC did not verify (HELLO at the server, WELCOME at the client).
        case authenticationFailed = 13
        /// The sender could not keep up with the receiver (outbound queue over its hard limit).
        case overloaded = 14
        /// No protocol version in common.
        case unsupportedVersion = 15
        /// The peer is shutting down.
        case shuttingDown = 16
        /// Anything else (a bug): the message says what.
        case internalError = 17
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "wire error \(code.rawValue) (\(code)): \(message)" }
}
