import Artifacts
import FlowCrypto
import FlowVocabulary
import Foundation
import Journal
import RunControl

extension RunSummary {
    /// ` [shard 2/4]` for a shard, ` [merged from 4 shards]` for a merged run, else empty (for `runs` and `show`).
    var scaleOutNote: String {
        if let shard = ShardRecord(settingsJSON: info.settingsJSON) { return " [shard \(shard.index)/\(shard.count)]" }
        let object = try? JSONSerialization.jsonObject(with: Data(info.settingsJSON.utf8)) as? [String: Any]
        guard let shards = (object?["merged"] as? [String: Any])?["shards"] as? Int else { return "" }
        return " [merged from \(shards) shards]"
    }
}

/// `flowmatrix merge`: shard stores into one run, with the reports of a run.
enum MergeCommand {
    /// Exit code when the shards do not make one run (missing, duplicated, of different plans, unfinished).
    static let notOneRun = ExitCode.invalidInput

    static let spec = CommandSpec(
        name: "merge",
        overview: "Merge the stores of a sharded run ('run --shard i/n') into one run with one report.",
        forms: ["<shard-store>..."],
        arguments: [("<shard-store>", "A shard's store folder (its --store; each holds one shard's run).")],
        options: [
            .store("Where the merged run, its blobs and reports go."),
            CommandOption("--baseline", value: .text("<run>"), help: "Compare with a run ('last' or a run id) in the report."),
            CommandOption("--strict", help: "Flaky jobs fail the merge (exit 1), as for 'run --strict'."),
            CommandOption("--quiet", help: "No summary."),
        ],
        discussion: """
            Each shard store contributes its latest shard run. Journal rows (jobs, attempts, steps, results,
            artifact references) are copied in plan order and the blobs they reference are copied (verified) into
            the target store, so the merged run reads, reports and diffs like one unsharded run. The merged run id
            is derived from the shard runs: merging the same shards again changes nothing.
            EXIT CODES: 0 all jobs passed, 1 failures, 2 I/O error, 64 usage error, 65 the shards do not make one
            run (a shard missing, given twice, of another plan, or unfinished: finish it with 'run --resume').
            """,
        run: { args in
            let store = RunStore(path: args.value("--store"))
            let baseline = args.value("--baseline")
            let strict = args.has("--strict")
            let quiet = args.has("--quiet")
            let stores = args.positionals
            guard !stores.isEmpty else { throw UsageError("give the shard stores to merge") }
            return try merge(stores: stores.map { RunStore(path: $0) }, into: store, baseline: baseline, strict: strict,
                             quiet: quiet)
        }
    )

    /// One shard as found in its store.
    struct Shard {
        var store: RunStore
        var summary: RunSummary
        var record: ShardRecord
    }

    static func merge(stores: [RunStore], into target: RunStore, baseline: String?, strict: Bool, quiet: Bool)
        throws -> Int32
    {
        var (shards, problems) = try findShards(in: stores)
        problems += check(shards)
        guard problems.isEmpty else {
            for p in problems { FlowMatrixCLI.writeError("error: \(p)\n") }
            throw CommandFailure("the shards do not make one run; nothing was merged", exitCode: notOneRun)
        }
        shards.sort { $0.record.index < $1.record.index }
        try target.create()
        // Blobs first (copy if absent, verified): a merge stopped half way leaves unreferenced blobs at most.
        let (contents, copied) = try copyBlobs(of: shards, into: target)
        let runID = mergedRunID(shards)
        let writer: JournalWriter
        let reader: JournalReader
        do {
            writer = try JournalWriter(path: target.journalPath)  // first: it creates the journal
            reader = try JournalReader(path: target.journalPath)
        } catch {
            throw CommandFailure("cannot open the journal \(target.journalPath): \(error)")
        }
        let already = try writeMergedRun(runID, of: shards, contents: contents, into: target,
                                         writer: writer, reader: reader)
        var reportNote: String?
        let report = target.runFolder(runID).appendingPathComponent("report.html").path
        if !already || !FileManager.default.fileExists(atPath: report) {
            reportNote = RunReportWriter.writeReports(runID: runID, store: target, baseline: baseline)
        }
        guard let merged = try reader.run(runID) else {
            throw CommandFailure("the merged run \(runID) is not in the journal")
        }
        let count = { (o: JobOutcome) in merged.outcomes[o] ?? 0 }
        if !quiet {
            if already {
                FlowMatrixCLI.say("already merged: run \(runID) holds these \(shards.count) shard(s); nothing changed")
            } else {
                FlowMatrixCLI.say("merged \(shards.count) shard(s) of plan \(shards[0].record.planHash.prefix(12)) "
                    + "into run \(runID): \(merged.jobCount) job(s), \(copied) blob(s) copied")
            }
            let notRun = count(.notRun) + count(.cancelled)
            FlowMatrixCLI.say("run \(runID): \(count(.passed)) passed, \(count(.failed)) failed, "
                + "\(count(.flaky)) flaky, "
                + "\(count(.timedOut)) timed out, \(count(.quarantined)) quarantined, \(notRun) not run")
            if let reportNote { FlowMatrixCLI.say("  \(reportNote)") }
            FlowMatrixCLI.say("  details: flowmatrix show \(runID)  (store: \(target.root.path))")
        }
        return RunVerdict.exitCode(strict: strict, count: count)
    }

