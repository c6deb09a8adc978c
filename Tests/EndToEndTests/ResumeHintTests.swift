@testable import FlowMatrixCLI
import Testing

/// What `run` and `serve` tell their user to type once the journal could not be written (a full disk).
@Suite("The resume hint after a journal failure")
struct ResumeHintTests {
    @Test("a serve user is told to resume with serve on the same address; a run user with run")
    func resumeHint() {
        var serve = RunOptions()
        serve.localWorkers = 0
        serve.host = "127.0.0.1"
        serve.port = 7700
        #expect(serve.resumeCommand("r1") == "flowmatrix serve --resume r1 --listen 127.0.0.1:7700")
        serve.host = "::"
        #expect(serve.resumeCommand("r1") == "flowmatrix serve --resume r1 --listen [::]:7700 --token-file <file>")
        var run = RunOptions()
        run.localWorkers = 2
        #expect(run.resumeCommand("r1") == "flowmatrix run --resume r1")
    }
}
