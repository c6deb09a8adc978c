/// Why a baseline operation failed: a stable code, a sentence a person can act on, and the CLI's exit code.
public struct BaselineError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// An imported folder has no `manifest.json`.
        case missingManifest = "missing-manifest"
        /// The manifest is not JSON of the baseline folder format, or lists a file outside the folder.
        case badManifest = "bad-manifest"
        /// The manifest lists a picture the folder does not have.
        case missingImage = "missing-image"
        /// A picture is not a readable PNG.
        case corruptImage = "corrupt-image"
        /// A picture's size is not the one the manifest gives (or its hash is not).
        case imageMismatch = "image-mismatch"
        /// The run is not in the journal, or has no step pictures to accept.
        case nothingToAccept = "nothing-to-accept"
        /// The store or a folder cannot be read or written.
        case io = "io"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The exit code the CLI gives: 65 for bad input (a bad folder, nothing to accept), 2 for file-system failures.
    public var exitCode: Int32 { code == .io ? 2 : 65 }
}
