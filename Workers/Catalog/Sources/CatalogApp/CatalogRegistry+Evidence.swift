import FlowSpec
import Foundation
import Wireframe

extension CatalogRegistry: StepEvidenceProviding {
    /// After each step: the screen as JSON (`surface.json`) and its wireframe (`wireframe.png`), both describing the
    /// state after the step and both byte-identical for identical screens. The surface is captured now (a value);
    /// the JSON and the PNG are rendered only for attempts whose evidence is kept.
    public func evidence(afterStep index: Int, step: Step) async -> [StepAttachment] {
        let surface = await engine.surface()
        return [
            StepAttachment(name: "surface.json", mediaType: "application/json") { Self.snapshotJSON(of: surface) },
            StepAttachment(name: "wireframe.png", mediaType: "image/png") {
                (try? Wireframe.png(Self.wireframe(of: surface))) ?? []
            },
        ]
    }

    /// The JSON snapshot of a surface (sorted keys: identical screens give identical bytes).
    public static func snapshotJSON(of surface: Surface) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(SurfaceSnapshot(surface: surface))).map { Array($0) } ?? Array("{}".utf8)
    }
}
