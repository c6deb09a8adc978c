import Artifacts
import FlowSpec
import FlowVocabulary
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Reads a command's stdout and stderr until both close, compressing them as they come (memory: one 64 KiB buffer,
/// the compressed output and a stderr tail), enforces the deadline, reaps the command and ends what it left running
/// (`ProcessTree`). Runs on its own thread.
struct OutputPump {
    let child: SpawnedChild
    let settings: CommandSettings
    let deadline: ContinuousClock.Instant?
    private var tail: [UInt8] = []
    private var status: Int32?
    private var timedOut = false
    private var killed = false
    private var exitedAt: ContinuousClock.Instant?
    /// What was still running once the command itself had ended (and was ended then).
    private var leftBehind: [LeftProcess] = []
    /// Output that could not be kept (a compressor error): said in the attempt's artifacts, never silently lost.
    private var problems: [String] = []

    init(child: SpawnedChild, settings: CommandSettings, deadline: ContinuousClock.Instant?) {
        self.child = child
        self.settings = settings
        self.deadline = deadline
    }

    mutating func run(isCancelled: () -> Bool) -> CommandOutcome {
        var streams = [stream("stdout.log"), stream("stderr.log")]
        var fds = [pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: child.stderrFD, events: Int16(POLLIN), revents: 0)]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer {
            buffer.deallocate()
            close(child.stdoutFD)
            close(child.stderrFD)
        }
        while fds.contains(where: { $0.fd >= 0 }) {
            let rc = poll(&fds, nfds_t(fds.count), pollTimeout())
            if rc < 0 && errno != EINTR { break }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, buffer.baseAddress, buffer.count)
                if n > 0 {
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                    do { try streams[i]?.write(bytes) } catch {
                        problems.append("\(streams[i]?.name ?? "output"): \(error); the rest was not kept")
                        streams[i] = nil
                    }
                    if i == 1 { keepTail(bytes) }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    fds[i].fd = -1
                }
            }
            checkLimits(isCancelled: isCancelled)
            // Once the command exited, what it left running (which may hold the output open) is ended on reaping it.
            if status == nil, rc == 0 || fds.contains(where: { $0.fd >= 0 }) { reap(blocking: false) }
            if status != nil, fds.contains(where: { $0.fd >= 0 }) {
                // Held open by a process that could not be ended or told apart (an inherited pipe): stop waiting.
                exitedAt = exitedAt ?? .now
                if let exitedAt, ContinuousClock.now - exitedAt > settings.drainAfterExit { break }
            }
        }
        while status == nil {
            reap(blocking: deadline == nil)
            if status == nil {
                checkLimits(isCancelled: isCancelled)
                _ = poll(nil, 0, Int32(settings.exitCheckInterval.milliseconds))
            }
        }
        return CommandOutcome(
            pid: child.pid, exitStatus: exitStatus, signal: exitSignal, timedOut: timedOut, cancelled: isCancelled(),
            duration: .zero, stdout: finish(streams[0]), stderr: finish(streams[1]), stderrTail: tailText(),
            outputProblems: problems, leftBehind: leftBehind)
    }

    private mutating func stream(_ name: String) -> ArtifactStream? {
        do { return try ArtifactStream(name: name, maxCompressedSize: settings.maxCompressedOutput) } catch {
            problems.append("\(name): \(error); not kept")
            return nil
        }
    }

    private mutating func finish(_ stream: ArtifactStream?) -> CompressedArtifact? {
        guard let stream else { return nil }
        do { return try stream.finish(step: 0) } catch {
            problems.append("\(stream.name): \(error); not kept")
            return nil
        }
    }

    private func pollTimeout() -> Int32 {
        var ms = Int32(settings.exitCheckInterval.milliseconds)
        if let deadline {
            let left = deadline - ContinuousClock.now
            ms = min(ms, Int32(max(0, left.milliseconds.rounded(.up))))
        }
        return ms
    }

    private mutating func checkLimits(isCancelled: () -> Bool) {
        if let deadline, !timedOut, ContinuousClock.now >= deadline {
            timedOut = true
            killGroup()
        }
        if isCancelled() && !killed { killGroup() }
    }

    private mutating func killGroup() {
        killed = true
        _ = kill(-child.pid, SIGKILL)
    }

    private mutating func reap(blocking: Bool) {
        var raw: Int32 = 0
        let r = waitpid(child.pid, &raw, blocking ? 0 : WNOHANG)
        guard r == child.pid || (r < 0 && errno != EINTR) else { return }
        status = raw
        ProcessTree.reaped(child.pid)
        // Whatever the command left running ends with it: its group, and (Linux) what left the group.
        leftBehind = ProcessTree.endLeftovers(tag: child.tag, group: child.pid, groupKilled: killed)
        killed = true
    }

    private var exitStatus: Int32? {
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    private var exitSignal: Int32? {
        guard let status, status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    private mutating func keepTail(_ bytes: UnsafeRawBufferPointer) {
        let limit = settings.stderrTailBytes
        if bytes.count >= limit {
            tail = Array(bytes.suffix(limit))
        } else {
            tail.append(contentsOf: bytes)
            if tail.count > 2 * limit { tail.removeFirst(tail.count - limit) }
        }
    }

    /// The kept end of stderr, from its first whole line.
    private func tailText() -> String {
        var bytes = tail.suffix(settings.stderrTailBytes)
        if bytes.count == settings.stderrTailBytes, let newline = bytes.firstIndex(of: 0x0A) {
            bytes = bytes[(newline + 1)...]
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
