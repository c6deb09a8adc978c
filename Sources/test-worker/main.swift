import FlowMatrixTestKit
import FlowVocabulary
import Foundation
import Worker

// The tests' and benches' worker: hosts FlowMatrixTestKit's `test` registry (also as `test-ui`, a second renderer
// for parity tests; its `crash` target ends this process with `_exit`, as a native crash would) and `noop`. Test-only: the production `flowmatrix worker` does not host
// `test`. Usage: test-worker [--registry test|noop]... --connect <host:port> [--token-file <file>] … (WorkerMain's
// flags; `--registry` hosts only the named ones, as for every worker).
exit(await WorkerMain.run(registries: [TestRegistry.factory, TestRegistry.uiFactory, NoOpRegistry.factory]))
