import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The descriptors a worker inherited beyond stdin, stdout and stderr — the socket through which a parent that used
/// Foundation's `Process` (`flowmatrix run`) learns of the worker's exit, anything else its parent leaked — are marked
/// close-on-exec when the worker starts: a program a registry starts (a browser, a command) must not hold them, or
/// the parent waits for that program's end as for the worker's. Everything the worker opens itself is close-on-exec.
enum InheritedDescriptors {
    static func closeOnExec() {
        #if os(Linux)
            let folder = "/proc/self/fd"
        #else
            let folder = "/dev/fd"
        #endif
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let fd = Int32(name), fd > 2 else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
