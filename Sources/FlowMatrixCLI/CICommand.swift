import FlowCrypto
import Foundation
import Worker

/// `flowmatrix ci <engine>`: prints a ready-to-use pipeline, manifest or unit for an engine (docs/SCALE-OUT.md).
enum CICommand {
    static let engines = ["github", "gitlab", "kubernetes", "kubernetes-fleet", "systemd-worker"]

    static let spec = CommandSpec(
        name: "ci",
        overview: "Print a sharded pipeline or manifest for GitHub Actions, GitLab CI, Kubernetes, or a systemd unit.",
        usage: "ci github|gitlab|kubernetes <matrix> --shards <n> [--image <image>] [--durations <path>] [--schedule <cron>]\n"
            + "                      | ci kubernetes-fleet <matrix> --image <image> [--workers <n>] [--slots <n>]\n"
            + "                      | ci systemd-worker --connect <host:port> [--token-file <file>] [--slots <n>]",
        arguments: [
            ("<engine>", engines.joined(separator: ", ") + " (or systemd)"),
            ("<matrix>", "The matrix path as the shard jobs see it (relative to the checkout or image)."),
        ],
        options: [
            ("--shards <n>", "How many shards run in parallel (github, gitlab, kubernetes)."),
            ("--image <image>", "The container image: required for kubernetes (flowmatrix on PATH, the repository in "
                + "its working directory); for CI, the image that builds and runs flowmatrix (default "
                + "\(EngineFiles.swiftImage): the Swift version FlowMatrix is built and tested with)."),
            ("--schedule <cron>", "github: the nightly cron of the workflow's schedule trigger (default '"
                + EngineFiles.defaultSchedule + "' UTC; 'none' for no schedule); gitlab: the cron its comment suggests "
                + "for a pipeline schedule."),
            ("--durations <path>", "Pass --durations to every shard (a previous run's journal or summary.json)."),
            ("--namespace <ns>", "Kubernetes namespace (default: default)."),
            ("--workers <n>", "kubernetes-fleet: worker replicas (default 2)."),
            ("--slots <n>", "Slots per worker (kubernetes-fleet, systemd-worker)."),
            ("--connect <host:port>", "systemd-worker: the coordinator's numeric address."),
            ("--token-file <file>", "systemd-worker: the token's path on the machine "
                + "(default /etc/flowmatrix/fleet.token)."),
            ("--binary <path>", "systemd-worker: the flowmatrix binary (default /usr/local/bin/flowmatrix)."),
            ("--label <key=value>", "systemd-worker: a worker label (repeatable)."),
        ],
        discussion: """
            The output goes to stdout: redirect it to .github/workflows/flowmatrix.yml, .gitlab-ci.yml, a manifest
            for 'kubectl apply -f', or /etc/systemd/system/flowmatrix-worker.service.
            kubernetes-fleet puts a fresh random token into its Secret: keep the file private.
            EXIT CODES: 0 printed, 64 usage error.
            """,
        run: { args in
            var settings = EngineFiles.Settings(matrix: "", shards: 0)
            settings.image = try args.option("--image")
            settings.durations = try args.option("--durations")
            if let schedule = try args.option("--schedule") {
                guard schedule == "none" || schedule.split(separator: " ", omittingEmptySubsequences: true).count == 5 else {
                    throw UsageError("'--schedule' takes a cron of five fields such as '0 3 * * *', or 'none'")
                }
                settings.schedule = schedule == "none" ? nil : schedule
            }
            let shards = try args.intOption("--shards", in: 1...1_000)
            settings.namespace = try args.option("--namespace") ?? "default"
            settings.workers = try args.intOption("--workers", in: 1...1_000) ?? 2
            let slots = try args.intOption("--slots", in: 1...256)
            settings.slots = slots ?? 2
            let connect = try args.option("--connect")
            let tokenFile = try args.option("--token-file") ?? "/etc/flowmatrix/fleet.token"
            let binary = try args.option("--binary") ?? "/usr/local/bin/flowmatrix"
            let labels = try args.options("--label")
            let rest = try args.positionals()
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
