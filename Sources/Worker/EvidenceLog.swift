import Artifacts
import FlowSpec
import FlowVocabulary
import Synchronization

/// The evidence of one attempt, kept raw until the attempt's outcome says whether it is sent: rendering and
/// compressing the artifacts of attempts the keep policy drops would be wasted work (most steps of most jobs pass
/// and are never looked at).
///
/// Holds what a `StepEvidenceProviding` registry captured after each step; the runner's own step log is rendered
/// from the step records only when the evidence is kept, so a registry without evidence costs nothing per step.
final class EvidenceLog: Sendable {
    private let provider: any StepEvidenceProviding
    private let entries = Mutex<[(step: Int, attachment: StepAttachment)]>([])

    init(provider: any StepEvidenceProviding) { self.provider = provider }

    /// Asks the registry for its evidence of the state after step `index`.
    func capture(afterStep index: Int, step: Step) async {
        let attachments = await provider.evidence(afterStep: index, step: step)
        guard !attachments.isEmpty else { return }
        entries.withLock { e in for a in attachments { e.append((index, a)) } }
    }

    /// The runner's step log: outcome, duration, message, interruptions handled, and the registry's log lines.
    static func stepLog(_ record: StepRecord, step: Step) -> StepAttachment {
        StepAttachment(name: "step.log", mediaType: "text/plain") {
            var lines = ["step \(record.index + 1) \(step.description): \(record.outcome.rawValue) in \(record.duration.secondsText)"]
            if let message = record.message { lines.append("message: \(message)") }
            lines += record.interruptions.map { "interruption handled: \($0)" }
            lines += record.log
            return Array((lines.joined(separator: "\n") + "\n").utf8)
        }
    }

    /// Media that are compressed already: stored in their gzip member rather than deflated again.
    static func isCompressedMedia(_ mediaType: String) -> Bool {
        ["image/png", "image/jpeg", "image/webp", "video/mp4", "application/gzip", "application/zip"].contains(mediaType)
    }

    /// Renders and compresses each step's log and the registry's evidence of it (plus what registries attached to
    /// the sink themselves), in step order. An attachment that cannot be compressed is replaced by a text note.
    /// - Parameters:
    ///   - records: the step records as the runner reported them.
    ///   - steps: the scenario's steps.
    ///   - attachments: the registry's evidence, when it provides any.
    static func compress(_ records: [StepRecord], steps: [Step], attachments: EvidenceLog?,
                         into sink: ArtifactSink) -> [CompressedArtifact] {
        var captured = attachments?.entries.withLock { $0 } ?? []
        var ordered: [(step: Int, attachment: StepAttachment)] = []
        for record in records where steps.indices.contains(record.index) {
            ordered.append((record.index, stepLog(record, step: steps[record.index])))
            ordered += captured.filter { $0.step == record.index }
            captured.removeAll { $0.step == record.index }
        }
        ordered += captured
        for (step, a) in ordered {
            do {
                _ = try sink.attach(name: a.name, mediaType: a.mediaType, bytes: a.bytes, step: step,
                                    level: isCompressedMedia(a.mediaType) ? 0 : nil)
            } catch {
                _ = try? sink.attach(name: a.name + ".error.txt", mediaType: "text/plain",
                                     bytes: Array("could not store \(a.name): \(error)\n".utf8), step: step)
            }
        }
        return sink.takeAll().sorted { ($0.stepIndex, $0.name) < ($1.stepIndex, $1.name) }
    }
}
