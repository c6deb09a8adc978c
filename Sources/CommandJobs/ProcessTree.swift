import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A process a command left running when it ended (or when its job ended it).
public struct LeftProcess: Sendable, Hashable {
    /// Nil where the system cannot name the processes (macOS: only "its process group had some").
    public var pid: Int32?
    /// Its command line, shortened (`sleep 300`).
    public var command: String
    /// It was ended (false: it could not be, e.g. a set-user-ID program).
    public var ended: Bool
}

/// Every process a command starts is ended when its job ends, even one that left the command's process group.
///
/// Each command carries a mark in its environment (`FLOWMATRIX_COMMAND_TAG`), which its descendants inherit. On Linux
/// the worker is a *child subreaper* (`PR_SET_CHILD_SUBREAPER`): a descendant whose parent exits — a `setsid` or
/// double-forked daemon — becomes the worker's child instead of init's. So once a command exited, whatever it left
/// running hangs below the worker: the worker's children other than the commands it started are looked at, and every
/// process below them that carries the command's mark, or descends from one that does, is killed and reaped. A
/// process that both left the command's session and cleared its environment cannot be told apart from anyone
/// else's and is left alone.
///
/// Elsewhere (macOS has no subreaper) only the command's process group is killed; whether it still had processes is
/// all that can be said. See docs/COMMAND-JOBS.md, "Processes a command leaves behind".
enum ProcessTree {
    /// The environment variable that marks a command's processes.
    static let tagVariable = "FLOWMATRIX_COMMAND_TAG"

    private static let serial = Atomic<Int>(0)
    /// The commands this process started and has not reaped yet (not leftovers, whoever's they look like).
    private static let commands = Mutex<Set<Int32>>([])

    /// A mark no other command of this worker has: `<worker pid>.<n>`.
    static func newTag() -> String { "\(getpid()).\(serial.add(1, ordering: .relaxed).newValue)" }

    /// Before the first command starts: become the subreaper of this process's descendants (Linux; once).
    static func prepare() { _ = adoptsOrphans }

    /// True when orphaned descendants become this process's children (Linux, once `prepare()` ran).
    static let adoptsOrphans: Bool = {
        #if os(Linux)
            // PR_SET_CHILD_SUBREAPER (Linux 3.4+). A failure (a sandbox) leaves the process-group kill only.
            return Libc.prctl?(36, 1, 0, 0, 0) == 0
        #else
            return false
        #endif
    }()

    /// `pid` is a command this process started (its own pump reaps it).
    static func started(_ pid: Int32) { _ = commands.withLock { $0.insert(pid) } }

    /// `pid`, a command, was reaped.
    static func reaped(_ pid: Int32) { _ = commands.withLock { $0.remove(pid) } }

    /// Ends the processes of the command marked `tag` whose process group is `group`, once the command itself exited
    /// (or was killed) and was reaped, and says which were still running.
    /// - Parameters:
    ///   - groupKilled: the group was killed already (time limit, cancellation): its members are not reported.
    ///   - settle: how long to keep ending processes that fork while they are ended.
    static func endLeftovers(tag: String, group: Int32, groupKilled: Bool, settle: Duration = .seconds(2))
        -> [LeftProcess]
    {
        #if os(Linux)
            if adoptsOrphans { return LinuxProcessTree.endLeftovers(tag: tag, group: group, groupKilled: groupKilled,
                                                                    commands: commands.withLock { $0 }, settle: settle) }
        #endif
        let running = !groupKilled && kill(-group, 0) == 0
        _ = kill(-group, SIGKILL)
        return running ? [LeftProcess(pid: nil, command: "processes of its process group", ended: true)] : []
    }
}

