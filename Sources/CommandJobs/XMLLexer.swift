/// The tokens of an XML document that JUnit files need: start tags with their attributes, end tags and text
/// (entities and CDATA decoded). Declarations, comments, processing instructions and DOCTYPEs are skipped.
struct XMLLexer {
    enum Token: Equatable {
        case start(name: String, attributes: [String: String], selfClosing: Bool)
        case end(name: String)
        case text(String)
    }

    private let scalars: [Unicode.Scalar]
    private var i = 0
    /// The line the lexer is on (1-based).
    private(set) var line = 1

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    mutating func next() throws(JUnitError) -> Token? {
        guard i < scalars.count else { return nil }
        if scalars[i] != "<" { return .text(try decodeEntities(until: "<")) }
        if starts(with: "<!--") { try skip(past: "-->"); return try next() }
        if starts(with: "<![CDATA[") {
            i += 9
            let start = i
            try skip(past: "]]>")
            return .text(String(String.UnicodeScalarView(scalars[start..<(i - 3)])))
        }
        if starts(with: "<?") || starts(with: "<!") { try skip(past: ">"); return try next() }
        i += 1
        if i < scalars.count, scalars[i] == "/" {
            i += 1
            let name = readName()
            skipSpaces()
            guard i < scalars.count, scalars[i] == ">" else { throw problem("an end tag </\(name)> without '>'") }
            i += 1
            return .end(name: name)
        }
        let name = readName()
        guard !name.isEmpty else { throw problem("'<' not followed by a tag name") }
        var attributes: [String: String] = [:]
        while true {
            skipSpaces()
            guard i < scalars.count else { throw problem("the tag <\(name)> is never closed with '>'") }
            if scalars[i] == ">" { i += 1; return .start(name: name, attributes: attributes, selfClosing: false) }
            if starts(with: "/>") { i += 2; return .start(name: name, attributes: attributes, selfClosing: true) }
            let key = readName()
            skipSpaces()
            guard !key.isEmpty, i < scalars.count, scalars[i] == "=" else {
                throw problem("a malformed attribute in <\(name)> (expected name=\"value\")")
            }
            i += 1
            skipSpaces()
            guard i < scalars.count, scalars[i] == "\"" || scalars[i] == "'" else {
                throw problem("the value of '\(key)' in <\(name)> is not quoted")
            }
            let quote = scalars[i]
            i += 1
            attributes[key] = try decodeEntities(until: quote)
            guard i < scalars.count else { throw problem("the value of '\(key)' in <\(name)> is never closed") }
            i += 1
        }
    }

    private func problem(_ message: String) -> JUnitError { JUnitError(message: message, line: line) }

    private func starts(with prefix: String) -> Bool {
        var j = i
        for s in prefix.unicodeScalars {
            guard j < scalars.count, scalars[j] == s else { return false }
            j += 1
        }
        return true
    }

    private mutating func skip(past terminator: String) throws(JUnitError) {
        while i < scalars.count {
            if starts(with: terminator) { i += terminator.unicodeScalars.count; return }
            if scalars[i] == "\n" { line += 1 }
            i += 1
        }
        throw problem("unterminated markup (no '\(terminator)')")
    }

    private mutating func skipSpaces() {
        while i < scalars.count, scalars[i].properties.isWhitespace {
            if scalars[i] == "\n" { line += 1 }
            i += 1
        }
    }

    private mutating func readName() -> String {
        let start = i
        while i < scalars.count {
            let s = scalars[i]
            guard s.properties.isAlphabetic || s.properties.numericType != nil || "-_:.".unicodeScalars.contains(s) else { break }
            i += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<i]))
    }

    /// Text up to (not including) `stop`, with `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and `&#…;` decoded.
    private mutating func decodeEntities(until stop: Unicode.Scalar) throws(JUnitError) -> String {
        var out = String.UnicodeScalarView()
        while i < scalars.count, scalars[i] != stop {
            let s = scalars[i]
            if s == "\n" { line += 1 }
            if s == "<" { throw problem("'<' inside an attribute value") }
            guard s == "&" else { out.append(s); i += 1; continue }
            guard let semicolon = scalars[i...].prefix(12).firstIndex(of: ";") else { throw problem("a bare '&' (write &amp;)") }
            let entity = String(String.UnicodeScalarView(scalars[(i + 1)..<semicolon]))
            guard let decoded = Self.entity(entity) else { throw problem("unknown entity '&\(entity);'") }
            out.append(decoded)
            i = semicolon + 1
        }
        return String(out)
    }

    private static func entity(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init)
        }
    }
}
