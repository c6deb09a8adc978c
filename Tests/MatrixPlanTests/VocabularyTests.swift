import FlowSpec
@testable import MatrixPlan
import Testing

@Suite("the typed axis vocabulary parses and prints canonical values")
struct VocabularyTests {
    @Test("directions round-trip", arguments: LayoutDirection.allCases)
    func directions(_ d: LayoutDirection) {
        #expect(LayoutDirection(parsing: d.description) == d)
    }

    @Test("windows round-trip: presets and WxH", arguments: WindowPreset.allCases.map(WindowSpec.preset) + [.custom(width: 390, height: 844)])
    func windows(_ w: WindowSpec) {
        #expect(WindowSpec(parsing: w.description) == w)
    }

    @Test("bad window sizes are refused", arguments: ["0x600", "x600", "600x", "1x2x3", "100001x5", "-1x5", "huge", "12.5x9"])
    func badWindows(_ text: String) {
        #expect(WindowSpec(parsing: text) == nil)
    }

    @Test("networks round-trip, named and custom")
    func networks() throws {
        for name in NetworkProfileName.allCases { #expect(NetworkSpec(parsing: name.description) == .named(name)) }
        let custom = CustomNetwork(latencyMilliseconds: 200, jitterMilliseconds: 50, bytesPerSecond: 30000, failureRate: 0.1, failure: "timeout")
        #expect(custom.description == "custom(latency=200ms,jitter=50ms,rate=30000Bps,failure-rate=0.1,failure=timeout)")
        #expect(NetworkSpec(parsing: custom.description) == .custom(custom))
        let noFailure = CustomNetwork(latencyMilliseconds: 0, jitterMilliseconds: 0, bytesPerSecond: 1, failureRate: 0)
        #expect(NetworkSpec(parsing: noFailure.description) == .custom(noFailure))
        #expect(NetworkSpec(parsing: "custom(latency=200ms)") == nil)
        #expect(NetworkSpec(parsing: "5g") == nil)
    }

    @Test("BCP-47 tags are canonicalised by case", arguments: [
        ("en", "en"), ("EN-us", "en-US"), ("zh-hant-tw", "zh-Hant-TW"), ("sr-latn", "sr-Latn"), ("es-419", "es-419"),
        ("de-CH-1996", "de-CH-1996"), ("en-US-u-ca-gregory", "en-US-u-ca-gregory"), ("x-pseudo", "x-pseudo"), ("fil", "fil"),
    ])
    func locales(_ pair: (String, String)) {
        #expect(LocaleTag.canonicalize(pair.0) == pair.1)
    }

    @Test("malformed language tags are refused", arguments: ["", "e", "en_US", "en--US", "1en", "en-u", "en-x", "en-US-US", "en-toolongsubtag"])
    func badLocales(_ tag: String) {
        #expect(LocaleTag.canonicalize(tag) == nil)
    }

    @Test("configurations print sorted and parse back, commas inside parentheses included")
    func configurations() throws {
        let c = Configuration(["network": "custom(latency=1ms,jitter=0ms,rate=10Bps,failure-rate=0.5)", "locale": "ar", "direction": "auto"])
        #expect(c.canonicalString == "direction=auto,locale=ar,network=custom(latency=1ms,jitter=0ms,rate=10Bps,failure-rate=0.5)")
        #expect(Configuration(parsing: c.canonicalString) == c)
        #expect(c.direction == .auto)
        if case .custom(let n) = c.network { #expect(n.failureRate == 0.5) } else { Issue.record("not a custom network") }
        #expect(Configuration(["orientation": "landscape"]).orientation == DeviceOrientation.landscape)
    }

    @Test("direction auto follows the locale's script or language")
    func rightToLeft() {
        #expect(LocaleTag.isRightToLeft("ar"))
        #expect(LocaleTag.isRightToLeft("he-IL"))
        #expect(!LocaleTag.isRightToLeft("en"))
        #expect(!LocaleTag.isRightToLeft("az-Latn"))
        #expect(LocaleTag.isRightToLeft("pa-Arab"))
    }
}
