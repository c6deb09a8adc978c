import Foundation
@testable import Reports
import Testing

@Suite("Axis pivot: exact explanations")
struct AxisPivotExactTests {
    private func input(_ values: [String: String], _ status: CellStatus) -> AxisPivot.Input {
        AxisPivot.Input(axes: values.map { AxisValue(axis: $0.key, value: $0.value) }.sorted(), status: status)
    }

    /// The issue's page: search fails exactly on network ∈ {edge, offline}, and the plan ran edge and offline with
    /// direction=auto only, so `scenario=search + direction=auto` holds the 16 failures among 24 jobs.
    private var searchOnSlowNetworks: [AxisPivot.Input] {
        var jobs: [AxisPivot.Input] = []
        let locales = ["en", "de", "fr", "ar", "ja", "he", "pt", "ru"]
        for scenario in ["search", "home"] {
            for locale in locales {
                for (network, direction) in [("edge", "auto"), ("offline", "auto"), ("wifi", "auto"), ("wifi", "ltr"),
                                             ("wifi", "rtl")] {
                    let fails = scenario == "search" && (network == "edge" || network == "offline")
                    jobs.append(input(["scenario": scenario, "locale": locale, "network": network, "direction": direction],
                                      fails ? .failed : .passed))
                }
            }
        }
        return jobs
    }

