import CatalogApp
import FlowSpec
import Foundation
import Testing
import Wireframe

@Suite("Surface snapshots and wireframes")
struct ArtifactTests {
    func registry(after id: String, _ changes: [String: String]) async throws -> CatalogRegistry {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.configuration(changes), seed: 1)
        _ = await AsyncScenarioRunner(registry: registry).run(try Corpus.scenario(id))
        return registry
    }

    @Test(
        "the wireframe is a PNG whose decoded size is the viewport",
        arguments: [
            ([String: String](), 820, 1180), (["window": "narrow-portrait", "orientation": "landscape"], 720, 320),
            (["window": "390x844", "locale": "ar", "direction": "auto"], 390, 844),
        ])
    func pngSize(changes: [String: String], width: Int, height: Int) async throws {
        let png = try await registry(after: "cart-total-layout", changes).wireframePNG()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let size = try #require(Wireframe.pngSize(png))
        #expect(size.width == width && size.height == height)
    }

    @Test("the snapshot holds identities, labels, frames and findings")
    func snapshot() async throws {
        let registry = try await registry(after: "item-detail", ["locale": "de", "window": "narrow-portrait"])
        let json = await registry.surfaceSnapshotJSON()
        let snapshot = try JSONDecoder().decode(SurfaceSnapshot.self, from: Data(json))
        #expect(snapshot.surface.screen == "item")
        let button = try #require(snapshot.surface.element("item.add-to-cart"))
        #expect(button.label == "In den Warenkorb legen")
        #expect(button.isTruncated)
        #expect(snapshot.surface.findings.contains { $0.kind == .truncated && $0.element == "item.add-to-cart" })
        #expect(snapshot.surface.locale == "de")
        #expect(snapshot.surface.viewportWidth == 320)
    }

    @Test("identical screens give identical snapshot bytes, whatever the seed and network timing")
    func deterministicSnapshot() async throws {
        let a = try await registry(after: "browse-catalog", ["network": "edge"])
        let b = try await registry(after: "browse-catalog", ["network": "3g"])
        #expect(await a.surfaceSnapshotJSON() == b.surfaceSnapshotJSON())
        #expect(await a.wireframePNG() == b.wireframePNG())
    }

    @Test("right-to-left mirrors the wireframe: the back button moves to the right edge and is flagged nowhere")
    func mirroredWireframe() async throws {
        let ltr = try await registry(after: "item-detail", [:]).engine.surface()
        let rtl = try await registry(after: "item-detail", ["direction": "rtl"]).engine.surface()
        let a = try #require(ltr.element("item.back")), b = try #require(rtl.element("item.back"))
        #expect(a.frame.x < 100)
        #expect(b.frame.maxX > Double(rtl.viewportWidth) - 100)
        let doc = CatalogRegistry.wireframe(of: rtl)
        #expect(doc.rightToLeft)
        #expect(doc.boxes.allSatisfy { $0.flags.isEmpty })
    }

    @Test("truncated elements are flagged in the wireframe")
    func flagged() async throws {
        let surface = try await registry(after: "item-detail", ["locale": "de", "window": "narrow-portrait"]).engine
            .surface()
        let doc = CatalogRegistry.wireframe(of: surface)
        #expect(doc.boxes.contains { $0.label == "In den Warenkorb legen" && $0.flags.contains(.truncated) })
    }
}

@Suite("Step evidence")
struct EvidenceTests {
    @Test("the registry hands the worker a surface snapshot and a wireframe after each step")
    func evidence() async throws {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 1)
        let scenario = try Corpus.scenario("browse-catalog")
        _ = await AsyncScenarioRunner(registry: registry).run(scenario)
        let attachments = await registry.evidence(afterStep: scenario.steps.count - 1, step: scenario.steps[scenario.steps.count - 1])
        #expect(attachments.map(\.name) == ["surface.json", "wireframe.png"])
        #expect(attachments.map(\.mediaType) == ["application/json", "image/png"])
    }
}
