import Foundation
import Isolation
import MatrixPlan
import Synchronization
import Testing
@testable import flowmatrix_bench

/// `bench isolate`'s reader of CTWedge models whose constraints are negated failure-inducing combinations, and its run
/// on a directory of them beside a run log (the models here are made up for the test).
@Suite("bench isolate on CTWedge models", .timeLimit(.minutes(2)))
struct CTWModelTests {
    static let model = """
        Model Shop
        // a comment: ignored
        Parameters:
          locale : { en, de, ar };
          dark : Boolean
          rtl: Boolean
          size: {s m l}

        Constraints:
          # ! (locale=ar and !rtl) #
          # !(dark and size==l) #
          # rtl || dark #
          # !locale=de #
        """

    @Test("parameters of both forms; each constraint's negation is a combination, disjunctions of Booleans included")
    func parses() throws {
        let m = try CTWModel(parsing: Self.model, file: "shop.ctw")
        #expect(m.name == "Shop")
        #expect(m.axes == [Axis(name: "locale", values: ["en", "de", "ar"]), Axis(name: "dark", values: ["true", "false"]),
                           Axis(name: "rtl", values: ["true", "false"]), Axis(name: "size", values: ["s", "m", "l"])])
        #expect(m.faults == [Combination(["locale": "ar", "rtl": "false"]), Combination(["dark": "true", "size": "l"]),
                             Combination(["rtl": "false", "dark": "false"]), Combination(["locale": "de"])])
        let single = try CTWModel(parsing: "Model m\nParameters:\n a: Boolean\n b: Boolean\nConstraints:\n # b #\n", file: "m.ctw")
        #expect(single.faults == [Combination(["b": "false"])])
    }

    @Test("bad models are refused with the file and the reason", arguments: [
        ("Model m\nConstraints:\n# !a #\n", "no 'Parameters:' section"),
        ("Model m\nParameters:\n a: Integer\nConstraints:\n# !a #\n", "neither Boolean nor an enumeration"),
        ("Model m\nParameters:\n a: {x}\nConstraints:\n# !a=x #\n", "fewer than two values"),
        ("Model m\nParameters:\n a: Boolean\nConstraints:\n# !(a and c) #\n", "'c' names no parameter value"),
        ("Model m\nParameters:\n a: {x y}\n b: Boolean\nConstraints:\n# a=x || b #\n", "is not a Boolean literal"),
        ("Model m\nParameters:\n a: Boolean\nConstraints:\n# !(a and !a) #\n", "names 'a' twice"),
        ("Model m\nParameters:\n a: Boolean\nConstraints:\n", "no constraint"),
    ])
    func refuses(text: String, reason: String) {
        #expect {
            try CTWModel(parsing: text, file: "m.ctw")
        } throws: { error in
            "\(error)".hasPrefix("m.ctw: ") && "\(error)".contains(reason)
        }
    }

    @Test("a run log's BEN rows are averaged per benchmark; quoted fields keep their commas")
    func runLog() {
        let csv = """
            run,benchmark,params,process,initTests,askedTests,precision,recall,isomfics
            1,SHOP,4,BEN,12,4,1,0.5,"[{a=true, b=false}]"
            2,SHOP,4,BEN,12,6,0.5,1,"[{a=true}, {b=""x""}]"
            1,SHOP,4,MIX,20,0,1,1,[]
            """
        let runs = CTWBench.benRuns(csv)
        #expect(runs.count == 1)
        let shop = try! #require(runs["SHOP"])
        #expect(shop.precision == 0.75 && shop.recall == 0.75 && shop.initial == 12 && shop.new == 5)
        #expect(CTWBench.csvFields(#"1,"[{a=true, b=""x""}]",3"#) == ["1", #"[{a=true, b="x"}]"#, "3"])
        #expect(CTWBench.benchmarkName("exA") == "RUNNING_EXAMPLE_A" && CTWBench.benchmarkName("Tomcat") == "TOMCAT")
    }

    @Test("isolate finds a model's planted combinations and prints its figures beside BEN's logged ones")
    func measures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ctw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("benchmarks"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("logs"), withIntermediateDirectories: true)
        // Two planted pairs on five axes: a pairwise plan exposes both.
        let model = "Model Pairs\nParameters:\n a: {a1 a2 a3}\n b: {b1 b2 b3}\n c: Boolean\n d: Boolean\n e: {e1 e2}\n"
            + "Constraints:\n # !(a=a2 and b=b3) #\n # !(c and e=e2) #\n"
        try model.write(to: dir.appendingPathComponent("benchmarks/pairs.ctw"), atomically: true, encoding: .utf8)
        try "# broken".write(to: dir.appendingPathComponent("benchmarks/broken.ctw"), atomically: true, encoding: .utf8)
        try "run,benchmark,process,initTests,askedTests,precision,recall\n1,PAIRS,BEN,9,6,0.5,0.5\n"
            .write(to: dir.appendingPathComponent("logs/logsFinal.csv"), atomically: true, encoding: .utf8)
        let m = try CTWModel(parsing: model, file: "pairs.ctw")
        let scores = (0..<10).map { CTWBench.run(m, seed: UInt64($0), jobs: 6) }
        // Deterministic pairs, six follow-ups each time: nothing else confirmed, and at most two pairs missed in the ten
        // runs (seed 3: the follow-ups go to pairs that two failing configurations hold, one explained already).
        let mean = CTWBench.ModelScore.mean(scores)
        #expect(mean.precision == 1 && mean.recall >= 0.9, "precision \(mean.precision), recall \(mean.recall)")
        #expect(scores.allSatisfy { $0.followUps <= 6 })
        let lines = Mutex<[String]>([])
        CTWBench.measure(directory: dir.path) { line in lines.withLock { $0.append(line) } }
        let out = lines.withLock { $0 }.joined(separator: "\n")
        #expect(out.contains("broken.ctw: skipped: broken.ctw: no 'Parameters:' section"))
        #expect(out.contains("Pairs: 5 parameters, 2 combinations of 2–2 values"))
        #expect(out.contains("flowmatrix isolate, BEN's new tests  precision 100.0 %  recall  90.0 %  new tests  6.0 on"))
        #expect(out.contains("BEN (run log)                      precision  50.0 %  recall  50.0 %  new tests  6.0 on   9.0"))
        #expect(out.contains("mean over the 1 models"))
    }
}
