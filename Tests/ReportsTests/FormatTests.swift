import Foundation
@testable import Reports
import Testing

@Suite("Formatting and escaping")
struct FormatTests {
    @Test("fixed-point numbers, durations, JUnit times and UTC timestamps", arguments: [
        (0.0, 2, "0.00"), (1.005, 2, "1.00"), (1.006, 2, "1.01"), (12.5, 0, "13"), (-0.004, 2, "0.00"), (-1.5, 1, "-1.5"),
        (0.125, 3, "0.125"), (99.999, 2, "100.00"),
    ])
    func fixed(value: Double, decimals: Int, text: String) {
        #expect(Format.fixed(value, decimals) == text)
    }

    @Test("durations and timestamps")
    func durations() {
        #expect(Format.seconds(nil) == "-")
        #expect(Format.seconds(0.25) == "250 ms")
        #expect(Format.seconds(1.5) == "1.50 s")
        #expect(Format.seconds(125) == "2 min 5 s")
        #expect(Format.junitTime(nil) == "0.000")
        #expect(Format.junitTime(-3) == "0.000")
        #expect(Format.timestamp(Date(timeIntervalSince1970: 1_795_900_000.9)) == "2026-11-28T21:06:40Z")
        #expect(AxisPivot.percent(2.0 / 3.0) == "66.7%")
        #expect(AxisPivot.percent(0.5) == "50%")
    }

    @Test("HTML and XML escaping; XML drops characters it cannot carry; file names stay inside their folder")
    func escaping() {
        #expect(Escape.html(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(Escape.html("plain ünïcode") == "plain ünïcode")
        #expect(Escape.html("العربية – “quoted”") == "العربية – “quoted”")
        #expect(Escape.xml("a\u{1}b\u{FFFE}c<d>") == "a\u{FFFD}b\u{FFFD}c&lt;d&gt;")
        #expect(Escape.xml("line\nnext", attribute: true) == "line&#10;next")
        #expect(Escape.xml("line\nnext") == "line\nnext")
        #expect(Escape.xml("€ ok") == "€ ok")
        #expect(Escape.fileName("../../etc/passwd") == ".._.._etc_passwd")
        #expect(Escape.fileName("..") == "_..")
        #expect(Escape.fileName("") == "_")
        #expect(Escape.fileName("wire frame (1).png") == "wire_frame__1_.png")
    }

    @Test("bidirectional overrides and isolates in user strings show as [U+…], so RLO + 'live' cannot display as 'evil'")
    func bidiControls() {
        #expect(Escape.html("\u{202E}live") == "[U+202E]live")
        #expect(Escape.html("a\u{202A}b\u{202B}c\u{202C}d\u{202D}e") == "a[U+202A]b[U+202B]c[U+202C]d[U+202D]e")
        #expect(Escape.html("\u{2066}x\u{2067}y\u{2068}z\u{2069}") == "[U+2066]x[U+2067]y[U+2068]z[U+2069]")
        // Neighbours of the ranges are ordinary text: an en dash (U+2013), a word joiner (U+2060).
        #expect(Escape.html("\u{2013}\u{2060}\u{2029}") == "\u{2013}\u{2060}\u{2029}")
        #expect(Escape.html("<\u{202E}>") == "&lt;[U+202E]&gt;")
    }
}

@Suite("Z85 for carried blobs")
struct Z85Tests {
    @Test("ZeroMQ's test vector, and every length round-trips through the pad digit")
    func roundTrip() throws {
        // RFC 32: 86 4F D2 6F B5 59 F7 5B encodes as HelloWorld.
        #expect(String(decoding: Z85.encode([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]), as: UTF8.self) == "0HelloWorld")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Z85.encode(bytes)
            #expect(text.count == 1 + (length + 3) / 4 * 5)
            #expect(!text.contains(UInt8(ascii: "\"")) && !text.contains(UInt8(ascii: "\\")))
            #expect(Z85.decode(text) == bytes)
        }
        #expect(Z85.decode(Array("0Hell".utf8)) == nil)
        #expect(Z85.decode(Array("9HelloWorld".utf8)) == nil)
    }
}