    @Test("the issue's example: failures exactly scenario=search + network ∈ {edge, offline}, not direction=auto 16 of 24")
    func valueSetOfOneAxis() throws {
        let pivot = AxisPivot.compute(searchOnSlowNetworks)
        #expect(pivot.totalFailures == 16)
        // The broader group the old headline named is there, and partial.
        let auto = try #require(pivot.ranked.first { $0.label == "scenario=search + direction=auto" })
        #expect((auto.failures, auto.jobs) == (16, 24))
        let only = try #require(pivot.explanations.first)
        #expect(pivot.explanations.count == 1)
        #expect(only.exact)
        #expect(only.group.label == "scenario=search + network ∈ {edge, offline}")
        #expect((only.group.failures, only.group.jobs) == (16, 16))
        #expect(pivot.headline == "Fails exactly with scenario=search + network ∈ {edge, offline}: all 16 failures, "
            + "and every such job fails.")
        #expect(pivot.ranked.first?.label == "scenario=search + network ∈ {edge, offline}")
    }

    @Test("values that always co-occur in a scenario: the headline says it can't tell them apart")
    func cannotTellApart() throws {
        var jobs: [AxisPivot.Input] = []
        for scenario in ["cart", "home"] {
            for locale in ["en", "ar", "de"] {
                for orientation in ["portrait", "landscape"] {
                    // The plan only ever ran locale=ar with window=narrow.
                    let window = locale == "ar" ? "narrow" : (orientation == "portrait" ? "wide" : "narrow")
                    let fails = scenario == "cart" && locale == "ar"
                    jobs.append(input(["scenario": scenario, "locale": locale, "orientation": orientation, "window": window],
                                      fails ? .failed : .passed))
                }
            }
        }
        // cart + ar holds both failures; cart + narrow holds them and a passing de/en landscape job: partial.
        let pivot = AxisPivot.compute(jobs)
        let only = try #require(pivot.explanations.first)
        #expect(only.exact)
        #expect(only.group.label == "scenario=cart + locale=ar")
        #expect(only.alternatives.isEmpty)

        // Now narrow is run with ar only: the two patterns hold the same jobs.
        let confounded = jobs.filter { job in
            !(job.axes.contains(AxisValue(axis: "window", value: "narrow")) && !job.axes.contains(AxisValue(axis: "locale", value: "ar")))
        }
        let both = AxisPivot.compute(confounded)
        let e = try #require(both.explanations.first)
        #expect(e.exact)
        #expect(e.group.label == "scenario=cart + locale=ar")
        #expect(e.alternatives.map(\.label) == ["scenario=cart + window=narrow"])
        #expect(both.headline == "Fails exactly with scenario=cart + locale=ar: all 2 failures, and every such job fails"
            + " (can't tell locale=ar from window=narrow here).")
    }

    @Test("an exact pattern of a scenario ranks above a partial one that explains no more failures")
    func exactBeforePartial() throws {
        var jobs: [AxisPivot.Input] = []
        for locale in ["en", "ar", "he"] {
            for theme in ["light", "dark"] {
                for size in ["s", "m", "l"] {
                    // ar and he fail with theme=dark.
                    let fails = theme == "dark" && locale != "en"
                    jobs.append(input(["scenario": "a", "locale": locale, "theme": theme, "size": size], fails ? .failed : .passed))
                }
            }
        }
        let pivot = AxisPivot.compute(jobs)
        let first = try #require(pivot.explanations.first)
        #expect(first.exact)
        // One scenario: the pattern needs no scenario to be exact in the whole run.
        #expect(first.group.label == "locale ∈ {ar, he} + theme=dark")
        #expect(pivot.headline == "Fails exactly with locale ∈ {ar, he} + theme=dark: all 6 failures, and every such job fails.")
    }

    @Test("a partial pattern gives both rates: of its jobs, and of the failures")
    func partialGivesBothRates() {
        let jobs = [
            input(["locale": "ar"], .failed), input(["locale": "ar"], .failed), input(["locale": "ar"], .passed),
            input(["locale": "en"], .failed), input(["locale": "en"], .passed), input(["locale": "en"], .passed),
        ]
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.explanations.first?.exact == false)
        #expect(pivot.headline == "3 failures follow locale=ar (2 of 3 jobs fail; 2 of 3 failures); 1 other failure.")
    }

    /// The shape of a real `Matrices/parity.json` run (30 scenarios × 9 configurations × 2 registries): two scenarios
    /// fail in web in every configuration, and a few scattered failures in both registries sit on network=lte, which
    /// 8 of the 9 configurations use. The broad "network=lte + registry=web" held the most failures (17 of 240 jobs)
    /// and used to lead the headline; the exact renderer defects lead now.
    @Test("exact renderer defects lead over a broad partial pattern in which most jobs pass (the parity run)")
    func exactBeforeBroadPartial() throws {
        let configurations: [[String: String]] = [
            ["locale": "en", "window": "narrow", "network": "lte"], ["locale": "en", "window": "full", "network": "lte"],
            ["locale": "de", "window": "narrow", "network": "lte"], ["locale": "de", "window": "full", "network": "lte"],
            ["locale": "ar", "window": "narrow", "network": "lte"], ["locale": "ar", "window": "full", "network": "lte"],
            ["locale": "en", "window": "full", "network": "lte", "direction": "pseudo"],
            ["locale": "en", "window": "full", "network": "lte", "direction": "rtl"],
            ["locale": "en", "window": "full", "network": "3g"],
        ]
        var jobs: [AxisPivot.Input] = []
        for n in 0..<30 {
            let scenario = ["cart-quantity", "timer-refresh", "item-detail"].indices.contains(n)
                ? ["cart-quantity", "timer-refresh", "item-detail"][n] : "s\(n)"
            for (c, configuration) in configurations.enumerated() {
                for registry in ["catalog", "web"] {
                    let fails = (n < 2 && registry == "web") || (n == 2 && c == 2)
                    var values = configuration.merging(["scenario": scenario, "registry": registry]) { a, _ in a }
                    values["direction"] = values["direction"] ?? "auto"
                    jobs.append(input(values, fails ? .failed : .passed))
                }
            }
        }
        let pivot = AxisPivot.compute(jobs)
        let broad = try #require(pivot.ranked.first { $0.label == "network=lte + registry=web" })
        #expect(broad.failures == 17 && broad.jobs == 240)
        let labels = pivot.explanations.map(\.group.label)
        #expect(Array(labels.prefix(2)) == ["scenario=cart-quantity + registry=web", "scenario=timer-refresh + registry=web"],
                "\(labels)")
        #expect(pivot.explanations.allSatisfy { $0.exact }, "\(labels)")
        #expect(pivot.unexplained == 0)
        #expect(pivot.headline.hasPrefix("20 failures follow exactly scenario=cart-quantity + registry=web (9 of 9 jobs fail): "
            + "fails only in web, a renderer defect; exactly scenario=timer-refresh + registry=web"), "\(pivot.headline)")
    }

    /// 100 scenarios × 3 locales × 5 windows with scattered failures: thousands of groups with a failure. The pivot keeps
    /// the best ``AxisPivot/maxRanked``, in the same order a full sort of every group gives.
    @Test("ranked keeps the best 500 groups, in full rank order, when thousands have a failure")
    func rankedIsTheBestFew() throws {
        var jobs: [AxisPivot.Input] = []
        for n in 0..<100 {
            for (l, locale) in ["en", "de", "ar"].enumerated() {
                for w in 0..<5 {
                    let fails = (n * 7 + l * 3 + w) % 5 == 0 || (n % 11 == 0 && locale == "ar")
                    jobs.append(input(["scenario": "s\(n)", "locale": locale, "window": "w\(w)"], fails ? .failed : .passed))
                }
            }
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.ranked.count == AxisPivot.maxRanked)
        for (a, b) in zip(pivot.ranked, pivot.ranked.dropFirst()) {
            #expect(!AxisPivot.rankedBefore(b, a), "\(b.label) ranks before \(a.label)")
        }
        // Nothing left out ranks above the last one kept: every single value and pair of the run, tallied here.
        let last = try #require(pivot.ranked.last)
        let kept = Set(pivot.ranked.map(\.label))
        for table in pivot.axes {
            for g in table.values where g.failures > 0 && !kept.contains(g.label) {
                #expect(!AxisPivot.rankedBefore(g, last), "\(g.label) was left out")
            }
        }
    }

    /// The web shop's six defect scenarios under a pairwise plan of locale × direction × window × network, run in real
    /// Chromium (`Fixtures/web-pairwise-defects.txt`, 144 jobs): each defect follows one value or a few, and no scenario
    /// needs two of them, but the plan runs every pair, so `direction=pseudo-accented + network=edge` held the failures
    /// of the delivery estimate (`network=edge`) and of the cart's sentences (`direction=pseudo-accented`) in 17 of its
    /// 24 jobs, and led the headline. The exact patterns of one scenario with one of those values lead now.
    @Test("a run-wide pair whose values each fail other scenarios does not lead over those scenarios' exact patterns")
    func pairOfTwoScenariosValues() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/web-pairwise-defects.txt")
        let jobs = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.map { line in
                let f = line.split(separator: " ").map(String.init)
                return input(["scenario": f[1], "locale": f[2], "direction": f[3], "window": f[4], "network": f[5]],
                             f[0] == "passed" ? .passed : .failed)
            }
        #expect(jobs.count == 144)
        let pivot = AxisPivot.compute(jobs)
        let pair = try #require(pivot.ranked.first { $0.label == "direction=pseudo-accented + network=edge" })
        #expect((pair.failures, pair.jobs) == (17, 24))
        let labels = pivot.explanations.map(\.group.label)
        #expect(!labels.contains("direction=pseudo-accented + network=edge"), "\(labels)")
        #expect(labels.first == "scenario=delivery-estimate + network=edge", "\(labels)")
        // Then the value itself, which fails most of what is left of its jobs (the cart's two scenarios and others).
        #expect(labels.dropFirst().first == "direction=pseudo-accented", "\(labels)")
        #expect(pivot.headline.hasPrefix("56 failures follow exactly scenario=delivery-estimate + network=edge (12 of 12 jobs fail)"),
                "\(pivot.headline)")
    }
}
