import FlowMatrixCLI
import FlowSpec
import Foundation
import MatrixPlan

extension BenchCommand {
    /// `flowmatrix bench matrix`: expansion throughput and covering-array sizes beside PICT's published figures.
    static let matrixSuite = BenchSuite(
        name: "matrix",
        overview: "Matrix expansion throughput (configs/s) and pairwise sizes vs PICT.",
        run: { quick in
            benchExpansion(quick: quick)
            benchStandardSets(quick: quick)
            benchLocaleMatrix(quick: quick)
        }
    )

    /// A matrix with every kind of rule: 12 locales × 6 directions × 2 orientations × 8 windows × 6 networks ×
    /// custom axes, two excludes, three includes (one adding a key), two constraints.
    static func expansionMatrix(quick: Bool) -> MatrixFile {
        let locales = ["en", "en-GB", "fr", "de", "es", "it", "ja", "zh-Hans", "ar", "he", "ru", "pt-BR"]
        var axes = [
            Axis(name: "locale", values: locales),
            Axis(name: "direction", values: LayoutDirection.allCases.map(\.rawValue)),
            Axis(name: "orientation", values: ["portrait", "landscape"]),
            Axis(name: "window", values: WindowPreset.allCases.map(\.rawValue) + ["390x844"]),
            Axis(name: "network", values: NetworkProfileName.allCases.map(\.rawValue) + ["custom(latency=200ms,jitter=50ms,rate=30000Bps,failure-rate=0.1)"]),
            Axis(name: "theme", values: ["light", "dark", "high-contrast"]),
        ]
        if !quick {
            axes.append(Axis(name: "font", values: ["xs", "s", "m", "l", "xl", "xxl", "ax1", "ax2"]))
            axes.append(Axis(name: "build", values: (1...100).map { "b\($0)" }))
        }
        return MatrixFile(
            name: "bench", registry: "catalog", axes: axes,
            include: [["theme": "dark", "accent": "orange"], ["locale": "ar", "accent": "green"], ["locale": "ja", "direction": "ltr", "keyboard": "kana"]],
            exclude: [["direction": "pseudo-rtl", "locale": "ar"], ["network": "offline", "theme": "high-contrast"]],
            constraints: [
                Constraint(number: 1, conditions: [Condition(axis: "orientation", op: .equals, values: ["landscape"])],
                           consequences: [Condition(axis: "window", op: .notIn, values: ["tall-narrow", "narrow-portrait"])]),
                Constraint(number: 2, conditions: [Condition(axis: "accent", op: .equals, values: ["green"])],
                           consequences: [Condition(axis: "direction", op: .in, values: ["rtl", "auto", "pseudo-rtl"])]),
            ])
    }

    static func maxResidentKilobytes() -> Int { ProcessFacts.peakResidentBytes() / 1024 }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func benchExpansion(quick: Bool) {
        print("-- expansion (streaming, one core): cartesian → exclude → include → constraints, counting only")
        for q in quick ? [true] : [true, false] {
            let space = MatrixSpace(expansionMatrix(quick: q))
            let before = maxResidentKilobytes()
            let clock = ContinuousClock()
            var result = (notExcluded: UInt64(0), valid: UInt64(0))
            let elapsed = clock.measure { result = space.enumerateAll() }
            let total = space.levels.reduce(1, *)
            let rate = Double(total) / max(seconds(elapsed), 1e-9)
            print("  \(total) combinations: \(result.notExcluded) after exclude, \(result.valid) valid; "
                + String(format: "%.3f s, %.1f M configs/s; max RSS %d → %d KB", seconds(elapsed), rate / 1e6, before, maxResidentKilobytes()))
        }
    }

    static func benchStandardSets(quick: Bool) {
        print("-- pairwise sizes on the standard sets, beside PICT's published figures; [lower bound: product of the two largest levels, or Kleitman–Spencer for binary]")
        let sets: [(String, [Int], Int, Int)] = [
            ("3^4", Array(repeating: 3, count: 4), 9, 9),
            ("3^13", Array(repeating: 3, count: 13), 18, 9),
            ("4^15 3^17 2^29", Array(repeating: 4, count: 15) + Array(repeating: 3, count: 17) + Array(repeating: 2, count: 29), 37, 16),
            ("4^1 3^39 2^35", [4] + Array(repeating: 3, count: 39) + Array(repeating: 2, count: 35), 27, 12),
            ("2^100", Array(repeating: 2, count: 100), 15, 10),
            ("10^20", Array(repeating: 10, count: 20), 210, 100),
        ]
        for (name, levels, pict, lowerBound) in quick ? Array(sets.prefix(2)) : sets {
            let clock = ContinuousClock()
            var rows: [CoveringArray.Row] = []
            let elapsed = clock.measure {
                rows = (try? CoveringArray.generate(levels: levels, strength: 2, seed: 0)) ?? []
            }
            let verdict = rows.count <= pict ? "ok" : "LARGER THAN PICT"
            print("  " + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(format: "%4d rows   PICT %4d  [%4d]   %.3f s  %@", rows.count, pict, lowerBound, seconds(elapsed), verdict))
        }
    }

    static func benchLocaleMatrix(quick: Bool) {
        print("-- nightly-style matrix: 12 locales × 5 directions × 2 orientations × 7 windows × 5 networks, landscape constraint")
        let locales = ["en", "en-GB", "fr", "de", "es", "it", "ja", "zh-Hans", "ar", "he", "ru", "pt-BR"]
        let axes = [
            Axis(name: "locale", values: locales),
            Axis(name: "direction", values: ["ltr", "rtl", "pseudo-double", "pseudo-accented", "pseudo-rtl"]),
            Axis(name: "orientation", values: ["portrait", "landscape"]),
            Axis(name: "window", values: WindowPreset.allCases.map(\.rawValue)),
            Axis(name: "network", values: NetworkProfileName.allCases.map(\.rawValue)),
        ]
        let landscape = Constraint(number: 1, conditions: [Condition(axis: "orientation", op: .equals, values: ["landscape"])],
                                   consequences: [Condition(axis: "window", op: .notIn, values: ["tall-narrow", "narrow-portrait"])])
        for t in quick ? [2] : [2, 3] {
            let matrix = MatrixFile(name: "nightly-bench", registry: "catalog", axes: axes, constraints: [landscape], reduction: .tWise(t))
            let clock = ContinuousClock()
            var plan: Plan?
            let elapsed = clock.measure { plan = matrix.plan(scenarios: []) }
            guard let plan else { continue }
            print("  t=\(t): \(plan.counts.stages?.afterConstraints.description ?? "?") valid → \(plan.configurations.count) configurations"
                + String(format: " in %.3f s", seconds(elapsed)) + (t == 2 ? " (lower bound locale × window = 12 × 7 = 84)" : " (lower bound 12 × 7 × 5 = 420)"))
        }
    }
}
