import FlowCrypto
import Foundation
import Gzip
import Synchronization

/// An artifact compressed and hashed on the worker, ready to stream to the coordinator.
public struct CompressedArtifact: Sendable, Hashable {
    /// The name within its step (`surface.json`, `wireframe.png`, `log.txt`).
    public var name: String
    /// A media type (`application/json`, `image/png`, `text/plain`).
    public var mediaType: String
    public var stepIndex: Int
    /// Lowercase hex SHA-256 of ``compressed`` (the blob's name in the store).
    public var sha256: String
    /// Size before compression.
    public var rawSize: Int
    /// The gzip bytes (a valid `.gz` file).
    public var compressed: [UInt8]

    public init(name: String, mediaType: String, stepIndex: Int, sha256: String, rawSize: Int, compressed: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        self.stepIndex = stepIndex
        self.sha256 = sha256
        self.rawSize = rawSize
        self.compressed = compressed
    }

    public var compressedSize: Int { compressed.count }

    /// The compressed bytes in slices of at most `size` bytes (for ARTIFACT_CHUNK frames), in order.
    public func chunks(size: Int) -> [ArraySlice<UInt8>] {
        let step = max(1, size)
        return stride(from: 0, to: compressed.count, by: step).map { compressed[$0..<min($0 + step, compressed.count)] }
    }
}

/// Collects the artifacts of one job's steps, for step registries (worker side).
///
/// During or after a step, a registry attaches bytes or a file; the sink compresses (gzip, fast level) and
/// hashes them **on the calling task**, so the work happens on the worker's job task, never on a loop
/// thread. Artifacts are keyed by step index; the worker takes them after each step to stream them.
///
/// Thread-safe: attach from any task. Deep code that has no sink in hand uses ``current``:
///
/// ```swift
/// let sink = ArtifactSink()
/// try await ArtifactSink.$current.withValue(sink) {
///     sink.beginStep(3)
///     try await registry.perform(step)   // deep inside: try ArtifactSink.current?.attach(...)
/// }
/// let artifacts = sink.takeArtifacts(step: 3)
/// ```
public final class ArtifactSink: Sendable {
    /// The sink of the job the current task runs, bound by the worker with `ArtifactSink.$current.withValue`.
    /// Child tasks inherit it; detached tasks and other threads do not.
    @TaskLocal public static var current: ArtifactSink?

    private struct State {
        var currentStep = 0
        var byStep: [Int: [CompressedArtifact]] = [:]
    }

    private let state = Mutex(State())
    /// The gzip level used for every artifact of this sink.
    public let level: Int
    /// The largest artifact accepted, before compression.
    public let maxRawSize: Int

    /// - Parameters:
    ///   - level: gzip level, default ``GzipCodec/defaultLevel`` (1).
    ///   - maxRawSize: the largest artifact accepted before compression (default 1 GiB).
    public init(level: Int = GzipCodec.defaultLevel, maxRawSize: Int = 1 << 30) {
        self.level = level
        self.maxRawSize = maxRawSize
    }

    /// Sets the step that `attach` without an explicit `step:` files artifacts under.
    public func beginStep(_ index: Int) {
        state.withLock { $0.currentStep = index }
    }

    /// The step set by the last ``beginStep(_:)`` (0 before any).
    public var currentStep: Int { state.withLock { $0.currentStep } }

    /// Compresses, hashes and keeps `bytes` as an artifact of `step` (default: the current step).
    /// - Parameter level: overrides the sink's level for this artifact: 0 stores bytes that are already compressed
    ///   (PNG, JPEG, video), where deflating again costs CPU and saves nothing.
    /// - Throws: ``ArtifactError`` `.duplicateName` when the step already has an artifact named `name`,
    ///   `.tooLarge` past ``maxRawSize``.
    @discardableResult
    public func attach(name: String, mediaType: String, bytes: some Collection<UInt8>, step: Int? = nil,
                       level: Int? = nil) throws -> CompressedArtifact
    {
        let step = step ?? currentStep
        try checkNew(name: name, step: step, size: bytes.count)
        let compressed = try ArtifactError.convertingGzip { try GzipCodec.compress(bytes, level: level ?? self.level) }
        let artifact = CompressedArtifact(
            name: name, mediaType: mediaType, stepIndex: step, sha256: SHA256.hexHash(compressed),
            rawSize: bytes.count, compressed: compressed
        )
        try keep(artifact)
        return artifact
    }

    /// Streams the file at `file` through the compressor (never loading it whole) and keeps it as an artifact.
    /// - Parameter name: default: the file's last path component.
    @discardableResult
    public func attach(file: URL, name: String? = nil, mediaType: String, step: Int? = nil) throws -> CompressedArtifact
    {
        let step = step ?? currentStep
        let name = name ?? file.lastPathComponent
        try checkNew(name: name, step: step, size: 0)
        let fd = try SystemFunnel.retrying("open \(file.path)") { open(file.path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        let compressor = try ArtifactError.convertingGzip { try GzipCompressor(level: level) }
        var compressed: [UInt8] = []
        var rawSize = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try SystemFunnel.retrying("read \(file.path)") { systemRead(fd, buffer) }
            if n == 0 { break }
            rawSize += n
            guard rawSize <= maxRawSize else {
                throw ArtifactError(
                    code: .tooLarge, message: "\(file.path) is larger than \(maxRawSize) bytes", operation: "attach")
            }
            try ArtifactError.convertingGzip {
                try compressor.compress(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) {
                    compressed.append(contentsOf: $0)
                }
            }
        }
        try ArtifactError.convertingGzip { try compressor.finish { compressed.append(contentsOf: $0) } }
        let artifact = CompressedArtifact(
            name: name, mediaType: mediaType, stepIndex: step, sha256: SHA256.hexHash(compressed),
            rawSize: rawSize, compressed: compressed
        )
        try keep(artifact)
        return artifact
    }

    /// The artifacts of `step`, in attach order.
    public func artifacts(step: Int) -> [CompressedArtifact] {
        state.withLock { $0.byStep[step] ?? [] }
    }

    /// Returns and forgets the artifacts of `step`.
    public func takeArtifacts(step: Int) -> [CompressedArtifact] {
        state.withLock { $0.byStep.removeValue(forKey: step) ?? [] }
    }

    /// Returns and forgets every artifact, by step then attach order.
    public func takeAll() -> [CompressedArtifact] {
        state.withLock { state in
            defer { state.byStep.removeAll() }
            return state.byStep.keys.sorted().flatMap { state.byStep[$0] ?? [] }
        }
    }

    private func checkNew(name: String, step: Int, size: Int) throws {
        guard size <= maxRawSize else {
            throw ArtifactError(
                code: .tooLarge, message: "artifact '\(name)' is larger than \(maxRawSize) bytes", operation: "attach")
        }
        try state.withLock { state throws(ArtifactError) in
            if state.byStep[step]?.contains(where: { $0.name == name }) == true {
                throw ArtifactError(
                    code: .duplicateName, message: "step \(step + 1) already has an artifact named '\(name)'",
                    operation: "attach")
            }
        }
    }

    func keep(_ artifact: CompressedArtifact) throws {
        try state.withLock { state throws(ArtifactError) in
            if state.byStep[artifact.stepIndex]?.contains(where: { $0.name == artifact.name }) == true {
                throw ArtifactError(
                    code: .duplicateName,
                    message: "step \(artifact.stepIndex + 1) already has an artifact named '\(artifact.name)'",
                    operation: "attach"
                )
            }
            state.byStep[artifact.stepIndex, default: []].append(artifact)
        }
    }
}