    /// Each store's latest shard run, and a sentence for each store that has none.
    static func findShards(in stores: [RunStore]) throws -> (shards: [Shard], problems: [String]) {
        var shards: [Shard] = []
        var problems: [String] = []
        for store in stores {
            guard FileManager.default.fileExists(atPath: store.journalPath) else {
                problems.append("\(store.root.path): no journal (not a shard store)")
                continue
            }
            let reader: JournalReader
            do { reader = try JournalReader(path: store.journalPath) } catch {
                throw CommandFailure("cannot open the journal of \(store.root.path): \(error)")
            }
            guard let found = try reader.runs(limit: 1_000).lazy
                .compactMap({ s in ShardRecord(settingsJSON: s.info.settingsJSON).map { (s, $0) } }).first
            else {
                problems.append("\(store.root.path): no shard run (made by 'flowmatrix run --shard i/n')")
                continue
            }
            shards.append(Shard(store: store, summary: found.0, record: found.1))
        }
        return (shards, problems)
    }

    /// Reads each shard's run and copies the blobs it references into the target store (verified, absent ones only).
    static func copyBlobs(of shards: [Shard], into target: RunStore) throws -> (contents: [RunContent], copied: Int) {
        var contents: [RunContent] = []
        var copied = 0
        var missingBlobs = 0
        let targetBlobs: BlobStore
        do { targetBlobs = try BlobStore(root: target.blobsRoot) } catch {
            throw CommandFailure("cannot open the blob store in \(target.root.path): \(error)")
        }
        for shard in shards {
            let content = try JournalReader(path: shard.store.journalPath).content(run: shard.summary.info.runID)
            contents.append(content)
            let source = try BlobStore(root: shard.store.blobsRoot)
            for sha in Set(content.artifacts.map { $0.artifact.sha256.lowercased() }).sorted() {
                guard !targetBlobs.contains(sha) else { continue }
                guard source.contains(sha) else {
                    missingBlobs += 1
                    continue
                }
                let writer = try targetBlobs.makeWriter()
                try writer.append(try source.compressedBytes(sha, maxSize: Int.max))
                _ = try writer.commit(expectedSHA256: sha)  // verifies the hash; the size is known already
                copied += 1
            }
        }
        if missingBlobs > 0 {
            FlowMatrixCLI.writeError("warning: \(missingBlobs) artifact blob(s) referenced by the shards are missing "
                + "from their stores; the report lists them as unavailable\n")
        }
        return (contents, copied)
    }

    /// Writes the merged run's rows in plan order and closes `writer`; returns true when the journal already holds
    /// this merge.
    static func writeMergedRun(
        _ runID: String, of shards: [Shard], contents: [RunContent], into target: RunStore, writer: JournalWriter,
        reader: JournalReader
    ) throws -> Bool {
        let first = shards[0]
        if let existing = try reader.run(runID) {
            try writer.close()
            guard mergedPlanHash(existing.info.settingsJSON) == first.record.planHash else {
                throw CommandFailure("\(target.journalPath) already has a run \(runID) that is not this merge")
            }
            return true
        }
        var order: [String: Int] = [:]
        for (shard, content) in zip(shards, contents) {
            for (row, position) in zip(content.jobs, shard.record.positions) { order[row.job.jobID] = position }
        }
        let info = RunInfo(
            runID: runID, matrixName: first.summary.info.matrixName, matrixPath: first.summary.info.matrixPath,
            seed: first.summary.info.seed, startedAt: shards.map(\.summary.info.startedAt).min() ?? Date(),
            settingsJSON: mergedSettings(shards))
        let finished = shards.compactMap(\.summary.finishedAt).max() ?? Date()
        try writer.submit(RunTransfer.records(merging: contents, as: info, order: order, status: .completed,
                                              finishedAt: finished))
        try writer.flushSync()
        let rejections = writer.takeRejections()
        try writer.close()
        guard rejections.isEmpty else {
            throw CommandFailure("the merge wrote \(rejections.count) record(s) the journal refused, first: "
                + "\(rejections[0].kind): \(rejections[0].error)")
        }
        return false
    }

