import FlowCrypto
import Foundation

/// The page's Content-Security-Policy: only its own script runs.
extension HTMLAssets {
    /// `'sha256-…'` of the script, for the page's Content-Security-Policy: only this script may run.
    static var scriptHashSource: String {
        "'sha256-" + Data(SHA256.hash(Array(script.utf8))).base64EncodedString() + "'"
    }

    /// No network at all: images only from the blobs the page decompressed (`blob:` URLs), the inline style, the one
    /// inline script, and the chunk and blob scripts of the report folder.
    /// The live view's page may also open its event stream (`connect-src 'self'`). The "Visual changes" section's
    /// pictures are files of the report folder (`visual/`, img-src `'self' file:`) and its script has its own hash.
    static func contentSecurityPolicy(live: Bool = false) -> String {
        "default-src 'none'; img-src blob: data: 'self' file:; style-src 'unsafe-inline'; script-src \(scriptHashSource) "
            + "\(VisualAssets.scriptHashSource) 'self' file:;"
            + (live ? " connect-src 'self';" : "") + " base-uri 'none'; form-action 'none'"
    }
}
