/// The confirmations of an `isolation.json` record, each combination written `axis=value + …` (axes in name order).
func confirmations(_ record: [String: Any]) -> [(scenario: String, combination: String, intermittent: Bool)] {
    (record["confirmed"] as? [[String: Any]] ?? []).map { c in
        let combination = c["combination"] as? [String: [String]] ?? [:]
        let text = combination.keys.sorted()
            .map { "\($0)=\(combination[$0]?.joined(separator: ",") ?? "")" }.joined(separator: " + ")
        return (c["scenario"] as? String ?? "?", text, c["intermittent"] as? Bool == true)
    }
}
