import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    /// AX001's fast path (names read in the page from Chromium's accessibility engine, blank ones confirmed in the
    /// tree) against the whole accessibility tree, on controls of every kind the two could disagree on (issue 29's
    /// cost: the audit reads the whole tree only where the page cannot tell).
    @Suite("web registry: the audit's names from the page equal the whole accessibility tree's (real Chromium)", .serialized)
    struct AuditNamesTests {
        static let pages: [String: String] = [
            // Named and unnamed controls of each interactive role, by markup and by ARIA; names from text, title,
            // alt, label, aria-labelledby, an SVG title and CSS content; hidden, invisible, inert and aria-hidden
            // controls (not in the tree); a control in an open shadow root.
            "controls.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><style>
            .css-named::before { content: "Next"; }
            </style></head><body>
            <button data-testid="b.text">Save</button><button data-testid="b.empty"></button>
            <button data-testid="b.space">   </button><button data-testid="b.arialabel-space" aria-label=" "></button>
            <button data-testid="b.svg"><svg width="16" height="16"></svg></button>
            <button data-testid="b.svgtitle"><svg width="16" height="16"><title>Close</title></svg></button>
            <button data-testid="b.hiddenchild"><span aria-hidden="true">X</span></button>
            <button data-testid="b.title" title="Help"></button><button data-testid="b.css" class="css-named"></button>
            <button data-testid="b.pressed" aria-pressed="true"></button><button data-testid="b.popup" aria-haspopup="menu"></button>
            <button data-testid="b.labelledby" aria-labelledby="lbl"></button><span id="lbl">Delete</span>
            <button data-testid="b.labelledby-missing" aria-labelledby="nothing"></button>
            <button data-testid="b.hidden" style="display:none"></button>
            <button data-testid="b.invisible" style="visibility:hidden"></button>
            <button data-testid="b.ariahidden" aria-hidden="true"></button>
            <div inert><button data-testid="b.inert"></button></div>
            <div role="button" data-testid="d.button" tabindex="0"></div><div role="link" data-testid="d.link"></div>
            <div role="switch" data-testid="d.switch" aria-checked="false"></div>
            <div role="slider" data-testid="d.slider" aria-valuenow="3"></div><div role="tab" data-testid="d.tab"></div>
            <div role="menuitem" data-testid="d.menuitem"></div><div role="spinbutton" data-testid="d.spin"></div>
            <div role="listbox" data-testid="d.listbox"></div><div role="combobox" data-testid="d.combobox"></div>
            <div role="textbox" data-testid="d.textbox"></div><div role="button" aria-label="Play" data-testid="d.named"></div>
            <div contenteditable="true" data-testid="d.editable"></div>
            <a href="#" data-testid="a.empty"></a><a href="#" data-testid="a.img"><img alt=""></a>
            <a href="#" data-testid="a.imgalt"><img alt="Home"></a><a data-testid="a.nohref"></a>
            <input data-testid="i.text"><input data-testid="i.value" value="typed"><input data-testid="i.placeholder" placeholder="Name">
            <label>Email <input data-testid="i.labelled"></label><label for="lf">Phone</label><input id="lf" data-testid="i.for">
            <input type="checkbox" data-testid="i.checkbox"><input type="radio" data-testid="i.radio">
            <input type="range" data-testid="i.range"><input type="number" data-testid="i.number">
            <input type="search" data-testid="i.search"><input type="submit" data-testid="i.submit">
            <input type="button" data-testid="i.button"><input type="color" data-testid="i.color">
            <select data-testid="s.select"><option>One</option></select>
            <select data-testid="s.multi" multiple><option>One</option></select><textarea data-testid="t.area"></textarea>
            <details><summary data-testid="sum"></summary>x</details>
            <svg width="40" height="40"><a href="#" data-testid="svg.a"><rect width="20" height="20"/></a></svg>
            <div data-testid="host"></div>
            <script>
            document.querySelector('[data-testid=host]').attachShadow({ mode: 'open' }).innerHTML =
              '<button data-testid="shadow.b"></button><button data-testid="shadow.named">Go</button>';
            </script>
            </body></html>
            """,
            // A custom element with a closed shadow root: its unnamed button is out of the page's reach.
            "closed.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>
            <button data-testid="named">Save</button><x-widget data-testid="widget"></x-widget>
            <script>
            customElements.define('x-widget', class extends HTMLElement {
              constructor() { super(); this.attachShadow({ mode: 'closed' }).innerHTML = '<button></button>'; } });
            </script>
            </body></html>
            """,
        ]

        static func unnamed(_ r: WebRegistry, _ names: AuditNameSource) async throws -> [String] {
            try await r.audit(names: names).filter { $0.rule == .unnamed }.map(\.description).sorted()
        }

        @Test("on controls of every kind the page's names find exactly what the whole tree finds, before and after the DOM changes")
        func pageEqualsTree() async throws {
            try await withSite { site in
                for (name, text) in Self.pages { try Data(text.utf8).write(to: site.root.appendingPathComponent(name)) }
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "controls.html")
                let tree = try await Self.unnamed(r, .fullTree)
                let fast = try await Self.unnamed(r, .page)
                #expect(fast == tree)
                let elements = Set(fast.map { String($0.split(separator: " ")[3].dropLast()) })
                let mustFind: Set<String> = [
                    "b.empty", "b.space", "b.arialabel-space", "b.svg", "b.hiddenchild", "b.pressed", "b.popup",
                    "b.labelledby-missing", "d.button", "d.link", "d.switch", "d.slider", "d.tab", "d.menuitem",
                    "d.spin", "d.listbox", "d.combobox", "d.textbox", "a.empty", "a.img", "i.text", "i.value",
                    "i.checkbox", "i.radio", "i.range", "i.number", "i.search", "s.select", "s.multi", "t.area",
                    "svg.a", "shadow.b",
                ]
                #expect(mustFind.subtracting(elements).isEmpty, "missed: \(mustFind.subtracting(elements))")
                let mustNot: Set<String> = [
                    "b.text", "b.svgtitle", "b.title", "b.css", "b.labelledby", "b.hidden", "b.invisible",
                    "b.ariahidden", "b.inert", "d.named", "a.imgalt", "a.nohref", "i.placeholder", "i.labelled",
                    "i.for", "i.submit", "shadow.named",
                ]
                #expect(mustNot.isDisjoint(with: elements), "found: \(mustNot.intersection(elements))")
                // The engine's tree follows the page: a label removed, an unnamed control added, one hidden.
                _ = try await r.inPage(
                    """
                    document.querySelector('[data-testid="b.text"]').textContent = '';
                    document.body.insertAdjacentHTML('beforeend', '<button data-testid="late"></button>');
                    document.querySelector('[data-testid="d.button"]').style.display = 'none'; true
                    """)
                let treeAfter = try await Self.unnamed(r, .fullTree)
                #expect(try await Self.unnamed(r, .page) == treeAfter)
                #expect(treeAfter.contains { $0.contains(" at b.text:") } && treeAfter.contains { $0.contains(" at late:") })
                #expect(!treeAfter.contains { $0.contains(" at d.button:") })
                // The full audit (every rule) is the same either way.
                let all = try await r.audit().map(\.description).sorted()
                #expect(all == (try await r.audit(names: .fullTree).map(\.description).sorted()))
            }
        }

        @Test("where a closed shadow root may hide controls the page cannot tell, and the audit reads the whole tree")
        func closedShadowRoot() async throws {
            try await withSite { site in
                for (name, text) in Self.pages { try Data(text.utf8).write(to: site.root.appendingPathComponent(name)) }
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "closed.html")
                await #expect(throws: StepError.self) { try await r.audit(names: .page) }
                let automatic = try await Self.unnamed(r, .automatic)
                #expect(automatic == (try await Self.unnamed(r, .fullTree)))
                #expect(automatic.count == 1 && automatic[0].hasSuffix(": is a button with no accessible name"), "\(automatic)")
            }
        }
    }
}
