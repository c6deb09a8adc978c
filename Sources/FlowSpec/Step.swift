/// One scenario step: a verb applied to a target, with an optional string argument.
public struct Step: Sendable, Hashable, Codable {
    public var verb: Verb
    public var target: String
    public var arg: String?

    public init(verb: Verb, target: String, arg: String? = nil) {
        self.verb = verb
        self.target = target
        self.arg = arg
    }

    /// The registry key, `"verb:target"`.
    public var key: String { verb.rawValue + ":" + target }

    private enum CodingKeys: String, CodingKey { case verb, target, arg }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verb, forKey: .verb)
        try container.encode(target, forKey: .target)
        try container.encodeIfPresent(arg, forKey: .arg)
    }
}

extension Step: CustomStringConvertible {
    public var description: String { arg.map { "\(key) \"\($0)\"" } ?? key }
}
