import MatrixPlan
import RunConditions
import Testing

@Suite("Device arguments")
struct DeviceArgumentsTests {
    @Test("Arabic, right-to-left, on edge")
    func arabic() throws {
        let args = DeviceArguments.for(Configuration(["locale": "ar", "direction": "rtl", "network": "edge"]))
        #expect(
            args.launchArguments == [
                "-AppleLanguages", "(ar)", "-AppleLocale", "ar_SA",
                "-NSForceRightToLeftWritingDirection", "YES", "-AppleTextDirection", "YES",
                "-NetworkProfile", "edge",
            ])
        #expect(args.xcodebuildFlags == ["-testLanguage", "ar", "-testRegion", "SA"])
    }

    @Test("a region in the tag wins; pseudo modes map to their user defaults")
    func regionAndPseudo() {
        let double = DeviceArguments.for(Configuration(["locale": "de-AT", "direction": "pseudo-double"]))
        #expect(
            double.launchArguments == [
                "-AppleLanguages", "(de-AT)", "-AppleLocale", "de_AT", "-NSDoubleLocalizedStrings", "YES",
            ])
        #expect(double.xcodebuildFlags == ["-testLanguage", "de", "-testRegion", "AT"])
        let accented = DeviceArguments.for(Configuration(["locale": "en", "direction": "pseudo-accented"]))
        #expect(accented.launchArguments.contains("-NSAccentuateLocalizedStrings"))
        let forced = DeviceArguments.for(Configuration(["locale": "en", "direction": "pseudo-rtl"]))
        #expect(forced.launchArguments.contains("-NSForceRightToLeftWritingDirection"))
    }

    @Test("orientation and window come out as the registry's settings")
    func viewport() {
        let args = DeviceArguments.for(Configuration(["orientation": "landscape", "window": "narrow-portrait"]))
        #expect(args.orientation == "landscape")
        #expect(args.windowSize == "720x320")
    }
}
