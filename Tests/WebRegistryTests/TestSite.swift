import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

/// A temporary folder of test pages served on 127.0.0.1, and a browser for one test; `close()` ends both.
final class TestSite: Sendable {
    let root: URL
    let server: StaticFileServer
    let browser: SharedBrowser

    static let pages: [String: String] = [
        // Records, from its first inline script, what the page sees before any of its own scripts run.
        "probe.html": """
        <!doctype html><html><head><meta charset="utf-8"><script>
        window.seenAtStart = { dir: document.documentElement.getAttribute('dir') };
        </script></head><body><p data-testid="greeting">Hello {name}</p><input data-testid="field" placeholder="Type here">
        </body></html>
        """,
        // Vertical swipes: a list at its end whose overscroll stays in it (nothing to move), a list whose own wheel
        // handler takes the wheel, and a list whose centre is a fixed-position child: the wheel there scrolls the page,
        // which cannot scroll, and the list does not move.
        "wheel.html": """
        <!doctype html><html style="overflow:hidden"><head><meta charset="utf-8"><style>
        .list { position: absolute; left: 0; width: 200px; height: 100px; overflow-y: auto; }
        .list div { height: 60px; } #end { top: 0; overscroll-behavior: contain; } #own { top: 120px; }
        #stuck { top: 240px; } #pin { position: fixed; left: 0; top: 240px; width: 200px; height: 100px; background: #eee; }
        </style></head><body>
        <div class="list" id="end" data-testid="end"><div>1</div><div>2</div><div>3</div></div>
        <div class="list" id="own" data-testid="own"><div>1</div><div>2</div><div>3</div></div>
        <div class="list" id="stuck" data-testid="stuck"><div id="pin">pinned</div><div>1</div><div>2</div><div>3</div></div>
        <p data-testid="taken" style="position:absolute;top:360px"></p>
        <script>
        document.querySelector('#end').scrollTop = 1000;
        document.querySelector('#own').addEventListener('wheel', (e) => { e.preventDefault(); document.querySelector('[data-testid=taken]').textContent = 'taken'; }, { passive: false });
        </script></body></html>
        """,
        "verbs.html": """
        <!doctype html><html><head><meta charset="utf-8"><style>
        #list { height: 120px; overflow-y: scroll; } #list div { height: 60px; }
        #cover { position: fixed; left: 0; top: 0; width: 100%; height: 40px; background: #eee; }
        #under { position: fixed; left: 10px; top: 10px; } body { padding-top: 50px; }
        </style></head><body>
        <button data-testid="tap-me" onclick="this.textContent = String(Number(this.textContent) + 1)">0</button>
        <input data-testid="field" oninput="document.querySelector('[data-testid=echo]').textContent = this.value">
        <p data-testid="echo"></p>
        <div data-testid="row" style="width:300px;height:40px;background:#ddd">row</div>
        <p data-testid="swiped"></p>
        <div id="list" data-testid="list"><div>1</div><div>2</div><div>3</div><div>4</div><div>5</div></div>
        <p data-testid="scrolled">0</p>
        <button data-testid="later" onclick="setTimeout(() => { const p = document.createElement('p'); p.dataset.testid = 'appeared'; p.textContent = 'here'; document.body.append(p); }, 300)">later</button>
        <button data-testid="fetch" onclick="fetch('api/thing').then(r => r.text().then(t => document.querySelector('[data-testid=fetched]').textContent = r.status + ' ' + t))">fetch</button>
        <p data-testid="fetched"></p>
        <p data-testid="event"></p>
        <button data-testid="alert" onclick="alert('hello'); this.textContent = 'after'">alert</button>
        <button data-testid="hang" onclick="for (;;) {}">hang</button>
        <div id="under" data-testid="covered">covered</div><div id="cover"></div>
        <script>
        let start = null;
        const row = document.querySelector('[data-testid=row]');
        row.addEventListener('pointerdown', (e) => { start = e.clientX; row.setPointerCapture(e.pointerId); });
        row.addEventListener('pointerup', (e) => { document.querySelector('[data-testid=swiped]').textContent = e.clientX < start ? 'left' : 'right'; });
        document.querySelector('#list').addEventListener('scroll', (e) => { document.querySelector('[data-testid=scrolled]').textContent = String(e.target.scrollTop > 0); });
        addEventListener('ping', (e) => { document.querySelector('[data-testid=event]').textContent = JSON.stringify(e.detail); });
        </script></body></html>
        """,
        // Text cut off by a container that clips, where the leaf's own box grows with its text (`bad.*`), and text a
        // clipping container does not cut (`good.*`): it fits, it is wholly outside (a carousel's next slide), it is
        // visually hidden for screen readers, its line box is taller than a tight line-height, or it scrolls.
        "clip.html": """
        <!doctype html><html><head><meta charset="utf-8"><style>
        body { margin: 0; font: 16px sans-serif; } .clip { overflow: hidden; white-space: nowrap; }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        </style></head><body>
        <button class="clip" style="width: 90px"><span data-testid="bad.label">In den Warenkorb legen</span></button>
        <div style="width: 120px; height: 20px; overflow: hidden"><p data-testid="bad.lines" style="margin: 0">Dieser Text bricht in mehrere Zeilen um und wird abgeschnitten</p></div>
        <div style="width: 300px; overflow-x: clip"><p data-testid="bad.wide" style="margin: 0; width: 600px">Ein sehr langer Satz, der breiter ist als sein Rahmen und rechts abgeschnitten wird, ohne dass es jemand merkt</p></div>
        <button class="clip" style="width: 200px"><span data-testid="good.label">Add</span></button>
        <div class="clip" style="width: 200px; position: relative; height: 30px"><span data-testid="good.slide1" style="position: absolute; left: 0">Slide one</span><span data-testid="good.slide2" style="position: absolute; left: 300px">Slide two</span></div>
        <div class="sr"><span data-testid="good.sronly">Opens the cart</span></div>
        <div style="height: 16px; line-height: 16px; overflow: hidden"><span data-testid="good.tight" style="font-size: 16px">Tight line</span></div>
        <div style="width: 120px; height: 20px; overflow: auto"><p data-testid="good.scrolls" style="margin: 0">Dieser Text bricht um, aber man kann ihn scrollen</p></div>
        </body></html>
        """,
        // Right to left: leaves whose text sits at their start, centred, or in an LTR island (mirrored), and full-width
        // leaves whose text keeps a physical alignment (their box is the same in both directions, their text not).
        "mirror.html": """
        <!doctype html><html dir="rtl"><head><meta charset="utf-8"><style>
        body { margin: 0; } p { margin: 4px 8px; }
        </style></head><body><div data-testid="good">
        <p data-testid="good.start">مرحبا بكم في المتجر</p>
        <p data-testid="good.center" style="text-align: center">المجموع</p>
        <p data-testid="good.island" dir="ltr">+49 30 1234 5678</p>
        <p data-testid="good.end" style="text-align: end">سلة</p>
        <p data-testid="good.wrapped" style="width: 200px">نص طويل يلتف على عدة أسطر في هذه الفقرة لأنه أطول من عرضها</p>
        <div data-testid="good.row" style="display: flex; justify-content: space-between"><span>أ</span><span>ب</span></div>
        </div><div data-testid="bad">
        <p data-testid="bad.right" style="text-align: right">المجموع</p>
        <p data-testid="bad.left" style="text-align: left">المجموع</p>
        <div data-testid="bad.float" style="display: flow-root"><span style="float: left">أ</span></div>
        </div></body></html>
        """,
        // A string lookup that pseudolocalizes at the source (FlowMatrix.pseudolocalize) unless `?nohook`, and a
        // sentence assembled in code from a translated string and a hard-coded fragment.
        "assembled.html": """
        <!doctype html><html><head><meta charset="utf-8"></head><body>
        <p data-testid="static">Static words</p><p data-testid="whole"></p><p data-testid="assembled"></p>
        <input data-testid="field">
        <script>
        const strings = { total: 'Total', whole: 'Total incl. VAT', search: 'Search {what}' };
        const hook = !location.search.includes('nohook') && window.FlowMatrix ? FlowMatrix.pseudolocalize : (s) => s;
        const t = (key, values) => hook(strings[key]).replace(/\\{(\\w+)\\}/g, (_, k) => values[k]);
        const $ = (id) => document.querySelector('[data-testid="' + id + '"]');
        $('whole').textContent = t('whole');
        $('assembled').textContent = t('total') + ' incl. VAT';
        $('field').placeholder = t('search', { what: 'lamps' });
        </script></body></html>
        """,
        // An uncaught error (broken.js line 3) and a request answered 404, both from one click.
        "broken.html": """
        <!doctype html><html><head><meta charset="utf-8"></head><body>
        <button data-testid="break">break</button><button data-testid="calm">calm</button><p data-testid="result"></p>
        <script src="broken.js"></script></body></html>
        """,
        "broken.js": """
        'use strict';
        function brokenHandler() {
          return nothingHere + 1;
        }
        document.querySelector('[data-testid=break]').addEventListener('click', () => { fetch('api/missing'); brokenHandler(); });
        """,
        // Asks for permissions when its buttons are pressed and shows what the browser answered.
        "permissions.html": """
        <!doctype html><html><head><meta charset="utf-8"></head><body>
        <button data-testid="locate">locate</button><p data-testid="where"></p>
        <button data-testid="notify">notify</button><p data-testid="notified"></p>
        <button data-testid="film">film</button><p data-testid="filmed"></p>
        <script>
        const out = (id) => (text) => { document.querySelector('[data-testid=' + id + ']').textContent = text; };
        const on = (id, f) => document.querySelector('[data-testid=' + id + ']').addEventListener('click', f);
        on('locate', () => navigator.geolocation.getCurrentPosition(
          (p) => out('where')(p.coords.latitude.toFixed(4) + ',' + p.coords.longitude.toFixed(4)),
          (e) => out('where')('error ' + e.code)));
        on('notify', () => Notification.requestPermission().then((r) => out('notified')(r + ' ' + Notification.permission)));
        on('film', () => navigator.mediaDevices.getUserMedia({ video: true })
          .then((s) => out('filmed')('tracks ' + s.getTracks().length), (e) => out('filmed')(e.name)));
        </script></body></html>
        """,
    ]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("web-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("data"), withIntermediateDirectories: true)
        for (name, text) in Self.pages { try Data(text.utf8).write(to: root.appendingPathComponent(name)) }
        // 96 KB to time under network emulation; 20 small files for seeded failures.
        try Data(repeating: 65, count: 96_000).write(to: root.appendingPathComponent("big.txt"))
        for i in 1...20 { try Data("{\"n\": \(i)}".utf8).write(to: root.appendingPathComponent("data/\(i).json")) }
        server = try StaticFileServer(root: root)
        browser = SharedBrowser()
    }

