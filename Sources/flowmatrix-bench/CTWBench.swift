import Foundation
import Isolation
import MatrixPlan

/// `bench isolate` on the systems BEN's published figures were measured on (docs/ISOLATE.md, "On BEN's own
/// benchmarks"), run by ``IsolateBench/measure(quick:say:)``: `FLOWMATRIX_BENCH_ISOLATE_CTW=<dir>` reads the CTWedge
/// models of `<dir>/benchmarks` (or `<dir>`) and, when `<dir>/logs/logsFinal.csv` is there, BEN's runs on them; it runs
/// `isolate` ten times per model (ten plan seeds) with as many new tests as BEN used on it, and with the default 20 %
/// of the plan, and prints both beside BEN's logged figures, averaged per model and then over models as the log's own
/// script does.
enum CTWBench {
    typealias System = IsolateBench.System
    typealias Fault = IsolateBench.Fault
    typealias Oracle = IsolateBench.Oracle

    /// BEN's logged figures for one benchmark: means over its runs.
    struct LoggedRuns {
        var precision = 0.0, recall = 0.0, initial = 0.0, new = 0.0

        /// The same figures as a run of ours, to print alike.
        var score: ModelScore { ModelScore(precision: precision, recall: recall, followUps: new, plan: initial) }
    }

    /// Means of per-run precision and recall (a run that confirms nothing has precision 0), and of follow-ups and plan
    /// jobs, over a model's runs.
    struct ModelScore {
        var precision = 0.0, recall = 0.0, followUps = 0.0, plan = 0.0

        static func mean(_ scores: [ModelScore]) -> ModelScore {
            let n = Double(max(1, scores.count))
            return ModelScore(precision: scores.map(\.precision).reduce(0, +) / n, recall: scores.map(\.recall).reduce(0, +) / n,
                              followUps: scores.map(\.followUps).reduce(0, +) / n, plan: scores.map(\.plan).reduce(0, +) / n)
        }

        var line: String {
            String(format: "precision %5.1f %%  recall %5.1f %%  new tests %4.1f on %5.1f (%3.0f %%)", 100 * precision, 100 * recall,
                   followUps, plan, 100 * followUps / max(1, plan))
        }
    }

    static func measure(directory: String, say: (String) -> Void) {
        let fm = FileManager.default
        let models = fm.fileExists(atPath: directory + "/benchmarks") ? directory + "/benchmarks" : directory
        // FLOWMATRIX_BENCH_ISOLATE_CTW_MODEL=gcc runs that model's file only (with FLOWMATRIX_BENCH_ISOLATE_TRACE=<seed>,
        // the trace of its run on that plan seed).
        let only = ProcessInfo.processInfo.environment["FLOWMATRIX_BENCH_ISOLATE_CTW_MODEL"].map { $0 + ".ctw" }
        let files = ((try? fm.contentsOfDirectory(atPath: models)) ?? []).filter { $0.hasSuffix(".ctw") && (only ?? $0) == $0 }.sorted()
        let logged = (try? String(contentsOfFile: directory + "/logs/logsFinal.csv", encoding: .utf8)).map(benRuns) ?? [:]
        say("== bench isolate on CTWedge models (\(models)): \(files.count) models, 10 runs each (plan seeds 0–9); the plan"
            + " is t-wise for t the largest planted combination; BEN's figures from \(logged.isEmpty ? "no run log (none found)" : "the run log beside them")")
        var atBEN: [ModelScore] = [], atDefault: [ModelScore] = [], ben: [LoggedRuns] = []
        for file in files {
            let model: CTWModel
            do {
                model = try CTWModel(parsing: try String(contentsOfFile: models + "/" + file, encoding: .utf8), file: file)
            } catch {
                say("  \(file): skipped: \(error)")
                continue
            }
            let log = logged[benchmarkName(model.name)]
            let newTests = log.map { Int($0.new.rounded()) }
            let runs = IsolateBench.parallelMap(0..<10) { seed in
                (ben: newTests.map { run(model, seed: UInt64(seed), jobs: $0) }, ours: run(model, seed: UInt64(seed), jobs: nil))
            }
            let (b, d) = (runs.compactMap(\.ben), runs.map(\.ours))
            say("  \(model.name): \(model.axes.count) parameters, \(model.faults.count) combinations of \(model.faults.map(\.count).min() ?? 0)–"
                + "\(model.faults.map(\.count).max() ?? 0) values")
            if let log {
                let s = ModelScore.mean(b)
                atBEN.append(s)
                ben.append(log)
                say("    flowmatrix isolate, BEN's new tests  " + s.line)
                say("    BEN (run log)                      " + log.score.line)
            }
            let s = ModelScore.mean(d)
            atDefault.append(s)
            say("    flowmatrix isolate, budget 20 %     " + s.line)
        }
        guard !atDefault.isEmpty else { return }
        say("  mean over the \(atDefault.count) models (per model, then over models):")
        if !atBEN.isEmpty {
            say("    flowmatrix isolate, BEN's new tests  " + ModelScore.mean(atBEN).line + "  (\(atBEN.count) models with a BEN log)")
            let n = Double(ben.count)
            say("    BEN (run log)                      " + String(format: "precision %5.1f %%  recall %5.1f %%  new tests %4.1f on %5.1f",
                                                                       100 * ben.map(\.precision).reduce(0, +) / n, 100 * ben.map(\.recall).reduce(0, +) / n,
                                                                       ben.map(\.new).reduce(0, +) / n, ben.map(\.initial).reduce(0, +) / n))
        }
        say("    flowmatrix isolate, budget 20 %     " + ModelScore.mean(atDefault).line)
    }

