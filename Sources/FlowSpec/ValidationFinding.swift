/// One problem found in an input file: a stable rule code, where it is, and a sentence a user can act on.
///
/// Scenario rules are `FS…` (see `ScenarioRule`); matrix rules are `MX…` (module MatrixPlan).
public struct ValidationFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file the finding is in, as the user named it.
    public var file: String
    /// The stable rule code, e.g. `FS008`.
    public var code: String
    /// A JSON path into the file (`$.steps[2].arg`), or `$` for the whole document.
    public var path: String
    /// Line and column, when known.
    public var line: Int?
    public var column: Int?
    /// What is wrong and how to fix it.
    public var message: String
    /// True for a warning: worth saying, but nothing stops (`validate` exits 0 when it finds only warnings). Nil for
    /// the findings that are errors (absent from JSON).
    public var warning: Bool?

    public init(file: String, code: String, path: String, position: SourcePosition?, message: String,
                warning: Bool = false) {
        self.file = file
        self.code = code
        self.path = path
        self.line = position?.line
        self.column = position?.column
        self.message = message
        self.warning = warning ? true : nil
    }

    /// True when the finding is a warning.
    public var isWarning: Bool { warning == true }

    /// `file:line:column: CODE message (at path)`: the form editors and CI annotate.
    public var description: String {
        let location = line.map { l in column.map { "\(l):\($0)" } ?? "\(l)" }
        let prefix = location.map { "\(file):\($0)" } ?? file
        return "\(prefix): \(isWarning ? "warning: " : "")\(code) \(message) (at \(path))"
    }
}

extension Sequence where Element == ValidationFinding {
    /// Findings in file order: by file, then line, then column, then code.
    public func sortedForDisplay() -> [ValidationFinding] {
        sorted { a, b in
            (a.file, a.line ?? 0, a.column ?? 0, a.code) < (b.file, b.line ?? 0, b.column ?? 0, b.code)
        }
    }
}
