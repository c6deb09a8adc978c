import Foundation
import Testing

/// The shipped `Matrices/item-detail-3wise.json` (421 jobs: 3-wise over the nightly's axes, the one scenario
/// `item-detail`) with real Catalog workers, then `flowmatrix isolate` on it with the default budget (84 jobs). The
/// scenario's truncations are each a value with a set of windows — `direction=pseudo-double` and `locale=de` in each of
/// the three narrow windows — beside the `flaky` network: seen through the value alone they look intermittent, and
/// before 7 December 2026 `isolate` confirmed `direction=pseudo-double` as an intermittent fault in place of its pairs
/// (docs/ISOLATE.md, "A value with a set of another axis's values").
@Suite("3-wise isolation: a value with a set of windows is confirmed as its pairs", .timeLimit(.minutes(10)))
struct ThreeWiseIsolateTests {
    static let planted: Set<String> = [
        "direction=pseudo-double + window=narrow-landscape", "direction=pseudo-double + window=narrow-portrait",
        "direction=pseudo-double + window=tall-narrow", "locale=de + window=narrow-landscape",
        "locale=de + window=narrow-portrait", "locale=de + window=tall-narrow", "network=offline",
    ]

    @Test("isolate confirms item-detail's six truncating pairs as deterministic, and neither value alone")
    func valueWithAWindowSet() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let done = try await ShippedIsolation.run("Matrices/item-detail-3wise.json", in: ws, timeout: .seconds(300))
        let (json, output) = (done.record, done.isolateOutput)
        #expect(done.runCode == 1, "\(done.runOutput)")
        #expect(json["budget"] as? Int == 84)
        let confirmed = confirmations(json).filter { $0.scenario == "item-detail" }
        let deterministic = Set(confirmed.filter { !$0.intermittent }.map(\.combination))
        #expect(Self.planted.subtracting(deterministic).isEmpty, "missing \(Self.planted.subtracting(deterministic)):\n\(output)")
        let alone = confirmed.filter { ["direction=pseudo-double", "locale=de"].contains($0.combination) }
        #expect(alone.isEmpty, "\(output)")
        // Each value's three windows are one line, each of its pairs confirmed on its own (docs/ISOLATE.md).
        for value in ["direction=pseudo-double", "locale=de"] {
            #expect(output.contains("confirmed: item-detail fails with \(value) + window ∈ {narrow-landscape, narrow-portrait, tall-narrow} (confirmed by"),
                    "\(output)")
        }
    }
}
