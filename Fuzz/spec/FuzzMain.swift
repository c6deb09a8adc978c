// libFuzzer entry point for the FlowSpec scenario loader and the matrix parser.
// Built by Fuzz/run-spec-fuzz.sh against the FlowSpec, FlowCrypto and MatrixPlan modules; not part of the package build.
import FlowSpec
import MatrixPlan

/// Feeds the input to everything that reads user files: the JSON parser, scenario validation (every rule,
/// duplicate members), the timeout parser on the raw text and on each `;` clause, and the matrix parser with
/// its semantic checks and the reduction's work estimate. Findings and syntax errors are fine; a trap, a
/// sanitizer report or a broken invariant is a finding of the fuzzer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)

    // Timeouts: the text itself and every clause of it, as `wait` and `assert` read them.
    for candidate in [text] + text.split(separator: ";").map(String.init) {
        if case .success(let duration) = StepArguments.parseSeconds(candidate) {
            precondition(duration > .zero && duration <= .seconds(StepArguments.maximumTimeoutSeconds),
                         "parseSeconds accepted \(candidate) as \(duration)")
        }
    }
    _ = StepArguments.assertion(Step(verb: .assert, target: "t", arg: text))
    _ = StepArguments.waitTimeout(Step(verb: .wait, target: "t", arg: text))

    // Scenario files: the loader's path without the file system.
    if let root = try? JSONParser.parse(bytes) {
        let (scenario, findings) = Scenario.validated(from: root, file: "fuzz.json")
        precondition(scenario != nil || !findings.isEmpty, "a scenario that could not be built has no finding")
        let duplicates = root.duplicateMembers()
        if root.members != nil {
            precondition(duplicates.isEmpty || findings.contains { $0.code == ScenarioRule.duplicateMember.code },
                         "a duplicate member was not reported")
        }
        for finding in findings { precondition(finding.code.hasPrefix("FS"), "scenario finding \(finding.code)") }
    }

    // Matrix files: parse, validate, semantic checks (no corpus on disk).
    let (matrix, findings) = MatrixFile.parse(bytes, file: "fuzz-matrix.json", directory: nil)
    precondition((matrix == nil) != findings.isEmpty, "a matrix must parse exactly when it has no finding")
    for finding in findings { precondition(finding.code.hasPrefix("MX"), "matrix finding \(finding.code)") }
    if let matrix, let t = matrix.reduction.strength {
        let levels = matrix.axes.map(\.values.count)
        let work = CoveringArray.estimatedWork(levels: levels, strength: t)
        precondition(work >= 0, "negative work estimate")
    }
    return 0
}
