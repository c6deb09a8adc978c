// Fixtures the Gzip and Artifacts tests share (a test target cannot import another): temporary folders, the real
// `gzip` tool, deterministic sample bytes.
import Foundation
import ProcessSpawn

/// A temporary directory removed when the value goes away.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("codec-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        do { try FileManager.default.removeItem(at: url) } catch {
            print("note: could not remove \(url.path): \(error)")
        }
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Runs a tool (the real `gzip`) for at most a minute, returning its exit status and standard output; waits without
/// blocking a thread.
public func runTool(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: [UInt8]) {
    guard let result = try await ProgramOutput.run(URL(fileURLWithPath: path), arguments, timeout: .seconds(60)) else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(path) \(arguments) ran over a minute"])
    }
    return (result.status, [UInt8](result.output))
}

public let gzipTool =
    ["/usr/bin/gzip", "/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/gzip"

/// Deterministic test data.
public enum Sample {
    /// A JSON surface snapshot-like document of about `count` bytes.
    public static func json(_ count: Int) -> [UInt8] {
        var text = "{\"surface\":["
        var i = 0
        while text.utf8.count < count {
            text +=
                "{\"id\":\"row-\(i)\",\"label\":\"مرحبا \(i * 7919 % 1000)\",\"frame\":[\(i % 390),\(i * 44 % 844),390,44],\"traits\":[\"button\"]},"
            i += 1
        }
        return Array(text.utf8.prefix(count))
    }

    /// Pseudo-random bytes (xorshift), incompressible.
    public static func noise(_ count: Int, seed: UInt64 = 0x9e37_79b9_7f4a_7c15) -> [UInt8] {
        var state = seed
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            var i = 0
            while i < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                withUnsafeBytes(of: state) { word in
                    for b in word where i < count {
                        raw[i] = b
                        i += 1
                    }
                }
            }
        }
        return out
    }
}
