/// The closed FlowSpec verb vocabulary. Adding a verb is a coordinated change across the schema, this
/// enum, the validation rules and every registry.
public enum Verb: String, Sendable, Hashable, CaseIterable, Codable {
    case open, tap, type, swipe, wait, assert, request, ambient, rotate
}

/// A swipe direction (`swipe` step argument).
public enum SwipeDirection: String, Sendable, Hashable, CaseIterable {
    case up, down, left, right
}

/// A device orientation (`rotate` step argument).
public enum DeviceOrientation: String, Sendable, Hashable, CaseIterable {
    case portrait, landscape
}
