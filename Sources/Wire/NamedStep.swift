/// A step beyond the scenario's declared steps that names itself: a command job reports each test of its result
/// files this way (docs/COMMAND-JOBS.md). The name travels at the start of the STEP's message, between two
/// U+001E RECORD SEPARATOR characters (which no step message or test name otherwise holds), so no message layout
/// changes; a coordinator that does not know the convention shows the text as it came.
public enum NamedStep {
    static let separator: Character = "\u{1E}"

    /// The message of a named step: `\u{1E}name\u{1E}message`.
    public static func message(name: String, message: String) -> String {
        "\u{1E}" + name.filter { $0 != separator } + "\u{1E}" + message
    }

    /// The name and the plain message of a named step's message, or nil when it names no step.
    public static func split(_ message: String) -> (name: String, message: String)? {
        guard message.first == separator else { return nil }
        let rest = message.dropFirst()
        guard let end = rest.firstIndex(of: separator) else { return nil }
        return (String(rest[..<end]), String(rest[rest.index(after: end)...]))
    }
}
