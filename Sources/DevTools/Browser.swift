import Foundation

/// A running headless browser and its DevTools connection.
///
/// `launch` starts the process and waits for its first answer; `newPage` makes an isolated browser context (its own
/// cookies, storage and cache) with one page attached as a flattened session; `close` ends the process group.
public final class Browser: Sendable {
    public let process: BrowserProcess
    public let connection: DevToolsConnection
    /// The browser's own user agent (kept when a page overrides only its languages).
    public let userAgent: String
    /// The browser's product string, e.g. `Chrome/156.0.8078.114`.
    public let product: String

    private init(process: BrowserProcess, connection: DevToolsConnection, userAgent: String, product: String) {
        self.process = process
        self.connection = connection
        self.userAgent = userAgent
        self.product = product
    }

    deinit { close() }

    /// Starts a browser and waits until it answers.
    /// - Throws: `.launchFailed` when no executable is found, the spawn fails, or the browser never answers.
    public static func launch(_ settings: BrowserSettings = BrowserSettings()) async throws -> Browser {
        guard let executable = settings.resolvedExecutable() else {
            throw DevToolsError(
                .launchFailed, "no Chromium found: install Debian's `chromium` or set FLOWMATRIX_CHROMIUM")
        }
        let process = try BrowserProcess(executable: executable, settings: settings)
        let connection = DevToolsConnection(
            readFD: process.messageFD, writeFD: process.commandFD,
            defaultTimeout: settings.commandTimeout)
        do {
            let version = try await connection.send("Browser.getVersion", timeout: settings.launchTimeout)
            return Browser(
                process: process, connection: connection, userAgent: version["userAgent"]?.string ?? "",
                product: version["product"]?.string ?? "")
        } catch {
            let log = (try? String(contentsOfFile: process.profileDirectory + "/browser.log", encoding: .utf8)) ?? ""
            process.terminate()
            connection.closeWriter()
            let tail = log.split(separator: "\n").suffix(5).joined(separator: " | ")
            throw DevToolsError(
                .launchFailed,
                "\(executable) did not answer on its DevTools pipe: \(error)"
                    + (tail.isEmpty ? "" : "; its log ends: \(tail)"))
        }
    }

    /// True while the process runs and its pipe is open.
    public var isAlive: Bool { connection.closedBy == nil && process.isRunning }

    /// Opens a fresh browser context with one blank page attached as a flattened session.
    public func newPage() async throws -> PageTarget {
        let context = try await connection.send("Target.createBrowserContext", ["disposeOnDetach": true])
        guard let contextID = context["browserContextId"]?.string else {
            throw DevToolsError(.malformedMessage, "Target.createBrowserContext answered without browserContextId")
        }
        do {
            let target = try await connection.send(
                "Target.createTarget", ["url": "about:blank", "browserContextId": .string(contextID)])
            guard let targetID = target["targetId"]?.string else {
                throw DevToolsError(.malformedMessage, "Target.createTarget answered without targetId")
            }
            let attached = try await connection.send(
                "Target.attachToTarget", ["targetId": .string(targetID), "flatten": true])
            guard let sessionID = attached["sessionId"]?.string else {
                throw DevToolsError(.malformedMessage, "Target.attachToTarget answered without sessionId")
            }
            return PageTarget(connection: connection, contextID: contextID, targetID: targetID, sessionID: sessionID)
        } catch {
            connection.sendIgnoringReply("Target.disposeBrowserContext", ["browserContextId": .string(contextID)])
            throw error
        }
    }

    /// Ends the browser (its whole process group) and removes its profile. Idempotent.
    public func close() {
        connection.closeWriter()
        process.terminate()
    }
}

/// One page in its own browser context, driven through a flattened session.
public struct PageTarget: Sendable {
    public let connection: DevToolsConnection
    public let contextID: String
    public let targetID: String
    public let sessionID: String

    /// Sends a command to this page's session.
    public func send(_ method: String, _ params: JSONValue = [:], timeout: Duration? = nil) async throws -> JSONValue {
        try await connection.send(method, params, session: sessionID, timeout: timeout)
    }

    /// Routes this page's events to `handler` (on the reader thread).
    public func subscribe(_ handler: @escaping DevToolsConnection.EventHandler) {
        connection.subscribe(session: sessionID, handler)
    }

    /// Disposes the page's browser context (closing the page) and waits for the answer.
    public func dispose() async throws {
        connection.unsubscribe(session: sessionID)
        _ = try await connection.send("Target.disposeBrowserContext", ["browserContextId": .string(contextID)])
    }

    /// Disposes the context without waiting (for deinits).
    public func disposeIgnoringReply() {
        connection.unsubscribe(session: sessionID)
        connection.sendIgnoringReply("Target.disposeBrowserContext", ["browserContextId": .string(contextID)])
    }
}
