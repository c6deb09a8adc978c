import FlowSpec
@testable import MatrixPlan
import Testing

@Suite("explain says why a configuration or job exists, or why an assignment was dropped")
struct ExplainTests {
    static let json = """
        {"name": "e", "corpus": ".", "registry": "catalog",
         "axes": {"locale": ["en", "ar"], "orientation": ["portrait", "landscape"],
                  "window": ["tall-narrow", "narrow-portrait", "full-window"], "network": ["lte", "offline"]},
         "exclude": [{"locale": "ar", "network": "offline"}],
         "include": [{"network": "offline", "banner": "shown"}, {"locale": "fr"}],
         "constraints": [\(CoverageTests.landscape)],
         "reduction": "pairwise"}
        """

    @Test("an assignment a constraint forbids names the constraint")
    func constraint() throws {
        let p = try Fixtures.matrix(Self.json).plan(scenarios: [], settings: .quick)
        let text = p.explain("orientation=landscape,window=tall-narrow")
        #expect(text.contains("excluded by constraint #1"))
    }

    @Test("an assignment an exclude removes names the exclude, values normalised first")
    func exclude() throws {
        let p = try Fixtures.matrix(Self.json).plan(scenarios: [], settings: .quick)
        #expect(p.explain("locale=AR,network=offline").contains("excluded by exclude #1"))
    }

    @Test("a planned configuration names its reduction row and includes; an include's own names the include")
    func origins() throws {
        let p = try Fixtures.matrix(Self.json).plan(scenarios: [], settings: .quick)
        let offline = try #require(p.configurations.firstIndex { $0["network"] == "offline" })
        #expect(p.explain("#\(offline + 1)").contains("pairwise reduction"))
        #expect(p.explain("#\(offline + 1)").contains("extended by include #1"))
        #expect(p.explain("locale=fr").contains("added by include #2"))
    }

    @Test("a valid assignment the reduction dropped lists the rows covering its tuples")
    func reduction() throws {
        let p = try Fixtures.matrix(Self.json).plan(scenarios: [], settings: .quick)
        let all = try Fixtures.matrix(Self.json.replacingOccurrences(of: #""reduction": "pairwise""#, with: #""reduction": "full""#))
            .plan(scenarios: [], settings: .quick).configurations
        let dropped = try #require(all.first { c in !p.configurations.contains(c) })
        let text = p.explain(dropped.canonicalString)
        #expect(text.contains("dropped by the pairwise reduction"))
        #expect(text.contains(" by #"))
    }

    @Test("a job id explains its scenario selection and configuration")
    func job() throws {
        let scenario = Scenario(id: "s", title: "S", tags: ["smoke"], steps: [Step(verb: .open, target: "catalog")])
        let p = try Fixtures.matrix(Self.json).plan(scenarios: [(scenario, "s.json")], settings: .quick)
        let job = try #require(p.jobs.first)
        let text = p.explain(job.id)
        #expect(text.hasPrefix("job \(job.id): scenario 's'"))
        #expect(text.contains("configuration: row 1"))
        #expect(p.explain("nonsense").contains("neither a job id"))
    }
}
