import DevTools
import FlowSpec
import FlowVocabulary

/// The pointer gestures: `swipe` left and right as a drag, up and down as a wheel that is waited for.
extension WebRegistry {
    /// Dispatches a mouse event. With `answered: false` it is written at once and not awaited: the events of a
    /// gesture go out in order without a round trip each, and the answer to its last event (the browser handles a
    /// session's commands in order) says the whole gesture was handled.
    func mouse(_ type: String, _ x: Double, _ y: Double, buttons: Int = 1, answered: Bool = true) async throws {
        let params: JSONValue = [
            "type": .string(type), "x": .number(x), "y": .number(y), "button": "left",
            "buttons": .number(Double(buttons)), "clickCount": 1,
        ]
        guard answered else {
            return page.connection.sendIgnoringReply("Input.dispatchMouseEvent", params, session: page.sessionID)
        }
        _ = try await page.send("Input.dispatchMouseEvent", params, timeout: settings.pageTimeout)
    }

    func swipe(_ step: Step) async throws {
        guard let arg = step.arg, let direction = SwipeDirection(rawValue: arg) else {
            throw StepError.invalidArgument("swipe needs up, down, left or right")
        }
        let p = try await actionPoint(step)
        switch direction {
        case .left, .right:
            // A horizontal drag with pointer events, as a finger swiping the row.
            // 80 % of the element's width, kept inside the viewport (events off-screen are dropped).
            let room = direction == .left ? p.x - 1 : Double(viewport.width) - 1 - p.x
            let distance = min(max(40, p.width * 0.8), room) * (direction == .left ? -1 : 1)
            try await mouse("mousePressed", p.x, p.y, answered: false)
            for i in 1...6 { try await mouse("mouseMoved", p.x + distance * Double(i) / 6, p.y, answered: false) }
            try await mouse("mouseReleased", p.x + distance, p.y, buttons: 0)
        case .up, .down:
            try await wheel(step, at: p, down: direction == .up)
        }
    }

    /// A vertical swipe: a wheel scroll of 80 % of the element's height (a finger moving up scrolls the content down),
    /// waited for until the element or a scrolling ancestor has moved. The browser answers the wheel before it scrolls,
    /// and under load it can drop one sent before the page's scrollers are known to its compositor (seen in CI: the
    /// next `assert` found the list unscrolled): a wheel nothing moved is sent once more, then the step fails. A page
    /// that takes the wheel itself (`preventDefault`) or a scroller already at its end is not waited for.
    private func wheel(_ step: Step, at p: Point, down: Bool) async throws {
        let target = locator(step.target).serialized
        let mark = try await evaluate("__flowmatrix.scrollMark(\(target), \(down))")
        let top = mark["top"]?.double ?? 0
        let wait = settings.actionTimeout / 2
        for _ in 0..<2 {
            let counts = try await evaluate("__flowmatrix.wheelCounts()")
            _ = try await page.send(
                "Input.dispatchMouseEvent",
                [
                    "type": "mouseWheel", "x": .number(p.x), "y": .number(p.y), "deltaX": 0,
                    "deltaY": .number(max(40, p.height * 0.8) * (down ? 1 : -1)),
                ], timeout: settings.pageTimeout)
            guard mark["room"]?.bool == true else { return }
            let r = try await evaluate(
                "__flowmatrix.scrolledFrom(\(target), \(top), \(counts.serialized), \(Int(wait.milliseconds)))",
                timeout: wait + settings.pageTimeout)
            if r["moved"]?.bool == true || r["taken"]?.bool == true { return }
        }
        throw StepError.failed(
            "swipe \(down ? "up" : "down") on \(selector(step.target)): nothing scrolled (the wheel was sent twice, "
                + "each waited \(wait.secondsText))")
    }
}
