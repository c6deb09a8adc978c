import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A child process to start: its program, arguments, environment, working directory, process group and descriptors.
public struct ChildSpec: Sendable, Hashable {
    /// What one of the child's descriptors is.
    public enum Source: Sendable, Hashable {
        /// `/dev/null`, for reading and writing.
        case nullDevice
        /// A copy of this process's descriptor (it stays open here; the caller closes it after `spawn`).
        case descriptor(Int32)
        /// The file at this path, created or truncated, for writing (mode 0644).
        case file(String)
        /// The same open file as the child's descriptor with this number (e.g. stderr into stdout's log).
        case child(Int32)
    }

    /// The program: a path, or with `searchesPath` a bare name looked up on this process's `PATH`.
    public var program: String
    /// The whole argument vector, `argv[0]` included.
    public var arguments: [String]
    /// `NAME=value` for the child, verbatim: its whole environment.
    public var environment: [String: String]
    /// Nil: this process's working directory.
    public var workingDirectory: String?
    /// A bare program name is looked up on `PATH` (`posix_spawnp`).
    public var searchesPath: Bool
    /// The child leads a process group of its own (pgid = pid), so that killing the group ends what it started.
    public var newProcessGroup: Bool
    /// Which of the child's descriptors gets what. Every other descriptor is closed in the child, whatever this
    /// process holds without close-on-exec.
    public var descriptors: [Int32: Source]

    public init(
        program: String, arguments: [String], environment: [String: String], workingDirectory: String? = nil,
        searchesPath: Bool = false, newProcessGroup: Bool = true,
        descriptors: [Int32: Source] = [0: .nullDevice, 1: .nullDevice, 2: .nullDevice]
    ) {
        self.program = program
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.searchesPath = searchesPath
        self.newProcessGroup = newProcessGroup
        self.descriptors = descriptors
    }
}

/// Why a child process could not start: the system's error number and a plain sentence that tells a missing
/// program from a missing working directory.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    /// `cannot start '<program>': <reason>`.
    public var message: String
    /// The system's error number (`ENOENT`, `EACCES`, `ETXTBSY`, …).
    public var errorNumber: Int32
    public var description: String { message }

    public init(_ message: String, errorNumber: Int32) {
        self.message = message
        self.errorNumber = errorNumber
    }

    /// The error for a spawn of `spec` that failed with `code`.
    init(_ spec: ChildSpec, code: Int32) {
        self.init("cannot start '\(spec.program)': " + Self.reason(code, spec: spec), errorNumber: code)
    }

    /// Why `cwd` cannot be a child's working directory, or nil when it can.
    static func directoryProblem(_ cwd: String) -> String? {
        var isDirectory: ObjCBool = false
        let shown = cwd.hasPrefix("/") ? "'\(cwd)'" : "'\(cwd)' (relative to \(currentDirectory()))"
        guard FileManager.default.fileExists(atPath: cwd, isDirectory: &isDirectory) else {
            return "its working directory \(shown) does not exist"
        }
        return isDirectory.boolValue ? nil : "its working directory \(shown) is not a directory"
    }

    /// The plain reason a spawn failed with `code`: a missing program is not a missing directory.
    static func reason(_ code: Int32, spec: ChildSpec) -> String {
        let program = spec.program
        let cwd = spec.workingDirectory
        // The directory was there a moment ago; if it went away meanwhile, that is the reason.
        if code == ENOENT, let cwd, let problem = directoryProblem(cwd) { return problem }
        let relative = program.hasPrefix("/") ? "" : " (relative to " + (cwd.map { "the working directory '\($0)'" }
            ?? currentDirectory()) + ")"
        switch code {
        case ENOENT where spec.searchesPath && !program.contains("/"):
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            return "no program '\(program)' on the worker's PATH (\(path))"
        case ENOENT:
            return "the program '\(program)' does not exist\(relative)"
        case EACCES:
            return "the program '\(program)' is not executable (or a folder on its path cannot be searched)\(relative)"
        default:
            return String(cString: strerror(code))
        }
    }

    private static func currentDirectory() -> String { FileManager.default.currentDirectoryPath }
}
