import Journal

/// A job's step pictures as the journal records them: per step, the PNG of the job's last attempt that kept pictures
/// (web `screenshot.png`, Catalog `wireframe.png`, or any other `image/png`), and the element list beside it (web
/// `elements.json`, Catalog `surface.json`) from which masks take element boxes.
public struct StepPictures: Sendable, Hashable {
    public struct Picture: Sendable, Hashable {
        /// As people count steps: the first is 1.
        public var step: Int
        /// The gzip blob's hash.
        public var sha256: String
        /// The element list's blob hash, when the step has one.
        public var elements: String?
    }

    public var job: PlannedJob
    public var attempt: Int
    public var pictures: [Picture]

    /// Names a registry gives its step picture, preferred in this order over any other PNG.
    static let pictureNames = ["screenshot.png", "wireframe.png"]
    /// Names of element lists, in order of preference.
    static let elementNames = ["elements.json", "surface.json"]

    /// The pictures of `detail`; nil when no attempt kept one.
    public init?(_ detail: JobDetail) {
        let attempts = detail.artifacts.keys.sorted(by: >)
        for attempt in attempts {
            let refs = detail.artifacts[attempt] ?? []
            var byStep: [Int: [ArtifactReference]] = [:]
            for ref in refs { byStep[ref.stepIndex, default: []].append(ref) }
            var pictures: [Picture] = []
            for (index, refs) in byStep.sorted(by: { $0.key < $1.key }) {
                let images = refs.filter { $0.mediaType == "image/png" }
                let chosen = Self.pictureNames.lazy.compactMap { name in images.first { $0.name == name } }.first
                    ?? images.first
                guard let chosen else { continue }
                let elements = Self.elementNames.lazy.compactMap { name in refs.first { $0.name == name } }.first
                pictures.append(Picture(step: index + 1, sha256: chosen.sha256, elements: elements?.sha256))
            }
            if !pictures.isEmpty {
                job = detail.row.job
                self.attempt = attempt
                self.pictures = pictures
                return
            }
        }
        return nil
    }

    /// The baseline key of one of the job's steps.
    public func key(step: Int) -> BaselineKey {
        BaselineKey(registry: job.registry, scenario: job.scenarioID, configuration: job.configuration, step: step)
    }
}