    func settings(pageTimeout: Duration = .seconds(10), loadTimeout: Duration = .seconds(30)) -> WebSettings {
        WebSettings(
            baseURL: server.baseURL, defaultAssertTimeout: .seconds(2), actionTimeout: .seconds(2),
            pageTimeout: pageTimeout, loadTimeout: loadTimeout)
    }

    func registry(
        _ configuration: [String: String] = [:], seed: UInt64 = 1,
        pageTimeout: Duration = .seconds(10), loadTimeout: Duration = .seconds(30)
    ) async throws -> WebRegistry {
        try await WebRegistry.open(
            in: browser.browser(), configuration: configuration, seed: seed,
            settings: settings(pageTimeout: pageTimeout, loadTimeout: loadTimeout))
    }

    func close() async {
        await browser.shutdown()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }
}

extension WebRegistry {
    /// Evaluates `expression` in the page (awaiting promises) and returns its JSON value.
    func inPage(_ expression: String) async throws -> JSONValue {
        let r = try await page.send(
            "Runtime.evaluate", ["expression": .string(expression), "returnByValue": true, "awaitPromise": true])
        return r["result"]?["value"] ?? .null
    }

    func step(_ verb: Verb, _ target: String, _ arg: String? = nil) async throws {
        try await execute(Step(verb: verb, target: target, arg: arg))
    }
}

/// Runs `body` with a fresh site and browser, and ends both whatever happens.
func withSite(_ body: (TestSite) async throws -> Void) async throws {
    let site = try TestSite()
    do {
        try await body(site)
    } catch {
        await site.close()
        throw error
    }
    await site.close()
}

/// The suites that start real browsers, one at a time: started together on a 2-core machine they starve each other
/// (and every other test in the process).
@Suite("web registry in real Chromium", .serialized)
enum RealChromium {}
