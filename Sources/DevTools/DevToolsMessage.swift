/// One message from the browser on the DevTools pipe: a response to a command, or an event.
public enum DevToolsMessage: Sendable, Hashable {
    case response(id: Int, sessionID: String?, result: JSONValue)
    case failure(id: Int, sessionID: String?, code: Int, message: String)
    case event(method: String, sessionID: String?, params: JSONValue)

    /// Decodes one NUL-free message.
    /// - Throws: `.malformedMessage` for bytes that are not a JSON object shaped like a response or an event.
    public static func decode(_ bytes: some Collection<UInt8>) throws(DevToolsError) -> DevToolsMessage {
        let value = try JSONValue.parse(bytes)
        guard case .object(let members) = value else {
            throw DevToolsError(
                .malformedMessage, "a DevTools message must be a JSON object: \(JSONValue.preview(bytes))")
        }
        var session: String?
        if let raw = members["sessionId"] {
            guard let s = raw.string else {
                throw DevToolsError(.malformedMessage, "sessionId is not a string: \(JSONValue.preview(bytes))")
            }
            session = s
        }
        if let rawID = members["id"] {
            guard let id = rawID.int else {
                throw DevToolsError(.malformedMessage, "id is not an integer: \(JSONValue.preview(bytes))")
            }
            if let error = members["error"] {
                return .failure(
                    id: id, sessionID: session, code: error["code"]?.int ?? 0,
                    message: error["message"]?.string ?? error.serialized)
            }
            return .response(id: id, sessionID: session, result: members["result"] ?? .object([:]))
        }
        if let method = members["method"]?.string {
            return .event(method: method, sessionID: session, params: members["params"] ?? .object([:]))
        }
        throw DevToolsError(.malformedMessage, "neither a response nor an event: \(JSONValue.preview(bytes))")
    }

    /// A command as sent on the pipe: JSON followed by the NUL separator.
    public static func encodeCommand(id: Int, method: String, params: JSONValue, sessionID: String?) -> [UInt8] {
        var text = "{\"id\":\(id),\"method\":"
        JSONValue.writeString(method, into: &text)
        text += ",\"params\":"
        params.write(into: &text)
        if let sessionID {
            text += ",\"sessionId\":"
            JSONValue.writeString(sessionID, into: &text)
        }
        text += "}"
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes
    }
}

/// Splits the browser's byte stream into messages at NUL separators; bytes may arrive in any chunking.
public struct DevToolsFrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The largest message accepted (a full-page screenshot of a large page is tens of MiB of base64).
    public let maxMessageSize: Int

    public init(maxMessageSize: Int = 256 << 20) { self.maxMessageSize = maxMessageSize }

    /// Appends bytes read from the pipe.
    public mutating func append(_ bytes: some Collection<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next complete message, nil when more bytes are needed.
    /// - Throws: `.malformedMessage` when a message grows past `maxMessageSize` without a separator.
    public mutating func next() throws(DevToolsError) -> ArraySlice<UInt8>? {
        if let end = buffer[start...].firstIndex(of: 0) {
            let message = buffer[start..<end]
            start = end + 1
            if start == buffer.count {
                let taken = message
                buffer.removeAll(keepingCapacity: true)
                start = 0
                return ArraySlice(Array(taken))
            }
            return ArraySlice(Array(message))
        }
        if buffer.count - start > maxMessageSize {
            buffer.removeAll()
            start = 0
            throw DevToolsError(.malformedMessage, "a message exceeded \(maxMessageSize) bytes without a NUL separator")
        }
        if start > 0, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        return nil
    }
}
