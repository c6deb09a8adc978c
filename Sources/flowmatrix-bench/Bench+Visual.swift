import FlowMatrixCLI
import Foundation
import Visual

/// `flowmatrix bench visual`: the perceptual compare's speed in megapixels per second on 1280×800 pairs (equal,
/// slightly changed, very different), beside the PyPI ports of pixelmatch (`pixelmatch`, pure Python, and
/// `pybind11-pixelmatch`, C++) run on the same pairs in the same sitting, with the differing-pixel counts checked to
/// agree within 1 % (docs/VISUAL.md, "Speed"). The peers are skipped with a message when not installed.
enum VisualBench {
    static let suite = BenchSuite(
        name: "visual",
        overview: "Visual compare: MP/s on 1280×800 pairs vs pixelmatch (Python) and pybind11-pixelmatch (C++); a web run with/without baselines.",
        run: { quick in try run(quick: quick) }
    )

    static let width = 1280, height = 800

    /// A UI-like picture: flat panels, bordered boxes, rows of "text" with anti-aliased edges, a photo-like gradient.
    static func screen(seed: Int, shift: Int = 0) -> VisualImage {
        var image = VisualImage(width: width, height: height, filledWith: (250, 250, 250, 255))
        var rng = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next(_ bound: Int) -> Int {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            return Int(rng % UInt64(bound))
        }
        image.fill(MaskRect(x: 0, y: 0, width: width, height: 56), with: (32, 64, 160, 255))
        for card in 0..<12 {
            let x = 40 + (card % 4) * 300, y = 90 + (card / 4) * 230
            image.fill(MaskRect(x: x, y: y, width: 270, height: 200), with: (220, 220, 225, 255))
            image.fill(MaskRect(x: x + 1, y: y + 1, width: 268, height: 198), with: (255, 255, 255, 255))
            for gy in 0..<90 {
                for gx in 0..<250 {
                    image.setPixel(x: x + 10 + gx, y: y + 10 + gy,
                                   (UInt8((gx + card * 20) % 256), UInt8((gy * 2 + card * 7) % 256), 180, 255))
                }
            }
            for line in 0..<4 {
                let words = 2 + next(4)
                var cx = x + 12 + (line == 0 ? shift : 0)
                for _ in 0..<words {
                    let w = 20 + next(40)
                    // A word: a dark bar with a grey (anti-aliasing) pixel column at each end.
                    let ty = y + 115 + line * 20
                    image.fill(MaskRect(x: cx, y: ty, width: w, height: 10), with: (30, 30, 30, 255))
                    for yy in ty..<(ty + 10) {
                        image.setPixel(x: cx - 1, y: yy, (150, 150, 150, 255))
                        image.setPixel(x: cx + w, y: yy, (150, 150, 150, 255))
                    }
                    cx += w + 8
                }
            }
        }
        return image
    }

    struct Pair {
        var name: String
        var a: VisualImage
        var b: VisualImage
    }

    static func pairs() -> [Pair] {
        let base = screen(seed: 1)
        var slight = base
        slight.fill(MaskRect(x: 40, y: 90 + 230 + 115, width: 120, height: 12), with: (200, 30, 30, 255))
        slight.fill(MaskRect(x: 1000, y: 12, width: 200, height: 30), with: (255, 255, 255, 255))
        let different = screen(seed: 99, shift: 7)
        var noisy = different
        for i in stride(from: 0, to: noisy.rgba.count, by: 4 * 3) { noisy.rgba[i] = noisy.rgba[i] &+ 90 }
        return [Pair(name: "equal", a: base, b: base), Pair(name: "slightly changed", a: base, b: slight),
                Pair(name: "very different", a: base, b: noisy)]
    }

    struct Figure {
        var count: Int
        var seconds: Double
        var megapixelsPerSecond: Double { Double(width * height) / 1e6 / seconds }
    }

