import DevTools
import FlowSpec
import Foundation
import Synchronization

/// The recording of one job's page: Chromium's screencast (`Page.startScreencast`) sends a JPEG frame whenever the
/// page paints, and sends the next only once the last is acknowledged, so each frame is acknowledged as it arrives
/// (on the connection's reader thread, without a round trip).
///
/// The frames that came while a step ran are handed out with that step's evidence as `screencast-NNNN.jpg`
/// (numbered through the attempt), still as the browser's base64: they are decoded only for attempts whose evidence
/// the keep policy keeps (by default the attempts that did not pass), so a passing attempt's recording costs the
/// browser's encoding and nothing else. At most ``maxFrames`` frames are kept per job; later ones are counted and
/// dropped. While a step's screenshot is taken the screencast is paused (``pause()``, ``resume()``): the screenshot
/// then neither waits behind a frame being captured nor is captured again as a frame of its own.
final class Screencast: Sendable {
    /// The most frames one job keeps (a page that animates all the time would otherwise grow without bound).
    static let maxFrames = 150
    /// The longest side of a frame in CSS pixels, and the JPEG quality: enough to follow what happened (each step also
    /// has its full-size PNG), at about half the bytes of 640 px at quality 50.
    static let maxSide = 480
    static let quality = 35

    private struct State {
        var frames: [String] = []
        var numbered = 0
        var dropped = 0
    }

    private let state = Mutex(State())
    private let page: PageTarget

    init(page: PageTarget) { self.page = page }

    /// Asks the page for frames.
    /// - Throws: `DevToolsError` when the browser refuses.
    func start() async throws {
        _ = try await page.send("Page.startScreencast", Self.parameters)
    }

    /// What `Page.startScreencast` is asked for.
    static let parameters: JSONValue = [
        "format": "jpeg", "quality": .number(Double(quality)), "maxWidth": .number(Double(maxSide)),
        "maxHeight": .number(Double(maxSide)),
    ]

    /// Stops the frames while a screenshot is taken, without a round trip: the browser handles a session's commands
    /// in order, so the `Page.captureScreenshot` sent next finds the screencast stopped, and does not wait behind a
    /// frame being captured and encoded (which made each screenshot about twice as slow).
    func pause() {
        page.connection.sendIgnoringReply("Page.stopScreencast", [:], session: page.sessionID)
    }

    /// Asks for frames again after ``pause()`` (without a round trip).
    func resume() {
        page.connection.sendIgnoringReply("Page.startScreencast", Self.parameters, session: page.sessionID)
    }

    /// A `Page.screencastFrame` event (on the reader thread): acknowledged at once, kept while there is room.
    func onFrame(_ params: JSONValue) {
        guard let data = params["data"]?.string, let session = params["sessionId"]?.int else { return }
        page.connection.sendIgnoringReply(
            "Page.screencastFrameAck", ["sessionId": .number(Double(session))], session: page.sessionID)
        state.withLock { s in
            if s.frames.count + s.numbered < Self.maxFrames { s.frames.append(data) } else { s.dropped += 1 }
        }
    }

    /// Frames dropped past ``maxFrames``.
    var dropped: Int { state.withLock { $0.dropped } }

    /// The frames that came since the last call, as attachments (their step is the one whose evidence asks).
    func take() -> [StepAttachment] {
        let (first, frames) = state.withLock { s -> (Int, [String]) in
            defer {
                s.numbered += s.frames.count
                s.frames.removeAll()
            }
            return (s.numbered, s.frames)
        }
        return frames.enumerated().map { offset, base64 in
            let digits = String(first + offset)
            let name = "screencast-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".jpg"
            return StepAttachment(name: name, mediaType: "image/jpeg") {
                Data(base64Encoded: base64).map { [UInt8]($0) } ?? []
            }
        }
    }
}
