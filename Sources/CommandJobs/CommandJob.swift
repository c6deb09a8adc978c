import Foundation
import MatrixPlan
import RunConditions
import Worker

/// A command job's step argument as the worker reads it (`CommandTemplate.canonicalJSON(item:)`).
public struct CommandJob: Decodable, Sendable, Hashable {
    public var name: String
    public var argv: [String]
    public var shell: Bool?
    public var env: [String: String]?
    public var cwd: String?
    public var timeoutMillis: Int64?
    public var results: [String]?
    public var artifacts: [String]?
    public var item: String?

    /// Reads the argument of a command job's step. - Throws: `CommandError` when it is not one.
    public static func decode(_ argument: String?) throws -> CommandJob {
        guard let argument else { throw CommandError("the command step has no argument (not a command job)") }
        do {
            return try JSONDecoder().decode(CommandJob.self, from: Data(argument.utf8))
        } catch {
            throw CommandError("the command step's argument is not a command: \(error)")
        }
    }

    /// The invocation of one attempt: placeholders filled, `/bin/sh -c` for a shell command, the worker's
    /// environment plus the job's (`FLOWMATRIX_JOB_ID`, `FLOWMATRIX_ATTEMPT`, `FLOWMATRIX_OUTPUT`, then `env`, then
    /// for a shell command the variables its script reads its placeholders from: `ShellScript`).
    public func invocation(_ values: PlaceholderValues, inherited: [String: String]) -> CommandInvocation {
        var arguments = argv.flatMap(values.arguments)
        var scriptVariables: [String: String] = [:]
        if shell == true {
            let (script, variables) = ShellScript.render(argv.first ?? "", values: values)
            arguments = ["/bin/sh", "-c", script]
            scriptVariables = variables
        }
        var environment = inherited
        environment["FLOWMATRIX_JOB_ID"] = values.scalars["job.id"]
        environment["FLOWMATRIX_ATTEMPT"] = values.scalars["attempt"]
        environment["FLOWMATRIX_OUTPUT"] = values.scalars["output"]
        for (key, value) in env ?? [:] { environment[key] = values.text(value) }
        environment.merge(scriptVariables) { _, script in script }
        return CommandInvocation(argv: arguments, environment: environment, workingDirectory: cwd.map(values.text),
                                 timeout: timeoutMillis.map { .milliseconds($0) })
    }
}

/// What the placeholders of one attempt stand for (docs/COMMAND-JOBS.md lists them).
public struct PlaceholderValues: Sendable {
    /// Single-value placeholders: configuration keys, `window.width`, `job.id`, `device.testLanguage`, …
    public var scalars: [String: String]
    /// Placeholders that stand for several arguments (`device.launchArguments`, `device.xcodebuildFlags`).
    public var lists: [String: [String]]

    /// - Parameters:
    ///   - output: the attempt's own output folder (`{output}`).
    public init(context: JobContext, item: String?, output: String) {
        var scalars = context.configuration
        scalars["job.id"] = context.jobID
        scalars["attempt"] = String(context.attempt)
        scalars["seed"] = String(context.seed)
        scalars["output"] = output
        if let item { scalars["item"] = item }
        let conditions = RunConditions(configuration: Configuration(context.configuration), seed: context.seed)
        let device = conditions.deviceArguments
        scalars["window.width"] = String(conditions.viewport.width)
        scalars["window.height"] = String(conditions.viewport.height)
        scalars["device.orientation"] = device.orientation
        scalars["device.windowSize"] = device.windowSize
        let flags = device.xcodebuildFlags
        scalars["device.testLanguage"] = flags.firstIndex(of: "-testLanguage").flatMap { flags.indices.contains($0 + 1) ? flags[$0 + 1] : nil } ?? ""
        scalars["device.testRegion"] = flags.firstIndex(of: "-testRegion").flatMap { flags.indices.contains($0 + 1) ? flags[$0 + 1] : nil } ?? ""
        self.scalars = scalars
        lists = ["device.launchArguments": device.launchArguments, "device.xcodebuildFlags": flags]
    }

    /// One argv element: a list placeholder alone expands to its arguments; anything else is one argument.
    public func arguments(_ template: String) -> [String] {
        if template.hasPrefix("{"), template.hasSuffix("}"), let list = lists[String(template.dropFirst().dropLast())] {
            return list
        }
        return [text(template)]
    }

    /// `template` with its placeholders filled (a key the configuration lacks — an include-added one — is empty).
    /// Not for a shell script: `ShellScript.render`.
    public func text(_ template: String) -> String {
        guard template.contains("{") || template.contains("}") else { return template }
        guard case .success(let pieces) = Placeholder.pieces(template) else { return template }
        return pieces.map { piece in
            switch piece {
            case .text(let t): t
            case .name(let n): value(n.hasPrefix(Placeholder.rawPrefix) ? String(n.dropFirst(Placeholder.rawPrefix.count)) : n)
            }
        }.joined()
    }

    /// What placeholder `name` stands for as one text (a list joined by spaces; an unknown name is empty).
    public func value(_ name: String) -> String { scalars[name] ?? lists[name]?.joined(separator: " ") ?? "" }
}
