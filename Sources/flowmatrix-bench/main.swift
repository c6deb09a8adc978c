import FlowMatrixCLI
import Foundation

// `flowmatrix-bench`: the benchmark suites, kept out of the shipped `flowmatrix` (which links no test code).
// `flowmatrix bench …` runs this executable from beside itself; it can also be run directly.
exit(await FlowMatrixCLI.main(["bench"] + CommandLine.arguments.dropFirst(), commands: [BenchCommand.spec]))