#if os(Linux)
    /// The Linux side of `ProcessTree`: `/proc`, read directly.
    enum LinuxProcessTree {
        struct Entry {
            let pid: Int32
            let ppid: Int32
            let pgid: Int32
            let session: Int32
            let zombie: Bool
        }

        static func endLeftovers(tag: String, group: Int32, groupKilled: Bool, commands: Set<Int32>, settle: Duration)
            -> [LeftProcess]
        {
            let me = getpid()
            let deadline = ContinuousClock.now + settle
            var reported: [Int32: LeftProcess] = [:]
            var order: [Int32] = []
            var first = true
            while true {
                let foreign = children(of: me).subtracting(commands)
                let table = foreign.isEmpty ? [:] : processes()
                let owned = ownedBelow(foreign, table: table, tag: Array("\(ProcessTree.tagVariable)=\(tag)".utf8))
                if first {
                    for p in owned where !p.zombie && !(groupKilled && p.pgid == group) {
                        reported[p.pid] = LeftProcess(pid: p.pid, command: commandLine(p.pid), ended: true)
                        order.append(p.pid)
                    }
                    _ = kill(-group, SIGKILL)
                    first = false
                }
                reapStrays(foreign, table: table, owned: Set(owned.map(\.pid)), me: me)
                for p in owned where p.zombie && p.ppid == me { reap(p.pid) }
                let running = owned.filter { !$0.zombie }
                if owned.isEmpty { break }
                if ContinuousClock.now >= deadline {
                    for p in running { reported[p.pid]?.ended = false }
                    break
                }
                for p in running { _ = kill(p.pid, SIGKILL) }
                _ = poll(nil, 0, 5)
            }
            return order.compactMap { reported[$0] }
        }

        /// The processes below `roots` (themselves included) that carry `tag` or descend from one that does.
        static func ownedBelow(_ roots: Set<Int32>, table: [Int32: Entry], tag: [UInt8]) -> [Entry] {
            guard !roots.isEmpty else { return [] }
            var children: [Int32: [Int32]] = [:]
            for e in table.values { children[e.ppid, default: []].append(e.pid) }
            var owned: [Entry] = []
            var queue = roots.map { ($0, false) }
            while let (pid, inherited) = queue.popLast() {
                guard let entry = table[pid] else { continue }
                let mine = inherited || (!entry.zombie && carries(pid, tag: tag))
                if mine { owned.append(entry) }
                queue += (children[pid] ?? []).map { ($0, mine) }
            }
            return owned
        }

        /// Zombies this process adopted (orphans that exited by themselves) that no one else will wait for: not a
        /// command's, not a group leader of this process's session (what `posix_spawn` with its own group, as
        /// other spawners here use, makes: their spawner reaps those).
        static func reapStrays(_ foreign: Set<Int32>, table: [Int32: Entry], owned: Set<Int32>, me: Int32) {
            let session = getsid(0)
            for pid in foreign where !owned.contains(pid) {
                guard let e = table[pid], e.zombie, e.ppid == me, !(e.pgid == pid && e.session == session) else { continue }
                reap(pid)
            }
        }

        static func reap(_ pid: Int32) {
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) < 0 && errno == EINTR {}
        }

        /// This process's children (every thread's: an adopted orphan goes to any of them).
        static func children(of me: Int32) -> Set<Int32> {
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"),
                  FileManager.default.fileExists(atPath: "/proc/self/task/\(me)/children")
            else {
                // A kernel without /proc/<pid>/task/<tid>/children: the whole table says the same, more slowly.
                return Set(processes().values.filter { $0.ppid == me }.map(\.pid))
            }
            var out = Set<Int32>()
            for task in tasks {
                guard let bytes = read("/proc/self/task/\(task)/children", limit: 1 << 20) else { continue }
                for word in bytes.split(separator: 0x20) { if let pid = Int32(String(decoding: word, as: UTF8.self)) { out.insert(pid) } }
            }
            return out
        }

        /// Every process's parent, group, session and whether it is a zombie.
        static func processes() -> [Int32: Entry] {
            var table: [Int32: Entry] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(name), let entry = entry(pid) else { continue }
                table[pid] = entry
            }
            return table
        }

        /// `/proc/<pid>/stat`: `pid (comm) state ppid pgrp session …` (comm may hold spaces and parentheses).
        static func entry(_ pid: Int32) -> Entry? {
            guard let bytes = read("/proc/\(pid)/stat", limit: 4096), let close = bytes.lastIndex(of: UInt8(ascii: ")"))
            else { return nil }
            let fields = bytes[(close + 1)...].split(separator: 0x20)
            guard fields.count > 4, let state = fields[0].first,
                  let ppid = Int32(String(decoding: fields[1], as: UTF8.self)),
                  let pgid = Int32(String(decoding: fields[2], as: UTF8.self)),
                  let session = Int32(String(decoding: fields[3], as: UTF8.self))
            else { return nil }
            return Entry(pid: pid, ppid: ppid, pgid: pgid, session: session,
                         zombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
        }

        /// True when `pid`'s environment holds `tag` (`NAME=value`) as a whole entry.
        static func carries(_ pid: Int32, tag: [UInt8]) -> Bool {
            guard let environment = read("/proc/\(pid)/environ", limit: 4 << 20) else { return false }
            return environment.split(separator: 0).contains { $0.elementsEqual(tag) }
        }

        /// `pid`'s command line, arguments joined by spaces, at most 80 characters.
        static func commandLine(_ pid: Int32) -> String {
            let bytes = read("/proc/\(pid)/cmdline", limit: 4096) ?? []
            var text = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            if text.isEmpty { text = String(decoding: read("/proc/\(pid)/comm", limit: 64) ?? [], as: UTF8.self) }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return text.count > 80 ? String(text.prefix(79)) + "…" : text
        }

        /// The bytes of a `/proc` file, at most `limit`; nil when it cannot be opened.
        static func read(_ path: String, limit: Int) -> [UInt8]? {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while out.count < limit {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                out += chunk[0..<n]
            }
            return out
        }
    }
#endif
