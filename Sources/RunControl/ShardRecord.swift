import Foundation
import Journal

/// What a shard run recorded about itself in its settings (`RunDefinitionBuilder.settingsJSON`): what `merge`
/// checks and orders by.
public struct ShardRecord: Sendable, Hashable {
    public var index: Int
    public var count: Int
    public var planHash: String
    /// Jobs in the whole plan.
    public var planJobs: Int
    /// Plan positions of the shard's jobs, in the shard's plan order.
    public var positions: [Int]

    public init?(settingsJSON: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(settingsJSON.utf8)) as? [String: Any],
              let shard = object["shard"] as? [String: Any],
              let index = shard["index"] as? Int, let count = shard["count"] as? Int,
              let planHash = shard["planHash"] as? String, let planJobs = shard["planJobs"] as? Int
        else { return nil }
        self.index = index
        self.count = count
        self.planHash = planHash
        self.planJobs = planJobs
        positions = shard["positions"] as? [Int] ?? []
    }
}

extension RunSummary {
    /// Whether the run is one shard of a plan (`run --shard`).
    public var isShard: Bool { ShardRecord(settingsJSON: info.settingsJSON) != nil }
}
