import Foundation
import ProcessSpawn
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a browser is started.
public struct BrowserSettings: Sendable, Hashable {
    /// The browser executable; nil finds one (`FLOWMATRIX_CHROMIUM`, then Debian's and the usual install paths).
    public var executable: String?
    /// Extra command-line switches, after the ones the client needs.
    public var extraArguments: [String]
    /// The longest a command may wait for its answer unless it names its own limit (default 30 s).
    public var commandTimeout: Duration
    /// The longest the browser may take to answer its first command (default 60 s: a cold start on a loaded machine).
    public var launchTimeout: Duration

    public init(
        executable: String? = nil, extraArguments: [String] = [], commandTimeout: Duration = .seconds(30),
        launchTimeout: Duration = .seconds(60)
    ) {
        self.executable = executable
        self.extraArguments = extraArguments
        self.commandTimeout = commandTimeout
        self.launchTimeout = launchTimeout
    }

    /// The executable `launch` uses: `executable`, `FLOWMATRIX_CHROMIUM`, or the first that exists of the usual
    /// paths (Debian's real binary before its wrapper script, so the process we signal is the browser itself).
    public func resolvedExecutable() -> String? {
        if let executable { return executable }
        if let env = ProcessInfo.processInfo.environment["FLOWMATRIX_CHROMIUM"], !env.isEmpty { return env }
        #if canImport(Darwin)
            let candidates = [
                "/Applications/Chromium.app/Contents/MacOS/Chromium",
                "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            ]
        #else
            let candidates = [
                "/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
        #endif
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// The switches for a headless browser speaking DevTools on fds 3 and 4, with its profile in `profile`.
    public static func arguments(profile: String, extra: [String]) -> [String] {
        var args = [
            "--headless=new", "--remote-debugging-pipe", "--user-data-dir=\(profile)",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-breakpad",
            "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--password-store=basic",
            "--use-mock-keychain", "--disable-features=Translate,MediaRouter,OptimizationHints",
            // Parallel contexts are background pages to Chromium: without these its timers are throttled.
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows", "--font-render-hinting=none",
            // A camera and microphone for pages that were allowed them (no real devices on a server).
            "--use-fake-device-for-media-stream",
            // `Element.computedName` / `computedRole`: the accessibility audit reads the names of the page's controls
            // from Chromium's own accessibility engine in the page, not from the whole tree (docs/ACCESSIBILITY.md).
            "--enable-blink-features=ComputedAccessibilityInfo",
        ]
        if geteuid() == 0 { args.append("--no-sandbox") }  // Chromium refuses to run its sandbox as root.
        // Site-specific switches (e.g. --ignore-certificate-errors for a staging host), space-separated.
        if let env = ProcessInfo.processInfo.environment["FLOWMATRIX_CHROMIUM_ARGS"] {
            args += env.split(separator: " ").map(String.init)
        }
        return args + extra + ["about:blank"]
    }
}

/// A browser process whose DevTools pipe is on its fds 3 (it reads commands) and 4 (it writes messages), started
/// by `ProcessSpawner` (Foundation's `Process` closes every fd above 2 in the child on Linux), in a process group
/// of its own so that `terminate()` ends its helper processes too, with a temporary profile removed afterwards.
public final class BrowserProcess: Sendable {
    public let pid: pid_t
    /// Our end of the pipe the browser reads (its fd 3).
    public let commandFD: Int32
    /// Our end of the pipe the browser writes (its fd 4).
    public let messageFD: Int32
    /// The temporary profile directory (also holds `browser.log`, the browser's stdout and stderr).
    public let profileDirectory: String
    private let ended = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` (the client's switches and the profile are added by the caller).
    /// - Throws: `.launchFailed` when the pipes cannot be made or the process cannot be spawned.
    public init(executable: String, settings: BrowserSettings) throws(DevToolsError) {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowmatrix-chromium-\(UUID().uuidString)"
        ).path
        do {
            try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        } catch {
            throw DevToolsError(.launchFailed, "cannot create the browser profile directory \(profile): \(error)")
        }
        let toBrowser = try Self.makePipe()
        let fromBrowser: (read: Int32, write: Int32)
        do { fromBrowser = try Self.makePipe() } catch {
            close(toBrowser.read)
            close(toBrowser.write)
            throw error
        }
        let spec = ChildSpec(
            program: executable,
            arguments: [executable] + BrowserSettings.arguments(profile: profile, extra: settings.extraArguments),
            environment: ProcessInfo.processInfo.environment, newProcessGroup: true,
            descriptors: [
                0: .nullDevice, 1: .file(profile + "/browser.log"), 2: .child(1),
                3: .descriptor(toBrowser.read), 4: .descriptor(fromBrowser.write),
            ])
        let pid: pid_t
        do throws(SpawnError) {
            pid = try ProcessSpawner.spawn(spec)
        } catch {
            for fd in [toBrowser.read, toBrowser.write, fromBrowser.read, fromBrowser.write] { close(fd) }
            try? FileManager.default.removeItem(atPath: profile)
            throw DevToolsError(.launchFailed, error.message)
        }
        // The child's ends are the child's now.
        close(toBrowser.read)
        close(fromBrowser.write)
        self.pid = pid
        commandFD = toBrowser.write
        messageFD = fromBrowser.read
        profileDirectory = profile
    }

    deinit { terminate() }

    /// A pipe whose ends close on exec (the child gets its copies on fds 3 and 4; no other child inherits them).
    private static func makePipe() throws(DevToolsError) -> (read: Int32, write: Int32) {
        do { return try ProcessSpawner.pipe() } catch { throw DevToolsError(.launchFailed, error.message) }
    }

    /// True until the process has been reaped.
    ///
    /// An exited browser is observed, not reaped (`WNOWAIT`): until `terminate` reaps it, its zombie keeps its pid
    /// and its process group's id ours, so `terminate`'s signals cannot reach a process that reused the number (the
    /// kernel recycles pids, after 32,768 of them on many Linux machines).
    public var isRunning: Bool {
        ended.withLock { status in
            if status != nil { return false }
            var info = siginfo_t()
            let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if r == 0 && info.si_signo == SIGCHLD { return false }
            if r < 0 && errno == ECHILD {
                status = 0
                return false
            }
            return true
        }
    }

    /// Kills the browser's process group, reaps the browser and removes the profile. Idempotent; from any thread.
    /// The pipe's fds belong to the `DevToolsConnection`, which closes them.
    public func terminate() {
        let first = terminated.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        ended.withLock { status in
            // Not reaped yet (only terminate reaps): the pid and the group id are still this browser's.
            guard status == nil else { return }
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
        try? FileManager.default.removeItem(atPath: profileDirectory)
    }

    private let terminated = Mutex(false)

    /// Sends `signal` to the browser process alone (tests kill it to simulate a crash).
    public func signal(_ signal: Int32) { kill(pid, signal) }
}
