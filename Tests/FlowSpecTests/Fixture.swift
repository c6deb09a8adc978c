import Foundation

/// Paths of the fixture scenario files copied into the test bundle.
enum Fixture {
    static var root: URL {
        // Bundle.module holds the copied Fixtures folder.
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    }

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
}
