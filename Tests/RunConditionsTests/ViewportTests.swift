import FlowSpec
import MatrixPlan
import RunConditions
import Testing

@Suite("Viewport: orientation × window size")
struct ViewportTests {
    @Test("every preset has a portrait size; landscape swaps the axes", arguments: WindowPreset.allCases)
    func presets(preset: WindowPreset) {
        let portrait = Viewport.resolve(window: .preset(preset), orientation: .portrait)
        let landscape = Viewport.resolve(window: .preset(preset), orientation: .landscape)
        #expect(portrait.width == landscape.height)
        #expect(portrait.height == landscape.width)
        #expect(portrait.width > 0 && portrait.height > 0)
    }

    @Test("named sizes")
    func namedSizes() {
        #expect(Viewport.resolve(window: .preset(.narrowPortrait), orientation: .portrait).width == 320)
        #expect(
            Viewport.resolve(window: .preset(.fullWindow), orientation: .portrait)
                == Viewport(width: 820, height: 1180, orientation: .portrait))
        let shortWide = Viewport.resolve(window: .preset(.shortWide), orientation: .portrait)
        #expect(shortWide.width > shortWide.height)
    }

    @Test("WxH is a portrait size, swapped in landscape; rotating swaps again")
    func custom() throws {
        let v = Viewport.resolve(window: .custom(width: 390, height: 844), orientation: .landscape)
        #expect(v == Viewport(width: 844, height: 390, orientation: .landscape))
        #expect(v.rotated(to: .portrait) == Viewport(width: 390, height: 844, orientation: .portrait))
        #expect(v.rotated(to: .landscape) == v)
        let c = try RunConditions(values: ["window": "390x844", "orientation": "landscape"], seed: 0)
        #expect(c.viewport.width == 844)
    }

    @Test("missing axes default to portrait full-window")
    func defaults() throws {
        let c = try RunConditions(values: [:], seed: 0)
        #expect(c.viewport == Viewport(width: 820, height: 1180, orientation: .portrait))
        #expect(c.locale == "en")
        #expect(c.networkProfile == .unconditioned)
    }
}
