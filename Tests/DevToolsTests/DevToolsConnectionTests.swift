import DevTools
import Foundation
import Synchronization
import Testing

/// Waits for `condition` to hold, checking each time something may have changed (here: every 10 ms of yielding),
/// up to `timeout`. A wait for a condition, never a fixed sleep.
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite("DevTools connection against a misbehaving pipe peer")
struct DevToolsConnectionTests {
    @Test(
        "malformed and unexpected messages are recorded, commands still answer, a silent command times out, exit is detected"
    )
    func misbehavingPeer() async throws {
        let fake = try FakeBrowser.install()
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let process = try FakeBrowser.start(fake.executable)
        defer { process.terminate() }
        let connection = DevToolsConnection(readFD: process.messageFD, writeFD: process.commandFD)
        defer { connection.closeWriter() }

        let answer = try await connection.send("Echo.this", ["x": 1], session: "S9")
        #expect(answer["echo"]?.string == "Echo.this")
        #expect(await eventually { connection.protocolErrors.count == 2 })
        let codes = connection.protocolErrors.recent.map(\.code)
        #expect(codes == [.malformedMessage, .unexpectedMessage])

        await #expect(throws: DevToolsError.self) {
            _ = try await connection.send("Never.answer", timeout: .milliseconds(200))
        }
        do {
            _ = try await connection.send("Never.answer", timeout: .milliseconds(100))
        } catch let error as DevToolsError {
            #expect(error.code == .timedOut)
            #expect(error.message.contains("Never.answer"))
        }

        let closed = Mutex<DevToolsError?>(nil)
        connection.onClose { error in closed.withLock { $0 = error } }
        async let pending: JSONValue = connection.send("Never.answer", timeout: .seconds(30))
        connection.sendIgnoringReply("Process.exit")
        do {
            _ = try await pending
            Issue.record("a command pending when the peer exited must fail")
        } catch let error as DevToolsError {
            #expect(error.code == .browserClosed)
        }
        // The reader thread fails the pending commands first, then runs the close handlers: wait for them.
        #expect(await eventually { closed.withLock { $0?.code } == .browserClosed })
        await #expect(throws: DevToolsError.self) { _ = try await connection.send("Echo.after") }
    }

    @Test("a missing executable is a launch failure")
    func missingExecutable() async {
        do {
            _ = try await Browser.launch(BrowserSettings(executable: "/nonexistent/chromium"))
            Issue.record("launch must fail")
        } catch let error as DevToolsError {
            #expect(error.code == .launchFailed)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
