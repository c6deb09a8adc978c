import Foundation

/// The shared token, read the same way by coordinators and workers: one rule for both (docs/FLEET.md, "Tokens").
public enum TokenFile {
    /// The shortest token either side accepts, in bytes (after trimming white space).
    public static let minimumBytes = 16

    /// Why `token` is unusable, or nil when it is fine.
    public static func problem(with token: [UInt8]) -> String? {
        token.count < minimumBytes ? "a token must be at least \(minimumBytes) bytes, not \(token.count)" : nil
    }

    /// Reads a token file (white space around it trimmed).
    /// - Returns: the token, and a warning when others may read the file (as ssh warns of a private key).
    /// - Throws: `TokenFileError` when it cannot be read or breaks the rule.
    public static func read(_ path: String) throws -> (token: [UInt8], warning: String?) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TokenFileError(message: "cannot read the token file \(path)")
        }
        let token = Array(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        if let problem = problem(with: token) { throw TokenFileError(message: "\(path): \(problem)") }
        var warning: String?
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
            warning = "the token file \(path) is readable by others (mode \(String(mode & 0o777, radix: 8))); "
                + "anyone who reads it can join or impersonate the coordinator: chmod 600 \(path)"
        }
        return (token, warning)
    }
}

/// A token file that cannot be used.
public struct TokenFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