    static func run(quick: Bool) throws {
        let pairs = pairs()
        print("visual compare, \(width)×\(height) pairs (\(Double(width * height) / 1e6) MP), threshold 0.1, anti-aliasing detected")
        var ours: [String: Figure] = [:]
        for pair in pairs {
            let rounds = quick ? 3 : 30
            var best = Double.infinity, count = 0
            for _ in 0..<rounds {
                let clock = ContinuousClock(), start = clock.now
                count = try PixelCompare.compare(pair.a, pair.b).differentPixels
                best = min(best, seconds(clock.now - start))
            }
            var withDiff = Double.infinity
            for _ in 0..<max(1, rounds / 3) {
                let clock = ContinuousClock(), start = clock.now
                _ = try PixelCompare.compare(pair.a, pair.b, drawDiff: true)
                withDiff = min(withDiff, seconds(clock.now - start))
            }
            ours[pair.name] = Figure(count: count, seconds: best)
            // Equal pixels end at a memcmp (and equal blob hashes, in a run, before any decoding).
            print(String(format: "  %-11@ %-17@ %8.2f ms  %8.1f MP/s  %7d differing px   (with diff image: %.2f ms)",
                         "FlowMatrix", pair.name, best * 1000, min(99_999, Figure(count: count, seconds: best).megapixelsPerSecond),
                         count, withDiff * 1000))
        }
        try peers(pairs, ours: ours, quick: quick)
        try VisualRunBench.run(quick: quick)
    }

    /// Runs the Python peers on the same pairs (raw RGBA files) and prints their figures and the agreement.
    static func peers(_ pairs: [Pair], ours: [String: Figure], quick: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-bench-visual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (i, pair) in pairs.enumerated() {
            try Data(pair.a.rgba).write(to: folder.appendingPathComponent("\(i)-a.rgba"))
            try Data(pair.b.rgba).write(to: folder.appendingPathComponent("\(i)-b.rgba"))
        }
        let script = folder.appendingPathComponent("peers.py")
        try Data(peerScript.utf8).write(to: script)
        // The `python3` on PATH: where `pip install` put the peers.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path, "\(pairs.count)", "\(width)", "\(height)", quick ? "1" : "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        do {
            try process.run()
        } catch {
            print("  peers skipped: python3 cannot be started (\(error))")
            return
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 4, let index = Int(fields[1]), let count = Int(fields[2]), let secs = Double(fields[3]),
                  pairs.indices.contains(index) else {
                print("  \(line)")
                continue
            }
            let name = pairs[index].name
            let figure = Figure(count: count, seconds: secs)
            let mine = ours[name]
            let agreement = mine.map { m -> String in
                let base = max(1, count)
                let off = Double(abs(m.count - count)) / Double(base) * 100
                return String(format: "counts %@ (%.2f %% apart)", off <= 1 ? "agree" : "DISAGREE", off)
            } ?? ""
            let ratio = mine.map { String(format: "FlowMatrix %.1f× faster", secs / $0.seconds) } ?? ""
            print(String(format: "  %-11@ %-17@ %8.2f ms  %8.1f MP/s  %7d differing px   %@; %@", fields[0], name,
                         secs * 1000, figure.megapixelsPerSecond, count, agreement, ratio))
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Times each installed peer on each pair: `name<TAB>pair<TAB>count<TAB>seconds` (best of a few rounds; one round
    /// for pure Python, which takes a minute or more a pair, and none with `--quick`), or a line saying why a peer is
    /// skipped.
    static let peerScript = #"""
        import sys, time
        folder, n, w, h, quick = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
        pairs = [(open(f"{folder}/{i}-a.rgba", "rb").read(), open(f"{folder}/{i}-b.rgba", "rb").read()) for i in range(n)]
        def best(fn, rounds):
            t = float("inf"); c = None
            for _ in range(rounds):
                s = time.perf_counter(); c = fn(); t = min(t, time.perf_counter() - s)
            return c, t
        try:
            import pybind11_pixelmatch as pb
            opts = pb.Options(); opts.threshold = 0.1; opts.includeAA = False
            for i, (a, b) in enumerate(pairs):
                ma = memoryview(a).cast("B", (h, w, 4)); mb = memoryview(b).cast("B", (h, w, 4))
                c, t = best(lambda: pb.pixelmatch(ma, mb, options=opts), 3 if quick else 20)
                print(f"pybind11\t{i}\t{c}\t{t}", flush=True)
        except ImportError:
            print("pybind11-pixelmatch not installed: skipped (pip install pybind11-pixelmatch)", flush=True)
        try:
            from pixelmatch import pixelmatch as pm
            if quick:
                raise SystemExit(print("pixelmatch (Python): skipped with --quick (a minute or more a pair)", flush=True))
            for i, (a, b) in enumerate(pairs):
                c, t = best(lambda: pm(a, b, w, h, threshold=0.1, includeAA=False), 1)
                print(f"pixelmatch\t{i}\t{c}\t{t}", flush=True)
        except ImportError:
            print("pixelmatch (Python) not installed: skipped (pip install pixelmatch)", flush=True)
        """#
}