    /// Everything that keeps `shards` from being one run, each as a sentence.
    static func check(_ shards: [Shard]) -> [String] {
        guard let first = shards.first else { return [] }
        var problems: [String] = []
        func name(_ s: Shard) -> String {
            "shard \(s.record.index)/\(s.record.count) (run \(s.summary.info.runID) in \(s.store.root.path))"
        }
        var consistent: [Shard] = []
        for shard in shards {
            if shard.record.planHash != first.record.planHash {
                problems.append("\(name(shard)) is of another plan than \(name(first)) (plan hash "
                    + "\(shard.record.planHash.prefix(12)) vs \(first.record.planHash.prefix(12))): shards must come "
                    + "from the same matrix, corpus, seed and policy")
            } else if shard.record.count != first.record.count {
                problems.append("\(name(shard)) splits the plan into \(shard.record.count) shards, \(name(first)) into "
                    + "\(first.record.count)")
            } else {
                consistent.append(shard)
            }
            if shard.summary.status != .completed {
                problems.append("\(name(shard)) is \(shard.summary.status.rawValue), not completed: finish it with "
                    + "'flowmatrix run --resume \(shard.summary.info.runID) --store \(shard.store.root.path)'")
            }
            if shard.summary.jobCount != shard.record.positions.count {
                problems.append("\(name(shard)) journaled \(shard.summary.jobCount) job(s) but its split gave it "
                    + "\(shard.record.positions.count)")
            }
        }
        let byIndex = Dictionary(grouping: consistent, by: \.record.index)
        for index in byIndex.keys.sorted() where byIndex[index, default: []].count > 1 {
            let copies = byIndex[index, default: []]
            problems.append("shard \(index)/\(first.record.count) is given \(copies.count) times: "
                + copies.map { "run \($0.summary.info.runID) in \($0.store.root.path)" }.joined(separator: ", "))
        }
        let missing = (1...first.record.count).filter { byIndex[$0] == nil }
        if !missing.isEmpty, problems.allSatisfy({ !$0.contains("another plan") && !$0.contains("splits the plan") }) {
            let list = missing.map { "\($0)/\(first.record.count)" }.joined(separator: ", ")
            let verb = missing.count == 1 ? "shard \(list) is" : "shards \(list) are"
            problems.append("\(verb) missing: \(first.record.count) shards make the plan of \(first.record.planJobs) "
                + "job(s), \(byIndex.count) given")
        }
        return problems
    }

    /// The merged run's id: the earliest shard start, then 4 hex digits of a hash of the plan and the shard runs,
    /// so the same shards always merge into the same run.
    static func mergedRunID(_ shards: [Shard]) -> String {
        let key = shards[0].record.planHash + "\n" + shards.map(\.summary.info.runID).sorted().joined(separator: "\n")
        let digest = SHA256.hash(Array(key.utf8))
        let start = shards.map(\.summary.info.startedAt).min() ?? Date(timeIntervalSince1970: 0)
        return RunID.make(at: start, suffix: UInt16(digest[0]) << 8 | UInt16(digest[1]))
    }

    /// The shards' settings without their own shard record, plus where the merged run came from.
    static func mergedSettings(_ shards: [Shard]) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(shards[0].summary.info.settingsJSON.utf8)))
            as? [String: Any] ?? [:]
        object["shard"] = nil
        object["merged"] = [
            "planHash": shards[0].record.planHash, "shards": shards[0].record.count,
            "runs": shards.map { ["index": $0.record.index, "runID": $0.summary.info.runID] },
        ] as [String: Any]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func mergedPlanHash(_ settingsJSON: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(settingsJSON.utf8)) as? [String: Any]
        return (object?["merged"] as? [String: Any])?["planHash"] as? String
    }
}
