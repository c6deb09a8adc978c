import Artifacts
import FlowCrypto
import FlowMatrixCLI
import Foundation
import Gzip
import Synchronization

/// `flowmatrix bench artifacts`: compress + hash throughput against the gzip tool, and blob store ingest.
enum ArtifactsBench {
    static let suite = BenchSuite(
        name: "artifacts",
        overview: "gzip level 1 + SHA-256 vs 'gzip -1' (target ratio >= 0.9); blob store ingest MB/s and RSS.",
        run: { quick in
            // Ingest first, so the peak RSS it prints is its own (the compression corpus is ~100 MB).
            try ingest(totalBytes: quick ? 8 << 20 : 2_000_000_000, writers: 2)
            try ingestWithoutSync(totalBytes: quick ? 8 << 20 : 512 << 20)
            try compression(corpusBytes: quick ? 2 << 20 : 48 << 20, repeats: quick ? 1 : 3)
        }
    )

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// CPU seconds used by the process so far (all threads): robust when the machine is shared.
    private static func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    // MARK: - Data

    /// Pseudo-random bytes (xorshift): incompressible, like compressed artifacts.
    enum Sample {
        static func noise(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
            var state = seed
            return (0..<count).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
        }
    }

    /// A step's surface snapshot: JSON of accessibility rows (labels in several scripts), ~`count` bytes.
    static func jsonSnapshot(_ count: Int, seed: Int) -> [UInt8] {
        let labels = [
            "Checkout", "الدفع", "Überprüfung der Bestellung", "[Ćĥéçķöûţ one two]", "お支払い", "Total: 12,50 €",
        ]
        var text = "{\"scenario\":\"checkout-\(seed)\",\"viewport\":{\"width\":390,\"height\":844},\"surface\":["
        var i = seed
        while text.utf8.count < count {
            text +=
                "{\"id\":\"node-\(i)\",\"role\":\"\(["button", "staticText", "image", "cell"][i % 4])\","
                + "\"label\":\"\(labels[i % labels.count])\",\"frame\":[\(i * 13 % 390),\(i * 44 % 844),\(120 + i % 200),44],"
                + "\"enabled\":\(i % 7 != 0),\"value\":\(i * 7919 % 100_000)},\n"
            i += 1
        }
        return Array(text.utf8.prefix(count))
    }

