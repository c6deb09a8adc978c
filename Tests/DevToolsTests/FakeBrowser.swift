import DevTools
import Foundation

/// A stand-in browser: a Python script that speaks the pipe protocol on fds 3 and 4 and misbehaves on purpose.
/// It ignores its arguments; it first writes a malformed message and an answer to an id nobody sent, then answers
/// every command `{"echo": method}`, except `Never.answer` (ignored) and `Process.exit` (it exits).
enum FakeBrowser {
    static let script = #"""
        #!/usr/bin/env python3
        import json, os, sys
        os.write(4, b"this is not json\0" + b'{"id":424242,"result":{}}\0')
        buf = b""
        while True:
            chunk = os.read(3, 65536)
            if not chunk:
                sys.exit(0)
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if msg["method"] == "Never.answer":
                    continue
                if msg["method"] == "Process.exit":
                    os._exit(0)
                reply = {"id": msg["id"], "result": {"echo": msg["method"]}}
                if "sessionId" in msg:
                    reply["sessionId"] = msg["sessionId"]
                os.write(4, json.dumps(reply).encode() + b"\0")
        """#

    /// Starts the fake browser at `executable`. A process another test forks while the script file is being written
    /// may hold it open for a moment (ETXTBSY, "Text file busy"): that is retried, a bounded number of times.
    static func start(_ executable: String) throws -> BrowserProcess {
        var last: DevToolsError?
        for _ in 0..<200 {
            do {
                return try BrowserProcess(executable: executable, settings: BrowserSettings())
            } catch {
                let devtools = error as DevToolsError
                guard devtools.message.contains("Text file busy") else { throw devtools }
                last = devtools
            }
        }
        throw last ?? DevToolsError(.launchFailed, "the fake browser did not start")
    }

    /// Writes the script to a temporary executable file; the caller removes the directory.
    static func install() throws -> (directory: URL, executable: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fake-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("fake-browser").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return (dir, path)
    }
}
