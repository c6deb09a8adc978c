import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// `flowmatrix plan --json` prints `Plan.json()`.
@Suite("plan --json has the documented shape")
struct PlanJSONTests {
    @Test("configurations, jobs and counts, with every configuration value a string")
    func shape() throws {
        let corpus = ScenarioLoader.loadCorpus(paths: [try Fixtures.corpus])
        let matrix = try Fixtures.matrix("""
            {"name": "j", "corpus": ".", "registry": "catalog", "tags": {"include": ["smoke"]},
             "axes": {"locale": ["en", "ar"], "orientation": ["portrait", "landscape"],
                      "network": ["lte", {"latency": 20, "jitter": 5, "bytesPerSecond": 1000, "failureRate": 0}]},
             "exclude": [{"locale": "ar", "network": "lte"}]}
            """)
        let p = plan(matrix, scenarios: corpus.scenarios)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(p.json().utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["configurations", "jobs", "counts"])
        let configurations = try #require(object["configurations"] as? [[String: Any]])
        #expect(configurations.count == 6)
        for c in configurations { #expect(c.values.allSatisfy { $0 is String }) }
        #expect(configurations.first as? [String: String] == ["locale": "en", "orientation": "portrait", "network": "lte"])
        let jobs = try #require(object["jobs"] as? [[String: Any]])
        #expect(jobs.count == 12) // 2 smoke scenarios × 6 configurations
        for job in jobs {
            #expect(job["id"] is String && job["scenario"] is String)
            #expect((job["id"] as? String)?.count == JobIdentity.length)
            #expect(job["configuration"] is [String: String])
        }
        let counts = try #require(object["counts"] as? [String: Int])
        #expect(counts == ["cartesian": 8, "afterExclude": 6, "afterInclude": 6, "afterConstraints": 6, "afterReduction": 6,
                           "scenarios": 4, "scenariosSelected": 2, "jobs": 12])
    }
}
