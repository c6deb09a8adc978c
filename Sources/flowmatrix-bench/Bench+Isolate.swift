import FlowMatrixCLI

/// `flowmatrix bench isolate`: how well `flowmatrix isolate` finds planted failure-inducing combinations, beside
/// exhaustive testing and one-factor-at-a-time, on seeded synthetic systems (docs/ISOLATE.md, "Measured"). The
/// settings, scores and methods live in `Bench+IsolateSettings.swift` and `Bench+IsolateMethods.swift`.
enum IsolateBench {
    static let suite = BenchSuite(
        name: "isolate",
        overview: "Failure isolation: recall, precision, follow-ups per fault vs exhaustive and one-factor-at-a-time.",
        run: { quick in measure(quick: quick, say: { FlowMatrixCLI.say($0) }) }
    )
}
