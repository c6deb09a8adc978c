import FlowSpec
import Foundation
import Testing

@Suite("File errors in a person's words")
struct FileErrorTextTests {
    @Test("real Foundation file errors become phrases without an error domain or number")
    func realErrors() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fm-fileerror-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let underFile = #expect(throws: (any Error).self) {
            try FileManager.default.createDirectory(at: file.appendingPathComponent("store"), withIntermediateDirectories: true)
        }
        let missing = #expect(throws: (any Error).self) { _ = try Data(contentsOf: root.appendingPathComponent("none.json")) }
        let noFolder = #expect(throws: (any Error).self) { try Data("x".utf8).write(to: root.appendingPathComponent("no/such/f")) }
        #expect(FileErrorText.reason(try #require(missing)) == "no such file or folder")
        #expect(FileErrorText.reason(try #require(noFolder)) == "no such file or folder")
        let reason = FileErrorText.reason(try #require(underFile))
        #expect(["\(file.path) is a file, not a folder", "a part of the path is a file, not a folder"].contains(reason), "\(reason)")
        for error in [underFile, missing, noFolder].compactMap({ $0 }) {
            #expect(!FileErrorText.reason(error).contains("Domain"), "\(error)")
        }
    }

    @Test("an error no caller explained names its path and reason, never an error domain; other errors are unchanged")
    func sentences() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fm-fileerror-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let underFile = try #require(#expect(throws: (any Error).self) {
            try FileManager.default.createDirectory(at: file.appendingPathComponent("out"), withIntermediateDirectories: true)
        })
        let text = FileErrorText.sentence(underFile)
        #expect(!text.contains("Domain") && !text.contains("error 512"), "\(text)")
        #expect(text.hasSuffix("is a file, not a folder"), "\(text)")
        let missing = try #require(#expect(throws: (any Error).self) { _ = try Data(contentsOf: root.appendingPathComponent("none.json")) })
        #expect(FileErrorText.sentence(missing) == root.appendingPathComponent("none.json").path + ": no such file or folder")
        struct Plain: Error, CustomStringConvertible { var description: String { "the plan has no jobs" } }
        #expect(FileErrorText.sentence(Plain()) == "the plan has no jobs")
    }

    @Test("each Cocoa file code has its own sentence", arguments: [
        (CocoaError.Code.fileWriteNoPermission, "permission denied"), (.fileReadNoPermission, "permission denied"),
        (.fileWriteOutOfSpace, "the disk is full"), (.fileWriteFileExists, "something is already there"),
        (.fileNoSuchFile, "no such file or folder"), (.fileWriteVolumeReadOnly, "the file system is read-only"),
        (.fileWriteUnknown, "the file system refused (it gave no reason)"),
    ])
    func codes(code: CocoaError.Code, phrase: String) {
        #expect(FileErrorText.reason(CocoaError(code)) == phrase)
    }
}
