import FlowVocabulary
import Foundation
import Journal
import Reports

/// `flowmatrix report RUN_ID`: writes report.html, junit.xml, summary.json and the artifacts they link.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        overview: "Write a run's HTML report, JUnit XML and JSON summary from the journal.",
        forms: ["<run-id>"],
        arguments: [("<run-id>", "The run to report (see the run ids under .flowmatrix/runs/, or 'last').")],
        options: [
            .store("The store directory with journal.sqlite and blobs/."),
            CommandOption("--baseline", value: .text("<run-id>|last"),
                          help: "Compare with this run ('last': the run before) in a 'Changes' section."),
            CommandOption("--out", value: .text("<dir>"), help: "Where to write.", default: .described("<store>/runs/<run-id>")),
            CommandOption("--artifacts", value: .choice(["failed", "all", "none"]), help: "Which jobs' artifact blobs the "
                + "report folder carries, compressed, once each ('failed': every job that did not pass).",
                          default: .value("failed")),
            CommandOption("--junit-by", value: .choice(["scenario", "configuration"]),
                          help: "One JUnit test suite per scenario or per configuration.", default: .value("scenario")),
            CommandOption("--heat-map-cells", value: .integer("<n>", 1...100_000_000), help: "The most heat-map cells "
                + "drawn one per job, empty places included; past it a cell stands for a group of columns and opens its jobs.",
                          default: .value(String(ReportSettings().heatMapCellLimit))),
            CommandOption("--heat-map-columns", value: .integer("<n>", 1...1_000_000),
                          help: "The most heat-map columns drawn; a wider map is grouped too.",
                          default: .value(String(ReportSettings().heatMapColumnLimit))),
        ],
        discussion: """
            Writes report.html (heat map, failures by axis; job panels with steps and artifacts load when opened),
            junit.xml, summary.json, data/ (the panels' chunks, and a large heat map's drill-down files) and blobs/
            (the artifacts, still compressed) into the output folder, which can be moved or uploaded whole;
            docs/REPORTS.md describes each.
            EXIT CODES: 0 report written, 2 unknown run or unreadable journal or unwritable folder, 64 usage error.
            """,
        run: { args in
            let store = args.value("--store") ?? ".flowmatrix"
            let baseline = args.value("--baseline")
            let out = args.value("--out")
            let selection: ArtifactSelection = switch args.value("--artifacts") {
            case "all": .all
            case "none": .none
            default: .notPassed
            }
            let grouping = args.value("--junit-by").flatMap(JUnitGrouping.init(rawValue:)) ?? .scenario
            let defaults = ReportSettings()
            let cells = args.integer("--heat-map-cells") ?? defaults.heatMapCellLimit
            let columns = args.integer("--heat-map-columns") ?? defaults.heatMapColumnLimit
            guard let requested = try args.positionals(atMost: 1).first else { throw UsageError("missing <run-id>") }

            let storeURL = URL(fileURLWithPath: store)
            let reader = try StoreAccess.reader(store: storeURL)
            let runID = try StoreAccess.resolveRun(requested, reader: reader)
            let folder = out.map { URL(fileURLWithPath: $0) }
                ?? storeURL.appendingPathComponent("runs").appendingPathComponent(runID)
            let files: ReportFiles
            do {
                files = try ReportWriter.write(
                    runID: runID, reader: reader, blobsRoot: storeURL, into: folder, baseline: baseline,
                    settings: ReportSettings(artifacts: selection, junitGrouping: grouping, heatMapCellLimit: cells,
                                             heatMapColumnLimit: columns)
                )
            } catch let error as ReportError {
                throw CommandFailure(error.message, exitCode: ExitCode.ioError)
            } catch let error as JournalError {
                throw CommandFailure(error.userText, exitCode: ExitCode.ioError)
            }
            for warning in files.warnings { FlowMatrixCLI.writeError("warning: \(warning.terminalSafe)\n") }
            print("report: \(files.html.path)")
            print("junit: \(files.junit.path)")
            print("summary: \(files.summary.path)")
            print("panels: \(files.chunks.count) chunk file(s) in \(files.folder.appendingPathComponent("data").path)")
            if !files.cells.isEmpty {
                print("heat map: a cell per group of columns (over \(cells) cells or \(columns) columns); their jobs in"
                      + " \(files.cells.count) drill-down file(s)")
            }
            print("blobs: \(files.carriedBlobs) carried in \(files.blobs.count) pack(s) (\(files.blobBytes) bytes compressed)")
            if let diff = files.diff { print("baseline \(diff.base): \(diff.summaryLine)") }
            print("phases: " + files.timings.map { "\($0.phase) \(Int(($0.seconds * 1000).rounded())) ms" }.joined(separator: ", "))
            return ExitCode.success
        }
    )
}

/// Opening the journal of a store directory for the reporting commands.
enum StoreAccess {
    /// The journal at `<store>/journal.sqlite`, read-only.
    /// - Throws: ``CommandFailure`` (exit 2) when it is missing or unreadable.
    static func reader(store: URL) throws -> JournalReader {
        let path = store.appendingPathComponent("journal.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("no journal at \(path) (run 'flowmatrix run' first, or pass --store)", exitCode: ExitCode.ioError)
        }
        do {
            return try JournalReader(path: path)
        } catch let error as JournalError {
            throw CommandFailure(error.userText, exitCode: ExitCode.ioError)
        }
    }

    /// `last` becomes the most recent run; any other id must be in the journal.
    /// - Throws: ``CommandFailure`` (exit 2) for an unknown run.
    static func resolveRun(_ id: String, reader: JournalReader) throws -> String {
        do {
            guard let runID = try reader.resolveRunID(id) else {
                throw CommandFailure(id == "last" ? "the journal has no run yet" : "no run '\(id)' in the journal",
                                     exitCode: ExitCode.ioError)
            }
            return runID
        } catch let error as JournalError {
            throw CommandFailure(error.userText, exitCode: ExitCode.ioError)
        }
    }
}
