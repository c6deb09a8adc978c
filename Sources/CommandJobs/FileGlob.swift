import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The files a command job's `results` and `artifacts` patterns name (`glob(3)`: `*`, `?`, `[…]`), relative to its
/// working directory unless absolute.
enum FileGlob {
    static func expand(_ pattern: String, base: String) -> [String] {
        let full = pattern.hasPrefix("/") ? pattern : (base.hasSuffix("/") ? base : base + "/") + pattern
        var matches = glob_t()
        defer { globfree(&matches) }
        guard glob(full, 0, nil, &matches) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(matches.gl_pathc) {
            if let p = matches.gl_pathv[i] { paths.append(String(cString: p)) }
        }
        var isFolder: ObjCBool = false
        return paths.filter { FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
    }

    /// The artifact name of a collected file: its path below the attempt's output folder or the working directory
    /// (`/` as `-`), else its file name.
    static func artifactName(_ path: String, roots: [String]) -> String {
        for root in roots {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            if path.hasPrefix(prefix) { return path.dropFirst(prefix.count).replacingOccurrences(of: "/", with: "-") }
        }
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    static func mediaType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "xml": "application/xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "json": "application/json"
        case "html": "text/html"
        case "gz": "application/gzip"
        case "zip": "application/zip"
        default: "text/plain"
        }
    }
}
