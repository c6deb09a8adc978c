import Reports
import Testing

@Suite("Axis pivot")
struct AxisPivotTests {
    private func input(_ values: [String: String], _ status: CellStatus) -> AxisPivot.Input {
        AxisPivot.Input(axes: values.map { AxisValue(axis: $0.key, value: $0.value) }.sorted(), status: status)
    }

    /// direction × orientation × locale, failing exactly on rtl + landscape.
    private var rtlLandscape: [AxisPivot.Input] {
        var jobs: [AxisPivot.Input] = []
        for d in ["ltr", "rtl"] {
            for o in ["portrait", "landscape"] {
                for l in ["en", "ar", "de"] {
                    jobs.append(input(["direction": d, "orientation": o, "locale": l],
                                      d == "rtl" && o == "landscape" ? .failed : .passed))
                }
            }
        }
        return jobs
    }

    @Test("a failure that follows a pair of values ranks that pair first with score 1")
    func pairExplainsFailures() throws {
        let pivot = AxisPivot.compute(rtlLandscape)
        #expect(pivot.totalJobs == 12)
        #expect(pivot.totalFailures == 3)
        let top = try #require(pivot.ranked.first)
        #expect(top.label == "direction=rtl + orientation=landscape")
        #expect(top.score == 1)
        #expect(top.rate == 1)
        #expect(pivot.headline.hasPrefix("Fails exactly with direction=rtl + orientation=landscape"))
        // The single values explain half: rtl holds 6 jobs of which 3 fail.
        let rtl = pivot.ranked.first { $0.label == "direction=rtl" }
        #expect(rtl?.failures == 3)
        #expect(rtl?.jobs == 6)
        #expect(rtl?.score == 0.5)
        // Every value of every axis is in the per-axis tables, including those without failures.
        let direction = pivot.axes.first { $0.axis == "direction" }
        #expect(direction?.values.map { $0.values[0].value } == ["ltr", "rtl"])
        #expect(direction?.values.map(\.rate) == [0, 0.5])
    }

    @Test("a failure that follows one value ranks the value above its pairs")
    func singleValueExplainsFailures() {
        let jobs = rtlLandscape.map { job in
            input(Dictionary(uniqueKeysWithValues: job.axes.map { ($0.axis, $0.value) }),
                  job.axes.contains(AxisValue(axis: "locale", value: "ar")) ? .timedOut : .passed)
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.ranked.first?.label == "locale=ar")
        #expect(pivot.ranked.first?.score == 1)
        #expect(pivot.headline == "Fails exactly with locale=ar: all 4 failures, and every such job fails.")
    }

    @Test("within a scenario, a pair of values is a group: 'checkout fails only with rtl + landscape'")
    func scenarioWithPair() {
        var jobs: [AxisPivot.Input] = []
        for scenario in ["browse", "checkout"] {
            for job in rtlLandscape {
                let values = Dictionary(uniqueKeysWithValues: job.axes.map { ($0.axis, $0.value) })
                jobs.append(input(values.merging(["scenario": scenario]) { $1 },
                                  scenario == "checkout" ? job.status : .passed))
            }
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.ranked.first?.label == "scenario=checkout + direction=rtl + orientation=landscape")
        #expect(pivot.ranked.first?.score == 1)
        #expect(pivot.axes.first?.axis == "scenario")
        #expect(pivot.headline.hasPrefix("Fails exactly with scenario=checkout + direction=rtl + orientation=landscape"))
    }

