import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Facts about this process and its children, in one place: Linux reads /proc, other systems use what is portable
/// (figures a platform cannot give are 0, and the benches say "unavailable").
package enum ProcessFacts {
    /// This executable, to start `flowmatrix worker` children.
    package static var executable: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
    }

    /// The `flowmatrix` executable: this one, whatever it is named (a copy installed as `fm` starts `fm worker`), or
    /// the one beside it when this is `flowmatrix-bench` (the benches start `flowmatrix serve` and `flowmatrix worker`
    /// children).
    package static var flowmatrix: URL { flowmatrix(running: executable) }

    /// ``flowmatrix`` when the running executable is `own`.
    package static func flowmatrix(running own: URL) -> URL {
        own.lastPathComponent.hasPrefix("flowmatrix-bench")
            ? own.deletingLastPathComponent().appendingPathComponent("flowmatrix") : own
    }

    /// This process's resident set size now, in bytes.
    package static func residentBytes() -> Int {
        #if os(Linux)
        return resident(statm: "/proc/self/statm")
        #else
        return peakResidentBytes()
        #endif
    }

    /// Resident bytes from a Linux `statm` file (its second field, in pages); 0 when unreadable.
    private static func resident(statm path: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The peak resident set size of this process (`who` = self) or of its reaped children, in bytes.
    package static func peakResidentBytes(children: Bool = false) -> Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024  // KiB on Linux
        #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }

    /// User + system CPU seconds of this process, or of its reaped children.
    package static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
        #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User + system CPU seconds of a running process (0 where the platform cannot tell).
    package static func cpuSeconds(_ pid: Int32) -> Double {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
        return 0
        #endif
    }

    /// The resident set size of a running process now, in bytes (0 where the platform cannot tell).
    package static func residentBytes(_ pid: Int32) -> Int {
        #if os(Linux)
        return resident(statm: "/proc/\(pid)/statm")
        #else
        return 0
        #endif
    }

    /// The open file descriptors of a running process (0 where the platform cannot tell).
    package static func openFiles(_ pid: Int32) -> Int {
        #if os(Linux)
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        #else
        return 0
        #endif
    }

    /// The peak resident set size of a running process, in bytes (0 where the platform cannot tell).
    package static func peakRSS(_ pid: Int32) -> Int {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
        #else
        return 0
        #endif
    }

    /// Starts `flowmatrix args…` (`flowmatrix` beside this executable) in `directory` with its output discarded: the benches' serve and
    /// worker processes.
    package static func startFlowmatrix(_ args: [String], in directory: URL) throws -> Process {
        try start(flowmatrix, args, in: directory)
    }

    /// Starts `program args…` in `directory` with its output discarded, or its standard output written to `output`
    /// (the benches' `test-worker` and `serve` processes).
    package static func start(_ program: URL, _ args: [String], in directory: URL, output: URL? = nil) throws -> Process {
        let p = Process()
        p.executableURL = program
        p.arguments = args
        p.currentDirectoryURL = directory
        if let output {
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw CommandFailure("cannot create \(output.path)")
            }
            p.standardOutput = try FileHandle(forWritingTo: output)
        } else {
            p.standardOutput = FileHandle.nullDevice
        }
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs a program to completion with stderr discarded and returns its exit status and standard output (the
    /// benches' peers and drivers print one JSON or number there).
    package static func runCapturing(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