    /// One run of `isolate` on a model: a t-wise plan (t the largest combination) seeded `seed`, then a session with
    /// `jobs` follow-ups (nil: 20 % of the plan, at least one).
    static func run(_ model: CTWModel, seed: UInt64, jobs: Int?) -> ModelScore {
        let strength = min(model.axes.count, model.faults.map(\.count).max() ?? 2)
        var matrix = MatrixFile(name: model.name, registry: "bench", seed: seed, axes: model.axes)
        matrix.reduction = strength >= model.axes.count ? .full : .tWise(strength)
        let system = System(matrix: matrix, faults: model.faults.map { Fault(combination: $0, flaky: false) },
                            generator: FollowUpGenerator(matrix: matrix))
        let plan = matrix.plan(scenarios: [], settings: IsolateBench.planSettings).configurations.map(\.values)
        var oracle = Oracle(system: system, seed: seed)
        let source = plan.map { oracle.observe($0, followUp: false) }
        let r = IsolateBench.isolate(system, source: source, strength: strength, budget: 20, jobs: jobs, oracle: &oracle, seed: seed)
        let found = Set(r.found), truth = Set(model.faults)
        let correct = Double(found.intersection(truth).count)
        return ModelScore(precision: found.isEmpty ? 0 : correct / Double(found.count), recall: correct / Double(truth.count),
                          followUps: Double(r.spent), plan: Double(plan.count))
    }

    /// The run log's name for a model: upper-cased, the two running examples renamed.
    static func benchmarkName(_ model: String) -> String {
        ["exA": "RUNNING_EXAMPLE_A", "exB": "RUNNING_EXAMPLE_B"][model] ?? model.uppercased()
    }

    /// BEN's rows of a run log (`run,benchmark,…,process,…,initTests,askedTests,…,precision,recall,…`), averaged per benchmark.
    static func benRuns(_ csv: String) -> [String: LoggedRuns] {
        let rows = csv.split(separator: "\n").map(csvFields)
        let column = { (name: String) in rows.first?.firstIndex(of: name) }
        guard let b = column("benchmark"), let p = column("process"), let i = column("initTests"), let a = column("askedTests"),
              let pr = column("precision"), let re = column("recall") else { return [:] }
        var sums: [String: (LoggedRuns, Int)] = [:]
        for row in rows.dropFirst() where row.count > max(b, p, i, a, pr, re) && row[p] == "BEN" {
            var (s, n) = sums[row[b]] ?? (LoggedRuns(), 0)
            s.precision += Double(row[pr]) ?? 0
            s.recall += Double(row[re]) ?? 0
            s.initial += Double(row[i]) ?? 0
            s.new += Double(row[a]) ?? 0
            sums[row[b]] = (s, n + 1)
        }
        return sums.mapValues { s, n in
            let d = Double(n)
            return LoggedRuns(precision: s.precision / d, recall: s.recall / d, initial: s.initial / d, new: s.new / d)
        }
    }

    /// The fields of one CSV line (double-quoted fields may hold commas; `""` inside one is a quote).
    static func csvFields(_ line: Substring) -> [String] {
        let chars = Array(line.filter { $0 != "\r" })
        var fields: [String] = [], field = "", quoted = false, i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted, c == "\"" {
                if i + 1 < chars.count, chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
            } else if c == "\"" {
                quoted = true
            } else if c == ",", !quoted {
                fields.append(field)
                field = ""
            } else {
                field.append(c)
            }
            i += 1
        }
        fields.append(field)
        return fields
    }
}
