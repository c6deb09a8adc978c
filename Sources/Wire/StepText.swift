/// The text of a STEP message: the failure message (if any), then one line per interruption the step handled,
/// `interruption: <name>` (docs/PROTOCOL.md, STEP).
public enum StepText {
    public static func encode(message: String?, interruptions: [String]) -> String {
        var lines: [String] = []
        if let message, !message.isEmpty { lines.append(message) }
        lines += interruptions.map { "interruption: \($0)" }
        return lines.joined(separator: "\n")
    }

    public static func decode(_ text: String) -> (message: String?, interruptions: [String]) {
        var message: [String] = []
        var interruptions: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("interruption: ") {
                interruptions.append(String(line.dropFirst("interruption: ".count)))
            } else {
                message.append(String(line))
            }
        }
        let joined = message.joined(separator: "\n")
        return (joined.isEmpty ? nil : joined, interruptions)
    }
}