    @Test("two independent causes are two patterns, found one after the other")
    func twoPatterns() {
        var jobs: [AxisPivot.Input] = []
        for scenario in ["cart", "item", "settings"] {
            for job in rtlLandscape {
                let values = Dictionary(uniqueKeysWithValues: job.axes.map { ($0.axis, $0.value) })
                let fails = (scenario == "cart" && values["locale"] == "ar")
                    || (scenario == "item" && values["orientation"] == "landscape" && values["direction"] == "rtl")
                jobs.append(input(values.merging(["scenario": scenario]) { $1 }, fails ? .failed : .passed))
            }
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.totalFailures == 7)
        #expect(pivot.explanations.map(\.group.label)
            == ["scenario=cart + locale=ar", "scenario=item + direction=rtl + orientation=landscape"])
        #expect(pivot.explanations.map(\.explains) == [4, 3])
        #expect(pivot.unexplained == 0)
        #expect(pivot.headline == "7 failures follow exactly scenario=cart + locale=ar (4 of 4 jobs fail); "
            + "exactly scenario=item + direction=rtl + orientation=landscape (3 of 3 jobs fail).")
    }

    @Test("a cause shared by many scenarios outranks a small exact group of one scenario")
    func systemicBeforeSpecific() {
        var jobs: [AxisPivot.Input] = []
        for n in 0..<20 {
            for direction in ["ltr", "pseudo-double"] {
                for locale in ["en", "de", "fr"] {
                    let scenario = "s\(n)"
                    let fails = (direction == "pseudo-double" && locale == "en" && n % 2 == 0)
                        || (scenario == "s1" && locale == "de")
                    jobs.append(input(["scenario": scenario, "direction": direction, "locale": locale], fails ? .failed : .passed))
                }
            }
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.explanations.first?.group.label == "direction=pseudo-double + locale=en")
        #expect(pivot.explanations.map(\.explains) == [10, 2])
        #expect(pivot.explanations.last?.group.label == "scenario=s1 + locale=de")
        #expect(pivot.unexplained == 0)
    }

    @Test("flaky, quarantined and not-run jobs are not failures; without failures the headline says so")
    func nonFailures() {
        let jobs = [
            input(["locale": "en"], .flaky), input(["locale": "ar"], .quarantined), input(["locale": "de"], .notRun),
            input(["locale": "fr"], .passed),
        ]
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.totalJobs == 2)
        #expect(pivot.totalFailures == 0)
        #expect(pivot.totalFlaky == 1)
        #expect(pivot.ranked.isEmpty)
        #expect(pivot.headline == "No failures in 2 jobs.")
    }

    @Test("failures spread over values: the headline names the closest group and its share")
    func partialExplanation() {
        let jobs = [
            input(["locale": "ar"], .failed), input(["locale": "ar"], .failed), input(["locale": "ar"], .passed),
            input(["locale": "en"], .failed), input(["locale": "en"], .passed), input(["locale": "en"], .passed),
        ]
        let pivot = AxisPivot.compute(jobs)
        #expect(pivot.ranked.map(\.label) == ["locale=ar", "locale=en"])
        #expect(pivot.headline == "3 failures follow locale=ar (2 of 3 jobs fail; 2 of 3 failures); 1 other failure.")
        #expect(pivot.explanations.map(\.explains) == [2])
        #expect(pivot.unexplained == 1)
    }
}

@Suite("Axis values")
struct AxisValueTests {
    @Test("configuration JSON is preferred; the canonical text is the fallback; both sort by axis")
    func parse() {
        let fromJSON = AxisValue.parse(configuration: "ignored=1", json: #"{"window":"390x844","locale":"ar","retina":true,"n":3}"#)
        #expect(fromJSON.map(\.description) == ["locale=ar", "n=3", "retina=true", "window=390x844"])
        let fromText = AxisValue.parse(configuration: "orientation=landscape,direction=rtl", json: "not json")
        #expect(fromText.map(\.description) == ["direction=rtl", "orientation=landscape"])
        #expect(AxisValue.parse(configuration: "", json: "{}").isEmpty)
    }

    @Test("values sort naturally: w2 before w10")
    func naturalOrder() {
        let values = ["w10", "w2", "w1", "a", "w02x"].map { AxisValue(axis: "k", value: $0) }.sorted().map(\.value)
        #expect(values == ["a", "w1", "w2", "w02x", "w10"])
    }
}

@Suite("Axis pivot redundancy")
struct AxisPivotRedundancyTests {
    @Test("a value that does not narrow a group (a constant axis) makes no extra group")
    func constantAxis() {
        let jobs = ["en", "ar", "de", "he"].map { locale in
            AxisPivot.Input(axes: [AxisValue(axis: "locale", value: locale), AxisValue(axis: "orientation", value: "portrait")],
                            status: locale == "ar" || locale == "he" ? .failed : .passed)
        }
        let pivot = AxisPivot.compute(jobs)
        #expect(!pivot.ranked.contains { $0.label.contains("+") })
        // The failing locales as one set are the failures exactly.
        #expect(pivot.ranked.map(\.label) == ["locale ∈ {ar, he}", "locale=ar", "locale=he", "orientation=portrait"])
    }
}
