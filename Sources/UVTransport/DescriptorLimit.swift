#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`). Every connection holds a descriptor, so a coordinator serving a
/// fleet needs far more than the common default soft limit of 1,024.
public enum DescriptorLimit {
    /// The soft and hard limits now, or nil when they cannot be read.
    public static var current: (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getNoFileLimit(&limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit (on macOS at most `kern.maxfilesperproc`, as an unlimited hard limit
    /// cannot be granted there). Never lowers it.
    /// - Returns: the soft limit afterwards, or nil when it cannot be read.
    @discardableResult
    public static func raiseSoftLimitToHard() -> UInt64? {
        var limit = rlimit()
        guard getNoFileLimit(&limit) == 0 else { return nil }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
            var perProcess: Int32 = 0
            var size = MemoryLayout<Int32>.size
            if sysctlbyname("kern.maxfilesperproc", &perProcess, &size, nil, 0) == 0, perProcess > 0 {
                wanted = min(wanted, rlim_t(perProcess))
            }
        #endif
        guard wanted > limit.rlim_cur else { return UInt64(limit.rlim_cur) }
        let previous = limit.rlim_cur
        limit.rlim_cur = wanted
        guard setNoFileLimit(&limit) == 0 else { return UInt64(previous) }
        return UInt64(wanted)
    }

    /// Whether this process can open no more descriptors now (`EMFILE` or `ENFILE`): probed by opening `/dev/null`.
    ///
    /// libuv answers an `accept` that fails for lack of descriptors by closing a reserved descriptor, accepting and
    /// closing the waiting connections, and reopening it, without telling the application; the probe is how a
    /// server learns that connections are being refused.
    public static var isExhausted: Bool {
        let fd = open("/dev/null", O_RDONLY)
        guard fd < 0 else {
            close(fd)
            return false
        }
        return errno == EMFILE || errno == ENFILE
    }

    private static func getNoFileLimit(_ limit: inout rlimit) -> Int32 {
        #if canImport(Darwin)
            getrlimit(RLIMIT_NOFILE, &limit)
        #else
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #endif
    }

    private static func setNoFileLimit(_ limit: inout rlimit) -> Int32 {
        #if canImport(Darwin)
            setrlimit(RLIMIT_NOFILE, &limit)
        #else
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #endif
    }
}
