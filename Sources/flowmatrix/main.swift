import FlowMatrixCLI
import Foundation

exit(await FlowMatrixCLI.main(Array(CommandLine.arguments.dropFirst())))
