import Foundation

/// What went wrong with a file, in a person's words: the one place a Foundation file error (a `CocoaError`, whose
/// own text on Linux is "The operation could not be completed. (NSCocoaErrorDomain error 512.)") or a POSIX error
/// becomes a phrase. Callers name the path and the operation: "cannot write \(path): \(FileErrorText.reason(error))".
public enum FileErrorText {
    /// A short lowercase phrase for why `error` happened (no path, no error domain or number when a phrase is known).
    public static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return phrase(errno: posix.code.rawValue) ?? posix.localizedDescription }
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let text = phrase(errno: Int32(underlying.code)) {
            return text
        }
        if ns.domain == NSPOSIXErrorDomain, let text = phrase(errno: Int32(ns.code)) { return text }
        guard ns.domain == NSCocoaErrorDomain else { return ns.localizedDescription }
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "the disk is full"
        case .fileWriteFileExists: return "something is already there"
        case .fileWriteVolumeReadOnly: return "the file system is read-only"
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "the name is not a valid file name"
        case .fileReadTooLarge: return "the file is too large to read"
        case .fileReadCorruptFile: return "the file is damaged or not in the expected format"
        case .fileReadUnknownStringEncoding, .fileReadInapplicableStringEncoding: return "the file is not UTF-8 text"
        case .fileLocking: return "the file is locked"
        default:
            let text = ns.localizedDescription
            guard text.contains(NSCocoaErrorDomain) else { return text }
            return (ns.userInfo[NSFilePathErrorKey] as? String).flatMap(diagnosis(of:))
                ?? "the file system refused (it gave no reason)"
        }
    }

    /// An error as a person reads it when no caller said what it was doing: a Foundation file error (Cocoa or POSIX)
    /// as "<path>: <reason>" (or the reason alone when it names no path), anything else as it describes itself.
    public static func sentence(_ error: any Error) -> String {
        let ns = error as NSError
        guard error is CocoaError || error is POSIXError || ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain
        else { return "\(error)" }
        let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        return path.map { "\($0): \(reason(error))" } ?? reason(error)
    }

    /// Why `path` cannot be made, found by looking at it when Foundation gave no reason (it does not, on Linux, for
    /// a folder asked for below a file): a part of the path that is a file, or a nearest folder not writable.
    static func diagnosis(of path: String) -> String? {
        var url = URL(fileURLWithPath: path)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if !isFolder.boolValue { return "\(url.path) is a file, not a folder" }
            return access(url.path, W_OK) == 0 ? nil : "the folder \(url.path) cannot be written"
        }
        return nil
    }

    /// The phrase for a POSIX error number, or nil for one without a plainer phrase than `strerror`'s.
    static func phrase(errno code: Int32) -> String? {
        switch code {
        case ENOENT: return "no such file or folder"
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "the disk is full"
        case EDQUOT: return "the disk quota is used up"
        case EEXIST: return "something is already there"
        case ENOTDIR: return "a part of the path is a file, not a folder"
        case EISDIR: return "it is a folder, not a file"
        case EROFS: return "the file system is read-only"
        case ENAMETOOLONG: return "the name is too long"
        default: return code > 0 ? String(cString: strerror(code)) : nil
        }
    }
}
