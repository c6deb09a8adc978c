/// One scenario step: a verb applied to a target, with an optional string argument.
public struct Step: Sendable, Hashable, Codable {
    public var verb: Verb { didSet { key = Self.key(verb, target) } }
    public var target: String { didSet { key = Self.key(verb, target) } }
    public var arg: String?
    /// The registry key, `"verb:target"`: kept with the step (runners, registries and records read it for every
    /// step run; building it each time was a string concatenation per read).
    public private(set) var key: String

    public init(verb: Verb, target: String, arg: String? = nil) {
        self.verb = verb
        self.target = target
        self.arg = arg
        key = Self.key(verb, target)
    }

    private static func key(_ verb: Verb, _ target: String) -> String { verb.rawValue + ":" + target }

    private enum CodingKeys: String, CodingKey { case verb, target, arg }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(verb: try container.decode(Verb.self, forKey: .verb), target: try container.decode(String.self, forKey: .target),
                  arg: try container.decodeIfPresent(String.self, forKey: .arg))
    }

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
