import Foundation
import Testing
import UVTransport

@Suite("Token files: one rule for coordinators and workers")
struct TokenFileTests {
    private func write(_ text: String, mode: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fm-token-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return path
    }

    @Test("a 15-byte token is refused, a 16-byte one accepted (white space trimmed)")
    func length() throws {
        let short = try write("0123456789abcde\n", mode: 0o600)
        let ok = try write("  0123456789abcdef\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: short); try? FileManager.default.removeItem(atPath: ok) }
        #expect(throws: TokenFileError.self) { try TokenFile.read(short) }
        let read = try TokenFile.read(ok)
        #expect(read.token == Array("0123456789abcdef".utf8))
        #expect(read.warning == nil)
    }

    @Test("a token file others can read is accepted with a warning that says how to fix it")
    func permissions() throws {
        let path = try write("0123456789abcdef0123", mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let warning = try #require(try TokenFile.read(path).warning)
        #expect(warning.contains("chmod 600"))
    }
}
