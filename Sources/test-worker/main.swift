import FlowMatrixTestKit
import FlowVocabulary
import Foundation
import Worker

// The tests' and benches' worker: hosts FlowMatrixTestKit's `test` registry (whose `crash` target ends this process
// with `_exit`, as a native crash would) and `noop`. Test-only: the production `flowmatrix worker` does not host
// `test`. Usage: test-worker [--registry test|noop]... --connect <host:port> [--token-file <file>] … (WorkerMain's
// flags); `--registry` hosts only the named ones, as `flowmatrix worker --registry` does.
let all = [TestRegistry.factory, NoOpRegistry.factory]
var arguments = Array(CommandLine.arguments.dropFirst())
var chosen: [String] = []
while let index = arguments.firstIndex(of: "--registry") {
    guard index + 1 < arguments.count, all.contains(where: { $0.name == arguments[index + 1] }) else {
        let given = index + 1 < arguments.count ? "'\(arguments[index + 1])'" : "nothing"
        FileHandle.standardError.write(Data("Error: '--registry' takes test or noop, not \(given)\n".utf8))
        exit(ExitCode.usage)
    }
    chosen.append(arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}
let hosted = chosen.isEmpty ? all : all.filter { chosen.contains($0.name) }
exit(await WorkerMain.run(registries: hosted, arguments: arguments))
