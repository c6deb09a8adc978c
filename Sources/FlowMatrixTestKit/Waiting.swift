/// The error of ``waitUntil(_:timeout:_:)``: what was awaited and for how long (a test records it as its issue).
package struct ConditionTimeout: Error, CustomStringConvertible {
    package let description: String
}

/// Waits for `condition` to hold, checking it every 20 ms; throws ``ConditionTimeout`` after `timeout`. Tests wait
/// for a condition with this, never for a fixed time.
package func waitUntil(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw ConditionTimeout(description: "timed out after \(timeout) waiting until \(what)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
