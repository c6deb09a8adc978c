// libFuzzer entry point for the Wire frame decoder and message decoder.
// Built by Fuzz/run-wire-fuzz.sh with the Wire codec sources; not part of the package build.

/// Feeds the input through the frame decoder in four shapes (all at once; in chunks whose sizes come from the
/// first byte; batch `decodeAll` in chunks sized by the last byte; `decodeBatch`, the transport's path) and decodes every frame as a message. Any WireError is fine; a trap, a sanitizer report or a
/// disagreement between the two shapes is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let maxFrameSize = 1 << 16

    /// A copy that does not share the decoder's buffer (so the next append does not copy the whole buffer).
    func owned(_ frame: Frame) -> Frame { Frame(type: frame.type, payload: Array(frame.payload)) }

    func run(chunkSize: Int, batched: Bool, viaBatch: Bool = false) -> (frames: [Frame], error: WireError?) {
        var buffer = ByteBuffer()
        var decoder = FrameDecoder(maxFrameSize: maxFrameSize)
        var frames: [Frame] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + chunkSize)
            buffer.append(contentsOf: bytes[index..<end])
            index = end
            do {
                if viaBatch {
                    let (batch, error) = decoder.decodeBatch(buffer: &buffer)
                    for i in batch.indices {
                        precondition(batch.type(at: i) == batch[i].type, "batch type view differs")
                        precondition(batch.withPayload(at: i) { $0.count } == batch[i].payload.count, "batch payload view differs")
                    }
                    frames += batch.map(owned)
                    if let error { throw error }
                } else if batched {
                    var decoded: [Frame] = []
                    defer { frames += decoded.map(owned) }
                    try decoder.decodeAll(buffer: &buffer, into: &decoded)
                } else {
                    while let frame = try decoder.decode(buffer: &buffer) { frames.append(owned(frame)) }
                }
            } catch let error as WireError {
                return (frames, error)
            } catch {
                fatalError("non-WireError thrown: \(error)")
            }
            buffer.discardReadBytes()
        }
        return (frames, nil)
    }

    let whole = run(chunkSize: max(1, bytes.count), batched: false)
    let chunked = run(chunkSize: Int(bytes.first ?? 1) % 17 + 1, batched: false)
    let batched = run(chunkSize: Int(bytes.last ?? 1) % 29 + 1, batched: true)
    let viaBatch = run(chunkSize: Int(bytes.count % 7) * 13 + 1, batched: false, viaBatch: true)
    // The decoder must not depend on how the bytes were split, nor on single-step vs. batch decoding.
    precondition(whole.frames == chunked.frames, "frames differ between feeding shapes")
    precondition(whole.error == chunked.error, "errors differ between feeding shapes")
    precondition(whole.frames == batched.frames, "frames differ between decode and decodeAll")
    precondition(whole.error == batched.error, "errors differ between decode and decodeAll")
    precondition(whole.frames == viaBatch.frames, "frames differ between decode and decodeBatch")
    precondition(whole.error == viaBatch.error, "errors differ between decode and decodeBatch")

    for frame in whole.frames {
        precondition(frame.payload.count < maxFrameSize)
        do {
            let message = try Message(frame: frame)
            // Canonical encoding: a decoded message re-encodes to exactly the bytes it came from.
            precondition(message.frame() == Frame(type: frame.type, payload: Array(frame.payload)), "re-encoding differs")
        } catch is WireError {
            continue
        } catch {
            fatalError("non-WireError thrown: \(error)")
        }
    }
    return 0
}
