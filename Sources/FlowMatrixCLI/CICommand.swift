import FlowCrypto
import FlowVocabulary
import Foundation
import Worker

/// `flowmatrix ci <engine>`: prints a ready-to-use pipeline, manifest or unit for an engine (docs/SCALE-OUT.md).
enum CICommand {
    static let engines = ["github", "gitlab", "kubernetes", "kubernetes-fleet", "systemd-worker"]

    static let spec = CommandSpec(
        name: "ci",
        overview: "Print a sharded pipeline or manifest for GitHub Actions, GitLab CI, Kubernetes, or a systemd unit.",
        forms: [
            "github|gitlab|kubernetes <matrix> --shards <n>", "kubernetes-fleet <matrix> --image <image>",
            "systemd-worker --connect <host:port>",
        ],
        arguments: [
            ("<engine>", engines.joined(separator: ", ") + " (or systemd)"),
            ("<matrix>", "The matrix path as the shard jobs see it (relative to the checkout or image)."),
        ],
        options: [
            CommandOption("--shards", value: .integer("<n>", 1...1_000),
                          help: "How many shards run in parallel (github, gitlab, kubernetes)."),
            CommandOption("--image", value: .text("<image>"), help: "The container image: required for kubernetes "
                + "(flowmatrix on PATH, the repository in its working directory); for CI, the image that builds and runs "
                + "flowmatrix (the Swift version FlowMatrix is built and tested with).",
                          default: .described(EngineFiles.swiftImage + " for CI")),
            CommandOption("--schedule", value: .text("<cron>"), help: "github: the nightly cron (UTC) of the workflow's "
                + "schedule trigger ('none' for no schedule); gitlab: the cron its comment suggests for a pipeline schedule.",
                          default: .described("'" + EngineFiles.defaultSchedule + "'")),
            CommandOption("--durations", value: .text("<path>"),
                          help: "Pass --durations to every shard (a previous run's journal or summary.json)."),
            CommandOption("--namespace", value: .text("<ns>"), help: "Kubernetes namespace.", default: .value("default")),
            CommandOption("--workers", value: .integer("<n>", 1...1_000), help: "kubernetes-fleet: worker replicas.",
                          default: .value("2")),
            CommandOption("--slots", value: .integer("<n>", 1...256), help: "Slots per worker (kubernetes-fleet, systemd-worker).",
                          default: .described("2 (kubernetes-fleet); the core count (systemd-worker)")),
            CommandOption("--connect", value: .text("<host:port>"), help: "systemd-worker: the coordinator's numeric address."),
            CommandOption("--token-file", value: .text("<file>"), help: "systemd-worker: the token's path on the machine.",
                          default: .value("/etc/flowmatrix/fleet.token")),
            CommandOption("--binary", value: .text("<path>"), help: "systemd-worker: the flowmatrix binary.",
                          default: .value("/usr/local/bin/flowmatrix")),
            CommandOption("--label", value: .text("<key=value>"), help: "systemd-worker: a worker label.", repeatable: true),
        ],
        discussion: """
            The output goes to stdout: redirect it to .github/workflows/flowmatrix.yml, .gitlab-ci.yml, a manifest
            for 'kubectl apply -f', or /etc/systemd/system/flowmatrix-worker.service.
            kubernetes-fleet puts a fresh random token into its Secret: keep the file private.
            EXIT CODES: 0 printed, 64 usage error.
            """,
        run: { args in
            var settings = EngineFiles.Settings(matrix: "", shards: 0)
            settings.image = args.value("--image")
            settings.durations = args.value("--durations")
            if let schedule = args.value("--schedule") {
                guard schedule == "none" || schedule.split(separator: " ", omittingEmptySubsequences: true).count == 5 else {
                    throw UsageError("'--schedule' takes a cron of five fields such as '0 3 * * *', or 'none'")
                }
                settings.schedule = schedule == "none" ? nil : schedule
            }
            let shards = args.integer("--shards")
            settings.namespace = args.value("--namespace") ?? "default"
            settings.workers = args.integer("--workers") ?? 2
            let slots = args.integer("--slots")
            settings.slots = slots ?? 2
            let connect = args.value("--connect")
            let tokenFile = args.value("--token-file") ?? "/etc/flowmatrix/fleet.token"
            let binary = args.value("--binary") ?? "/usr/local/bin/flowmatrix"
            let labels = args.values("--label")
            let rest = args.positionals
            guard let named = rest.first else {
                throw UsageError("name an engine: \(engines.joined(separator: ", "))")
            }
            // `systemd` names the only unit there is.
            let engine = named == "systemd" ? "systemd-worker" : named
            guard engines.contains(engine) else {
                throw UsageError("unknown engine '\(engine)'; engines: \(engines.joined(separator: ", "))")
            }
            var command = "ci " + rest.joined(separator: " ")
            if let shards { command += " --shards \(shards)" }
            if let image = settings.image { command += " --image \(image)" }
            if let durations = settings.durations { command += " --durations \(durations)" }
            if let connect { command += " --connect \(connect)" }
            let text: String
            if engine == "systemd-worker" {
                guard rest.count == 1 else { throw UsageError("systemd-worker takes no matrix") }
                guard let connect, WorkerMain.splitHostPort(connect) != nil else {
                    throw UsageError("systemd-worker needs --connect <host:port> (the coordinator's numeric address)")
                }
                text = EngineFiles.systemdWorker(binary: binary, connect: connect, tokenFile: tokenFile, slots: slots,
                                                 labels: labels, command: command)
            } else {
                guard rest.count == 2 else { throw UsageError("give one matrix after the engine") }
                settings.matrix = rest[1]
                switch engine {
                case "kubernetes-fleet":
                    guard settings.image != nil else {
                        throw UsageError("kubernetes-fleet needs --image (none is published)")
                    }
                    let token = Hex.encode(secureRandomBytes(32))
                    text = EngineFiles.kubernetesFleet(settings, token: token, command: command)
                default:
                    guard let shards else { throw UsageError("\(engine) needs --shards <n>") }
                    settings.shards = shards
                    switch engine {
                    case "github": text = EngineFiles.github(settings, command: command)
                    case "gitlab": text = EngineFiles.gitlab(settings, command: command)
                    default:
                        guard settings.image != nil else {
                            throw UsageError("kubernetes needs --image (none is published)")
                        }
                        text = EngineFiles.kubernetes(settings, command: command)
                    }
                }
            }
            print(text, terminator: "")
            return ExitCode.success
        }
    )
}
