import FlowSpec
import Foundation

/// Loading a matrix with its corpus, for the CLI: every finding of both in one pass.
public enum MatrixPlanner {
    /// Loads the matrix and its corpus and plans it. The plan is nil when any finding prevents planning.
    public static func load(matrixAt url: URL, settings: PlanSettings = PlanSettings()) -> (Plan?, [ValidationFinding]) {
        let (matrix, findings) = validate(matrixAt: url, settings: settings)
        guard let matrix, findings.isEmpty else { return (nil, findings) }
        let corpus = ScenarioLoader.loadCorpus(paths: matrix.corpusURLs, validate: false)
        let manifests = settings.manifests(for: matrix)
        let unwired = matrix.registryFindings(corpus.scenarios, manifests: manifests)
        guard unwired.isEmpty else { return (nil, unwired.sortedForDisplay()) }
        var plan = matrix.plan(scenarios: corpus.scenarios.map { ($0.scenario, $0.file) }, settings: settings)
        guard plan.limitFindings.isEmpty else { return (nil, plan.limitFindings) }
        for manifest in manifests { plan.notes += matrix.ignoredAxisNotes(manifest) }
        return (plan, findings)
    }

    /// Every finding of a matrix file and of the corpus it names (FS codes), in one pass, including the plan
    /// limits of `settings` (MX025, MX026), checked without listing the plan.
    public static func validate(matrixAt url: URL, settings: PlanSettings = PlanSettings()) -> (MatrixFile?, [ValidationFinding]) {
        let check = check(matrixAt: url, settings: settings)
        return (check.matrix, check.findings)
    }

    /// What `validate` checked: the matrix (nil when a finding prevents planning), every finding, and the
    /// scenario files of its corpus that were read.
    public struct Check: Sendable {
        public var matrix: MatrixFile?
        public var findings: [ValidationFinding]
        /// The corpus' scenario files read (resolved paths).
        public var scenarioFiles: [String]
        /// Registries no known manifest publishes and no known name is close to (MX059 warnings).
        public var registryWarnings: [ValidationFinding] = []
        /// Warnings: about a matrix without findings (`MatrixFile.warnings`), and the registries it names that
        /// `validate` could not check.
        public var warnings: [ValidationFinding] { (matrix?.warnings ?? []) + registryWarnings }
    }

    /// `validate`, also saying which scenario files were read (for `flowmatrix validate`'s summary).
    public static func check(matrixAt url: URL, settings: PlanSettings = PlanSettings()) -> Check {
        var (matrix, findings) = MatrixFile.load(from: url)
        // The items of a command come from its items command, run here (validate, plan and run all see them).
        if var m = matrix {
            if let problem = collectItems(of: &m, runner: settings.itemsCommandRunner) {
                findings.append(problem)
                matrix = nil
            } else {
                matrix = m
            }
        }
        // The corpus is validated even when the matrix has findings, as long as it names one; the registry names
        // and corpus folders are read from the JSON so a matrix with other findings still gets theirs.
        let root = (try? Data(contentsOf: url)).flatMap { try? JSONParser.parse(Array($0)) }
        let display = url.relativePathForDisplay
        let names = registryNameFindings(root, file: display, settings: settings)
        findings += names.filter { !$0.isWarning }
        var corpusURLs = matrix?.corpusURLs ?? []
        if matrix == nil {
            let raw = rawCorpus(root, url: url, file: display)
            corpusURLs = raw.urls
            if !findings.contains(where: { $0.code == MatrixRule.missingCorpus.code }) { findings += raw.findings }
        }
        if names.contains(where: { !$0.isWarning }) { matrix = nil }
        let corpus = corpusURLs.isEmpty ? nil : ScenarioLoader.loadCorpus(paths: corpusURLs, validate: true)
        var check = finishCheck(matrix: matrix, findings: findings, corpus: corpus, settings: settings)
        check.registryWarnings = names.filter(\.isWarning)
        return check
    }

    private static func finishCheck(matrix: MatrixFile?, findings: [ValidationFinding], corpus: CorpusLoad?,
                                    settings: PlanSettings) -> Check {
        var (matrix, findings) = (matrix, findings)
        guard let corpus else {
            if let m = matrix, m.command != nil {
                let limits = m.limitFindings(scenariosSelected: m.commandJobsPerConfiguration, settings: settings)
                if !limits.isEmpty { return Check(matrix: nil, findings: (findings + limits).sortedForDisplay(), scenarioFiles: []) }
            }
            return Check(matrix: matrix, findings: findings.sortedForDisplay(), scenarioFiles: [])
        }
        findings += corpus.findings
        if let m = matrix { findings += m.registryFindings(corpus.scenarios, manifests: settings.manifests(for: m)) }
        if let m = matrix, !corpus.scenarios.isEmpty, !corpus.scenarios.contains(where: { m.selects($0.scenario) }) {
            findings.append(ValidationFinding(
                file: m.file, code: MatrixRule.noScenarioSelected.code, path: "$.tags", position: nil,
                message: "the tag filter selects none of the corpus' \(corpus.scenarios.count) scenarios; check include/exclude tags"))
            matrix = nil
        }
        if let m = matrix {
            let limits = m.limitFindings(scenariosSelected: corpus.scenarios.count(where: { m.selects($0.scenario) })
                                            * m.registries.count + m.commandJobsPerConfiguration, settings: settings)
            let unused = limits.isEmpty ? m.registryRules.unusedRegistries(settings: settings) : []
            if !limits.isEmpty || !unused.isEmpty {
                findings += limits + unused
                matrix = nil
            }
        }
        return Check(matrix: matrix, findings: findings.sortedForDisplay(), scenarioFiles: corpus.files)
    }
}
