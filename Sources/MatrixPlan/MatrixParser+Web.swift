import FlowSpec
import Foundation

/// The site a matrix's `web` registry tests, named in the matrix (`"web": {"root": "…", "pages": "…"}`, paths
/// relative to the matrix file like `corpus`): `flowmatrix run` hands it to the local workers it starts
/// (`FLOWMATRIX_WEB_ROOT`, `FLOWMATRIX_WEB_PAGES`), and `validate`, `plan` and `run` check the scenarios against its page
/// objects (docs/MATRIX.md, "The web registry's site").
public struct WebSite: Sendable, Hashable {
    /// The folder the workers serve on 127.0.0.1.
    public var root: URL?
    /// The page-object folder; nil: a `Pages` folder beside `root` when there is one (as the worker finds it).
    public var pages: URL?
    /// Where `root` and `pages` stand in the file (for MX050).
    public var rootPosition: SourcePosition?
    public var pagesPosition: SourcePosition?

    public init(root: URL?, pages: URL? = nil) {
        self.root = root
        self.pages = pages
    }

    /// The page-object folder the worker would use: `pages`, else `Pages` beside `root` when it is a folder.
    public var pageObjects: URL? {
        if let pages { return pages }
        guard let root else { return nil }
        let beside = root.deletingLastPathComponent().appendingPathComponent("Pages")
        return Self.isFolder(beside) ? beside : nil
    }

    /// The environment of a worker that tests this site: `FLOWMATRIX_WEB_ROOT` and `FLOWMATRIX_WEB_PAGES`, absolute.
    public var workerEnvironment: [String: String] {
        var out: [String: String] = [:]
        if let root { out[Self.rootVariable] = root.path }
        if let pages { out[Self.pagesVariable] = pages.path }
        return out
    }

    public static let rootVariable = "FLOWMATRIX_WEB_ROOT"
    public static let pagesVariable = "FLOWMATRIX_WEB_PAGES"
    public static let baseURLVariable = "FLOWMATRIX_WEB_BASE_URL"

    static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// MX050 for each named folder that does not exist (what `MatrixFile.load` adds to the parser's findings).
    func missingFolders(file: String) -> [ValidationFinding] {
        var out: [ValidationFinding] = []
        for (key, url, position) in [("root", root, rootPosition), ("pages", pages, pagesPosition)] {
            guard let url, !Self.isFolder(url) else { continue }
            out.append(ValidationFinding(
                file: file, code: MatrixRule.badWebSite.code, path: "$.web.\(key)", position: position,
                message: "web.\(key) is not a folder (resolved to \(url.path)); paths are relative to the matrix file"))
        }
        return out
    }
}

extension MatrixParser {
    /// `web`: an object with `root` (the folder to serve) and optionally `pages` (the page objects), each a non-empty
    /// path (MX050); a matrix that names it must run the `web` registry (MX051).
    mutating func parseWebSite(_ root: JSONNode, registries: [String]?) -> WebSite? {
        guard let node = root["web"] else { return nil }
        guard node.members != nil else {
            add(.badWebSite, "$.web", node.position,
                "expected an object {\"root\": \"<folder to serve>\", \"pages\": \"<page objects>\"}, found \(node.kindName)")
            return nil
        }
        checkMembers(node, path: "$.web", allowed: ["root", "pages"])
        func folder(_ key: String) -> URL? {
            guard let value = node[key] else { return nil }
            guard let text = value.string, !text.trimmingSpaces.isEmpty else {
                add(.badWebSite, "$.web.\(key)", value.position, "web.\(key) is a folder path (relative to the matrix file)")
                return nil
            }
            return text.hasPrefix("/") ? URL(fileURLWithPath: text).standardizedFileURL
                : (directory ?? URL(fileURLWithPath: ".")).appendingPathComponent(text).standardizedFileURL
        }
        if node["root"] == nil {
            add(.badWebSite, "$.web", node.position, "web needs 'root': the folder the web registry's workers serve")
        }
        var site = WebSite(root: folder("root"), pages: folder("pages"))
        site.rootPosition = node["root"]?.position
        site.pagesPosition = node["pages"]?.position
        if let registries, !registries.contains(Self.webRegistry) {
            add(.webSiteWithoutWebRegistry, "$.web", node.position,
                "the matrix names a site for the '\(Self.webRegistry)' registry but does not run it (registry: "
                    + registries.joined(separator: ", ") + "); add \"\(Self.webRegistry)\" to 'registry' or remove 'web'")
        }
        return site
    }

    static let webRegistry = "web"
}
