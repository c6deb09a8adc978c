/// A FlowSpec scenario: `{id, title, actor?, preconditions[], tags[], steps[]}`.
public struct Scenario: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var title: String
    public var actor: String?
    public var preconditions: [String]
    public var tags: [String]
    public var steps: [Step]

    public init(
        id: String, title: String, actor: String? = nil, preconditions: [String] = [], tags: [String] = [],
        steps: [Step]
    ) {
        self.id = id
        self.title = title
        self.actor = actor
        self.preconditions = preconditions
        self.tags = tags
        self.steps = steps
    }

    private enum CodingKeys: String, CodingKey { case id, title, actor, preconditions, tags, steps }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        actor = try c.decodeIfPresent(String.self, forKey: .actor)
        preconditions = try c.decodeIfPresent([String].self, forKey: .preconditions) ?? []
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        steps = try c.decode([Step].self, forKey: .steps)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(actor, forKey: .actor)
        try c.encode(preconditions, forKey: .preconditions)
        try c.encode(tags, forKey: .tags)
        try c.encode(steps, forKey: .steps)
    }
}
