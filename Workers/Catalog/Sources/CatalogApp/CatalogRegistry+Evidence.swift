import FlowSpec

extension CatalogRegistry: StepEvidenceProviding {
    /// After each step: the screen as JSON (`surface.json`) and its wireframe (`wireframe.png`), both describing the
    /// state after the step and both byte-identical for identical screens.
    public func evidence(afterStep index: Int, step: Step) async -> [StepAttachment] {
        var attachments = [StepAttachment(name: "surface.json", mediaType: "application/json",
                                          bytes: await surfaceSnapshotJSON())]
        let png = await wireframePNG()
        if !png.isEmpty { attachments.append(StepAttachment(name: "wireframe.png", mediaType: "image/png", bytes: png)) }
        return attachments
    }
}
