/// A position in a text file: 1-based line and column (columns count UTF-8 bytes).
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A parsed JSON value that remembers where it stood in its file, so findings can point at a line.
///
/// Objects keep their members in file order (matrix `include` entries are order-sensitive).
public struct JSONNode: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// A number, with its text as written (so `"5"` vs `5.0` can be told apart in messages).
        case number(Double, text: String)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    public var value: Value
    public var position: SourcePosition

    public init(_ value: Value, at position: SourcePosition) {
        self.value = value
        self.position = position
    }

    /// The member named `key` of an object (the last one when a key repeats), or nil.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    public var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    public var array: [JSONNode]? {
        if case .array(let a) = value { return a }
        return nil
    }

    public var members: [JSONMember]? {
        if case .object(let m) = value { return m }
        return nil
    }

    public var number: Double? {
        if case .number(let n, _) = value { return n }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }

    public var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// The kind of value, as a user would name it in a message ("a string", "an array", …).
    public var kindName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A scalar rendered as text: strings as they are, numbers as written, booleans as `true`/`false`.
    public var scalarText: String? {
        switch value {
        case .string(let s): s
        case .number(_, let text): text
        case .bool(let b): b ? "true" : "false"
        default: nil
        }
    }
}

extension JSONNode {
    /// A member name that an object repeats: where the repetition stands.
    public struct DuplicateMember: Sendable, Hashable {
        /// The repeated name.
        public var key: String
        /// The JSON path of the repeated member, e.g. `$.steps[1].arg`.
        public var path: String
        /// Where the second (and each later) occurrence's name stands.
        public var position: SourcePosition
    }

    /// Every member name repeated within one object, anywhere in this document (RFC 8259 leaves the
    /// meaning of a repeated name undefined, so validation reports it instead of letting the last one win).
    /// - Parameter path: the JSON path of this node (`$` for the root).
    public func duplicateMembers(path: String = "$") -> [DuplicateMember] {
        var out: [DuplicateMember] = []
        collectDuplicates(path: path, into: &out)
        return out
    }

    private func collectDuplicates(path: String, into out: inout [DuplicateMember]) {
        switch value {
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                let memberPath = "\(path).\(member.key)"
                if !seen.insert(member.key).inserted {
                    out.append(DuplicateMember(key: member.key, path: memberPath, position: member.keyPosition))
                }
                member.value.collectDuplicates(path: memberPath, into: &out)
            }
        case .array(let items):
            for (i, item) in items.enumerated() { item.collectDuplicates(path: "\(path)[\(i)]", into: &out) }
        default:
            break
        }
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: JSONNode

    public init(key: String, keyPosition: SourcePosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// Malformed JSON: what was wrong and where.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var position: SourcePosition

    public var description: String { "\(position): \(message)" }
}