    /// A wireframe PNG: signature, IHDR, then an IDAT of deflated scanlines (flat boxes plus anti-aliased
    /// noise) — already compressed, as real PNGs are.
    static func pngLike(width: Int, height: Int, seed: UInt64) throws -> [UInt8] {
        var state = seed | 1
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(1)  // PNG "sub" filter
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let box = (x / 48 + y / 44) % 5 == 0
                let edge = x % 48 == 0 || y % 44 == 0
                let v: UInt8 =
                    edge ? UInt8(truncatingIfNeeded: state) : (box ? 0 : UInt8(truncatingIfNeeded: state & 3))
                raw.append(v)
                raw.append(v)
                raw.append(edge ? UInt8(truncatingIfNeeded: state >> 8) : v)
            }
        }
        let idat = try GzipCodec.compress(raw, level: 6)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("IHDR".utf8) + [UInt8](repeating: 0, count: 13)
            + idat
    }

    // MARK: - (a) compression + hash vs gzip -1

    static func compression(corpusBytes: Int, repeats: Int) throws {
        var json: [[UInt8]] = []
        var jsonTotal = 0
        while jsonTotal < corpusBytes {
            let doc = jsonSnapshot(64 * 1024 + (json.count * 7919) % (192 * 1024), seed: json.count)
            jsonTotal += doc.count
            json.append(doc)
        }
        var png: [[UInt8]] = []
        var pngTotal = 0
        while pngTotal < corpusBytes {
            let image = try pngLike(width: 390, height: 844, seed: UInt64(png.count + 1))
            pngTotal += image.count
            png.append(image)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowmatrix-bench-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: dir) } catch {
                print("note: could not remove \(dir.path): \(error)")
            }
        }
        print(
            "(a) compress + SHA-256 at level \(GzipCodec.defaultLevel), per artifact through ArtifactSink, vs 'gzip -\(GzipCodec.defaultLevel) -c' piped (best of \(repeats))"
        )
        for (name, artifacts) in [("JSON snapshots", json), ("PNG-like", png), ("mixed", json + png)] {
            let total = artifacts.reduce(0) { $0 + $1.count }
            let file = dir.appendingPathComponent("\(name.prefix(4)).bin")
            var data = Data(capacity: total)
            for a in artifacts { data.append(contentsOf: a) }
            try data.write(to: file)

            var ours = Double.infinity
            var compressed = 0
            for _ in 0..<repeats {
                let sink = ArtifactSink()
                let clock = ContinuousClock()
                let start = clock.now
                for (i, a) in artifacts.enumerated() {
                    try sink.attach(name: "a\(i)", mediaType: "application/octet-stream", bytes: a, step: 0)
                }
                ours = min(ours, seconds(clock.now - start))
                compressed = sink.takeAll().reduce(0) { $0 + $1.compressedSize }
            }
            var tool = Double.infinity
            var toolBytes = 0
            for _ in 0..<repeats {
                let (time, bytes) = try timeGzip(level: GzipCodec.defaultLevel, file: file)
                tool = min(tool, time)
                toolBytes = bytes
            }
            let oursRate = Double(total) / ours / 1e6
            let toolRate = Double(total) / tool / 1e6
            let label = name.padding(toLength: 15, withPad: " ", startingAt: 0)
            print(
                "  " + label
                    + String(
                        format:
                            " %6.1f MB: ours %7.1f MB/s (ratio %.2f of input)  gzip %7.1f MB/s (%.2f)  → speed ratio %.2f (target >= 0.9)",
                        Double(total) / 1e6, oursRate, Double(compressed) / Double(total),
                        toolRate, Double(toolBytes) / Double(total), oursRate / toolRate))
        }
    }

    /// Runs `gzip -<level> -c file`, reading its output through a pipe; returns seconds and output bytes.
    private static func timeGzip(level: Int, file: URL) throws -> (Double, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-\(level)", "-c", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        var bytes = 0
        while true {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            bytes += data.count
        }
        process.waitUntilExit()
        let elapsed = seconds(clock.now - start)
        guard process.terminationStatus == 0 else {
            throw CommandFailure("gzip exited with \(process.terminationStatus)")
        }
        return (elapsed, bytes)
    }

    // MARK: - (b) blob store ingest

    static func ingest(totalBytes: Int, writers: Int) throws {
        let blobSize = 4 << 20
        let chunkSize = 64 * 1024
        let blobsPerWriter = max(1, totalBytes / blobSize / writers)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowmatrix-bench-blobs-\(UUID().uuidString)")
        defer {
            do { try FileManager.default.removeItem(at: dir) } catch {
                print("note: could not remove \(dir.path): \(error)")
            }
        }
        let store = try BlobStore(root: dir)

        // Each writer streams distinct blobs: a per-writer 4 MiB base whose first 8 bytes are the blob number.
        // Expected hashes (what the worker computed) are prepared before the clock starts.
        let bases: [[UInt8]] = (0..<writers).map { w in
            var state = UInt64(w + 1) &* 0x9E37_79B9_7F4A_7C15
            return (0..<blobSize).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
        }
        func blob(_ base: [UInt8], _ n: Int) -> [UInt8] {
            var bytes = base
            withUnsafeBytes(of: UInt64(n).littleEndian) { for (i, b) in $0.enumerated() { bytes[i] = b } }
            return bytes
        }
        let hashes: [[String]] = (0..<writers).map { w in
            (0..<blobsPerWriter).map { SHA256.hexHash(blob(bases[w], $0)) }
        }

        let failures = Mutex<[String]>([])
        let highWater = Mutex(0)
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = processCPU()
        DispatchQueue.concurrentPerform(iterations: writers) { w in
            do {
                var bytes = bases[w]
                for n in 0..<blobsPerWriter {
                    withUnsafeBytes(of: UInt64(n).littleEndian) { for (i, b) in $0.enumerated() { bytes[i] = b } }
                    let writer = try store.makeWriter()
                    try bytes.withUnsafeBytes { raw in
                        var offset = 0
                        while offset < raw.count {
                            let end = min(offset + chunkSize, raw.count)
                            try writer.append(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                            offset = end
                        }
                    }
                    _ = try writer.commit(expectedSHA256: hashes[w][n])
                    let mark = writer.bufferedHighWaterMark
                    highWater.withLock { $0 = max($0, mark) }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let elapsed = seconds(clock.now - start)
        let cpu = processCPU() - cpuStart
        let errors = failures.withLock { $0 }
        guard errors.isEmpty else { throw CommandFailure("ingest failed: \(errors.joined(separator: "; "))") }
        let total = Double(blobsPerWriter * writers * blobSize)
        print(
            "(b) blob store ingest: \(writers) concurrent writers, \(blobsPerWriter * writers) blobs of \(blobSize >> 20) MiB in 64 KiB chunks, fsync + rename per blob"
        )
        print(
            String(
                format: "  %.2f GB in %.2f s → %.0f MB/s (target >= 300)   writer high-water %d KiB",
                total / 1e9, elapsed, total / elapsed / 1e6, highWater.withLock { $0 } / 1024))
        print(
            String(
                format:
                    "  CPU %.2f s (hash + copy into the page cache): %.0f MB per CPU-second; %d cores on this machine",
                cpu, total / cpu / 1e6, ProcessInfo.processInfo.activeProcessorCount))
        print("  RSS: \(memoryStatus()) (target < 256 MB)")
    }

    /// The same ingest without fsync: separates the CPU cost (hash + copy) from waiting for the disk.
    static func ingestWithoutSync(totalBytes: Int) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowmatrix-bench-nosync-\(UUID().uuidString)")
        defer {
            do { try FileManager.default.removeItem(at: dir) } catch {
                print("note: could not remove \(dir.path): \(error)")
            }
        }
        let store = try BlobStore(root: dir, syncToDisk: false)
        let blobSize = 4 << 20
        var bytes = Sample.noise(blobSize)
        let count = max(1, totalBytes / blobSize)
        let hashes = (0..<count).map { n -> String in
            withUnsafeBytes(of: UInt64(n).littleEndian) { for (i, b) in $0.enumerated() { bytes[i] = b } }
            return SHA256.hexHash(bytes)
        }
        let clock = ContinuousClock()
        let start = clock.now
        for n in 0..<count {
            withUnsafeBytes(of: UInt64(n).littleEndian) { for (i, b) in $0.enumerated() { bytes[i] = b } }
            let writer = try store.makeWriter()
            try bytes.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count, by: 64 * 1024) {
                    try writer.append(
                        UnsafeRawBufferPointer(rebasing: raw[offset..<min(offset + 64 * 1024, raw.count)]))
                }
            }
            _ = try writer.commit(expectedSHA256: hashes[n])
        }
        let elapsed = seconds(clock.now - start)
        print(
            String(
                format: "  without fsync, 1 writer: %.2f GB in %.2f s → %.0f MB/s (for comparison)",
                Double(count * blobSize) / 1e9, elapsed, Double(count * blobSize) / elapsed / 1e6))
    }

    /// This process's resident set size now and at its peak.
    private static func memoryStatus() -> String {
        String(format: "RSS %.0f MB, peak %.0f MB", Double(ProcessFacts.residentBytes()) / 1e6,
               Double(ProcessFacts.peakResidentBytes()) / 1e6)
    }
}
