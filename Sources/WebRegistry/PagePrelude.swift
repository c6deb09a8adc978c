import DevTools
import RunConditions

/// The script every page of a job gets before any of its own scripts run (`Page.addScriptToEvaluateOnNewDocument`):
/// it forces the direction, pseudolocalizes text nodes as they appear, holds the page's permission requests until the
/// driver has decided them (`PermissionPrompts`), and defines `window.__flowmatrix`, the in-page half of waits,
/// assertions and actions.
///
/// The pseudolocalization is the same transformation as `Pseudolocalizer.transform` (tests run shared vectors through
/// both). It applies to the trimmed text of each text node (surrounding whitespace kept) and to `placeholder`,
/// `title` and `aria-label` attributes; it skips text without letters and text inside `script`, `style`, `textarea`,
/// `noscript` and `template`. It cannot reach text drawn on a canvas, in images, in closed shadow roots or in
/// cross-origin frames, and `input` values typed by the user. When pseudolocalizing, it also defines the source hook
/// `window.FlowMatrix.pseudolocalize(text)` for the app's string lookup: from its first call the document's strings are
/// transformed one by one where they are looked up, and rendered text is left as the page wrote it (docs/WEB.md).
enum PagePrelude {
    /// The configuration the script reads: identifier attribute, forced direction, pseudolocalization mode, and the
    /// page objects' in-page interruptions.
    static func source(
        attribute: String, forcedDirection: String?, pseudo: PseudoMode, interruptions: JSONValue = []
    ) -> String {
        let config: JSONValue = [
            "attr": .string(attribute), "dir": forcedDirection.map(JSONValue.string) ?? .null,
            "pseudo": .string(pseudo.rawValue), "interruptions": interruptions,
        ]
        return body.replacingOccurrences(of: "__LOCATORS__", with: PageLocators.script)
            .replacingOccurrences(of: "__CONFIG__", with: config.serialized)
            .replacingOccurrences(of: "__ACCENTS__", with: accentTable)
            .replacingOccurrences(of: "__ON_SCREEN__", with: ScreenElements.source)
            .replacingOccurrences(of: "__PERMISSIONS__", with: PermissionPrelude.source)
            .replacingOccurrences(of: "__SCROLLING__", with: ScrollPrelude.source)
    }

    /// The accent table, taken from the Swift transformation itself so the two cannot drift.
    static let accentTable: String = {
        var pairs: [String] = []
        for v in UInt8(ascii: "A")...UInt8(ascii: "z") {
            let plain = String(UnicodeScalar(v))
            let mapped = Pseudolocalizer.accent(plain)
            if mapped != plain { pairs.append("\(jsString(plain)):\(jsString(mapped))") }
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }()

    /// A JavaScript string literal: JSON's string syntax, which escapes U+2028 and U+2029 too.
    static func jsString(_ s: String) -> String { JSONValue.string(s).serialized }

    static let body = #"""
        (() => {
          if (window.__flowmatrix) return;
          const config = __CONFIG__;
          const accents = __ACCENTS__;
          const accent = (text) => {
            let out = '', inPlaceholder = false;
            for (const ch of text) {
              if (ch === '{') inPlaceholder = true;
              out += (!inPlaceholder && accents[ch]) ? accents[ch] : ch;
              if (ch === '}') inPlaceholder = false;
            }
            return out;
          };
          const transform = (text, mode) => {
            if (mode === 'double') return text.length ? text + ' ' + text : text;
            if (mode === 'accented') return '[' + accent(text) + ']';
            return text;
          };
          const hasLetter = (text) => /\p{L}/u.test(text);
          const skipped = new Set(['SCRIPT', 'STYLE', 'TEXTAREA', 'NOSCRIPT', 'TEMPLATE']);
          // Set by the page's first call of FlowMatrix.pseudolocalize: its strings are transformed at the source, so
          // the prelude stops rewriting rendered text (and puts back what it had rewritten before that call).
          let atSource = false;
          const written = new WeakMap(), originalText = new WeakMap();
          const rewriteText = (node) => {
            const parent = node.parentNode;
            if (atSource || !parent || skipped.has(parent.nodeName)) return;
            const value = node.data;
            if (written.get(node) === value) return;
            const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(value);
            if (!m[2] || !hasLetter(m[2])) return;
            const out = m[1] + transform(m[2], config.pseudo) + m[3];
            written.set(node, out);
            originalText.set(node, value);
            node.data = out;
          };
          const attributes = ['placeholder', 'title', 'aria-label'];
          const writtenAttr = new WeakMap();
          const rewriteAttributes = (el) => {
            if (atSource || !el.getAttribute) return;
            let seen = writtenAttr.get(el);
            for (const name of attributes) {
              const value = el.getAttribute(name);
              if (!value || !hasLetter(value) || (seen && seen[name] && seen[name].out === value)) continue;
              const out = transform(value, config.pseudo);
              if (!seen) { seen = {}; writtenAttr.set(el, seen); }
              seen[name] = { out, original: value };
              el.setAttribute(name, out);
            }
          };
          // Puts back the page's own text and attributes where the prelude rewrote them (and the page did not change
          // them since).
          const restoreTree = (root) => {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
            for (let n = walker.currentNode; n; n = walker.nextNode()) {
              if (n.nodeType === 3) {
                if (written.get(n) === n.data) n.data = originalText.get(n);
                continue;
              }
              const seen = writtenAttr.get(n);
              if (seen) for (const name of attributes) {
                if (seen[name] && n.getAttribute(name) === seen[name].out) n.setAttribute(name, seen[name].original);
              }
            }
          };
          // The source hook: the app's string lookup passes each translated string through it (docs/WEB.md).
          const pseudolocalize = (text) => {
            if (!atSource) {
              atSource = true;
              if (document.documentElement) restoreTree(document.documentElement);
            }
            return typeof text === 'string' && hasLetter(text) ? transform(text, config.pseudo) : text;
          };
          const rewriteTree = (root) => {
            if (!root || atSource) return;
            if (root.nodeType === 3) return rewriteText(root);
            if (root.nodeType !== 1 && root.nodeType !== 9 && root.nodeType !== 11) return;
            if (root.nodeType === 1) { if (skipped.has(root.nodeName)) return; rewriteAttributes(root); }
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              if (n.nodeType === 3) rewriteText(n); else rewriteAttributes(n);
            }
          };
          if (config.pseudo !== 'none') {
            Object.defineProperty(window, 'FlowMatrix', {
              value: Object.freeze({ pseudolocalize, pseudo: config.pseudo }),
              enumerable: false,
            });
            new MutationObserver((records) => {
              for (const r of records) {
                if (r.type === 'characterData') rewriteText(r.target);
                else if (r.type === 'attributes') rewriteAttributes(r.target);
                else for (const n of r.addedNodes) rewriteTree(n);
              }
            }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: attributes });
            document.addEventListener('DOMContentLoaded', () => rewriteTree(document.documentElement));
          }
          if (config.dir) {
            const apply = () => {
              const html = document.documentElement;
              if (html && html.getAttribute('dir') !== config.dir) html.setAttribute('dir', config.dir);
            };
            let watched = null;
            const watch = () => {
              apply();
              const html = document.documentElement;
              if (html && html !== watched) {
                watched = html;
                new MutationObserver(apply).observe(html, { attributes: true, attributeFilter: ['dir'] });
              }
            };
            new MutationObserver(watch).observe(document, { childList: true });
            watch();
          }

          __LOCATORS__
          // Text a scenario names is source text: under pseudolocalization the page shows its transformation.
          const sameText = (shown, expected) => shown === expected || shown === transform(expected, config.pseudo);
          const containsText = (shown, expected) => shown.includes(expected)
            || (config.pseudo === 'accented' && shown.includes(accent(expected)));
          const describe = (el) => {
            if (!el) return 'nothing';
            const id = el.getAttribute && el.getAttribute(config.attr);
            if (id) return sel(id);
            return el.nodeName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
          };
          const visible = (el) => {
            if (!el || !el.isConnected) return false;
            if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.height > 0;
          };
          const text = (el) => (el.innerText !== undefined ? el.innerText : el.textContent).replace(/\s+/g, ' ').trim();
          // Elements carrying the identifier attribute that hold no other such element: what layout rules look at.
          const leaves = (root) => {
            const all = [...(root || document).querySelectorAll('[' + config.attr + ']')];
            if (root && root.hasAttribute && root.hasAttribute(config.attr)) all.unshift(root);
            return all.filter((el) => visible(el) && !el.querySelector('[' + config.attr + ']'));
          };
          const rtl = () => getComputedStyle(document.documentElement).direction === 'rtl';
          // How far an element's rendered text and inline content (its Range's client rects) sit from the leading
          // side of the viewport: the right in RTL, the left in LTR. Null when it has none, or when the element keeps
          // its own direction (an LTR island such as a phone number is judged by that direction, not the page's).
          const contentEdge = (el, width, fromRight) => {
            if (getComputedStyle(el).direction !== (fromRight ? 'rtl' : 'ltr')) return null;
            const range = document.createRange();
            range.selectNodeContents(el);
            let edge = null;
            for (const r of range.getClientRects()) {
              if (r.width < 0.5 || r.height < 0.5) continue;
              const e = fromRight ? width - r.right : r.left;
              edge = edge === null ? e : Math.min(edge, e);
            }
            return edge;
          };
          // A leaf's content cut off by a container that clips (`overflow: hidden` or `clip` on an ancestor): a label
          // in a fixed-width button, a paragraph in a box of fixed height — where the leaf's own box grows with its
          // content, so its own overflow says nothing. Judged on its rendered content (the Range's client rects) while
          // part of it shows: past the container by more than 1 px across, or a line more than half hidden down.
          // Content wholly outside (a carousel's other slides), containers of 1 px or less (visually hidden text) and
          // scrolling containers (the reader can reach the rest) are not truncation. Null, or what clips it.
          const clippedBy = (el) => {
            const range = document.createRange();
            range.selectNodeContents(el);
            const lines = [...range.getClientRects()].filter((r) => r.width >= 0.5 && r.height >= 0.5);
            if (lines.length === 0) return null;
            for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
              const s = getComputedStyle(a);
              const across = s.overflowX === 'hidden' || s.overflowX === 'clip';
              const down = s.overflowY === 'hidden' || s.overflowY === 'clip';
              if (!across && !down) continue;
              if (a.clientWidth <= 1 || a.clientHeight <= 1) return null;
              const box = a.getBoundingClientRect();
              const left = box.left + a.clientLeft, top = box.top + a.clientTop;
              const right = left + a.clientWidth, bottom = top + a.clientHeight;
              const shows = lines.some((r) => Math.min(r.right, right) - Math.max(r.left, left) > 0.5
                && Math.min(r.bottom, bottom) - Math.max(r.top, top) > 0.5);
              if (!shows) return null;
              const cutAcross = across && lines.some((r) => r.left < left - 1 || r.right > right + 1);
              const cutDown = down && lines.some((r) => Math.min(r.bottom, bottom) - Math.max(r.top, top) < r.height / 2);
              if (!cutAcross && !cutDown) continue;
              const extent = (f, g) => Math.round(Math.max(...lines.map(f)) - Math.min(...lines.map(g)));
              return { clipper: a, width: extent((r) => r.right, (r) => r.left), height: extent((r) => r.bottom, (r) => r.top) };
            }
            return null;
          };
          const layoutFindings = (root, rules) => {
            const els = leaves(root);
            const out = [];
            const name = (el) => el.getAttribute(config.attr);
            const width = document.documentElement.clientWidth;
            const rects = new Map(els.map((el) => [el, el.getBoundingClientRect()]));
            if (rules.has('no-truncation')) for (const el of els) {
              if (getComputedStyle(el).display !== 'inline'
                  && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
                out.push('truncated: ' + name(el) + ' (content ' + el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight + ')');
                continue;
              }
              const cut = clippedBy(el);
              if (cut) {
                out.push('truncated: ' + name(el) + ' (content ' + cut.width + 'x' + cut.height + ' cut off by ' + describe(cut.clipper)
                  + ', ' + cut.clipper.clientWidth + 'x' + cut.clipper.clientHeight + ')');
              }
            }
            if (rules.has('no-overlap')) for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
              const a = rects.get(els[i]), b = rects.get(els[j]);
              const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
              if (w > 0 && h > 0 && w * h > 1 && !els[i].contains(els[j]) && !els[j].contains(els[i])) {
                out.push('overlapping: ' + name(els[i]) + ' and ' + name(els[j]) + ' (' + Math.round(w * h) + ' px²)');
              }
            }
            if (rules.has('on-screen')) for (const el of els) {
              const r = rects.get(el);
              if (r.left < -0.5 || r.right > width + 0.5) out.push('off-screen: ' + name(el) + ' (' + Math.round(r.left) + '…' + Math.round(r.right) + ' of ' + width + ')');
            }
            if (rules.has('mirrored') && rtl()) {
              const html = document.documentElement;
              const rtlContent = new Map(els.map((el) => [el, contentEdge(el, width, true)]));
              const before = html.getAttribute('dir');
              html.setAttribute('dir', 'ltr');
              const ltr = new Map(els.map((el) => [el, el.getBoundingClientRect()]));
              const ltrContent = new Map(els.map((el) => [el, contentEdge(el, width, false)]));
              if (before === null) html.removeAttribute('dir'); else html.setAttribute('dir', before);
              for (const el of els) {
                const r = rects.get(el), l = ltr.get(el);
                const gap = Math.abs((width - r.right) - l.left);
                if (gap > 2) {
                  out.push('not-mirrored: ' + name(el) + ' (leading edge ' + Math.round(width - r.right) + ' px in RTL, ' + Math.round(l.left) + ' px in LTR)');
                  continue;
                }
                // The box is mirrored; its text and inline content must be too (a physical text-align or float
                // inside a full-width box keeps the content where it was).
                const a = rtlContent.get(el), b = ltrContent.get(el);
                if (a === null || b === null || Math.abs(a - b) <= 2) continue;
                out.push('not-mirrored: ' + name(el) + ' text (leading edge ' + Math.round(a) + ' px in RTL, ' + Math.round(b) + ' px in LTR: a physical text-align or float)');
              }
            }
            if (rules.has('localized') && config.pseudo === 'accented') for (const el of els) {
              // Content the app shows as it came (`translate="no"`: names, prices, locale data) is not UI copy.
              if (el.closest('[translate="no"]')) continue;
              const t = text(el);
              if (!hasLetter(t)) continue;
              const runs = t.match(/\[[^\[\]]*\]/g) || [];
              const rest = t.replace(/\[[^\[\]]*\]/g, '');
              if (hasLetter(rest) && runs.length) out.push('not-localized: ' + name(el) + ' joins translated text with text built in code ("' + rest.replace(/\s+/g, ' ').trim() + '"): "' + t + '"');
              else if (hasLetter(rest)) out.push('not-localized: ' + name(el) + ' shows text outside the string tables: "' + t + '"');
              else if (runs.length > 1) out.push('not-localized: ' + name(el) + ' is assembled from ' + runs.length + ' separately translated pieces: "' + t + '"');
            }
            return out;
          };
          const layoutRules = ['no-truncation', 'no-overlap', 'on-screen', 'mirrored', 'localized'];

          // One condition: { id (null: the whole page), kind, value, rules }. Returns { ok, detail }.
          const check = (c) => {
            const el = c.id === null ? document.documentElement : find(c.id);
            const where = c.id === null ? 'the page' : sel(c.id);
            switch (c.kind) {
              case 'exists': return el ? { ok: true } : { ok: false, detail: 'no element matches ' + where };
              case 'absent': return !el ? { ok: true } : { ok: false, detail: where + ' is still there' };
              case 'visible': return visible(el) ? { ok: true } : { ok: false, detail: el ? where + ' is not visible' : 'no element matches ' + where };
              case 'hidden': return !visible(el) ? { ok: true } : { ok: false, detail: where + ' is visible' };
              case 'text': {
                if (!el) return { ok: false, detail: 'no element matches ' + where };
                const t = text(el);
                return sameText(t, c.value) ? { ok: true } : { ok: false, detail: where + ' shows "' + t + '", expected "' + c.value + '"' };
              }
              case 'contains': {
                if (!el) return { ok: false, detail: 'no element matches ' + where };
                const t = text(el);
                return containsText(t, c.value) ? { ok: true } : { ok: false, detail: where + ' shows "' + t + '", which does not contain "' + c.value + '"' };
              }
              case 'value': {
                if (!el) return { ok: false, detail: 'no element matches ' + where };
                const v = valueOf(el);
                return v === c.value ? { ok: true } : { ok: false, detail: where + ' has value "' + v + '", expected "' + c.value + '"' };
              }
              case 'layout': {
                if (!el) return { ok: false, detail: 'no element matches ' + where };
                const found = layoutFindings(c.id === null ? null : el, new Set(c.rules));
                return found.length === 0 ? { ok: true } : { ok: false, detail: found.join('; ') };
              }
            }
            return stateCheck(c, el, where);
          };
          const checkEvery = (conditions) => {
            for (const c of conditions) { const r = check(c); if (!r.ok) return r; }
            return { ok: true };
          };
          // Resolves when every condition holds, re-checking on each DOM mutation, resize, load, transition and animation
          // end (no polling), or with the last failure when timeoutMs passes.
          // With `withSnapshot`, the result carries the page's snapshot as the wait concluded (evidence of the step), as
          // JSON text (``ScreenshotFreeze/snapshot(from:)``).
          // With `awaited` (a step's target, or null for none), the page objects' interruptions are dismissed meanwhile and
          // the result names them.
          const waitFor = (conditions, timeoutMs, withSnapshot, awaited) => new Promise((done) => {
            const resolve = (r) => {
              if (awaited !== undefined) r = Object.assign({ interruptions: takeInterruptions() }, r);
              done(withSnapshot ? Object.assign({ snapshot: snapshotText() }, r) : r);
            };
            const checkAll = (list) => { if (awaited !== undefined) dismissInterruptions(awaited); return checkEvery(list); };
            let last = checkAll(conditions);
            if (last.ok) return resolve(last);
            let finished = false, scheduled = false;
            const events = ['resize', 'load', 'transitionend', 'animationend', 'scroll'];
            const finish = (result) => {
              if (finished) return;
              finished = true;
              observer.disconnect();
              for (const e of events) window.removeEventListener(e, recheck, true);
              clearTimeout(timer);
              resolve(result);
            };
            const recheck = () => {
              if (finished || scheduled) return;
              scheduled = true;
              queueMicrotask(() => { scheduled = false; last = checkAll(conditions); if (last.ok) finish(last); });
            };
            const observer = new MutationObserver(recheck);
            observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
            for (const e of events) window.addEventListener(e, recheck, true);
            const timer = setTimeout(() => { last = checkAll(conditions); finish(last); }, timeoutMs);
          });
          // Scrolls an element into view and returns the point to act on, after checking nothing covers it.
          const point = (id) => {
            const el = find(id);
            if (!el) return { ok: false, detail: 'no element matches ' + sel(id) };
            el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
            const r = el.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const hit = document.elementFromPoint(x, y);
            if (!hit || !(hit === el || el.contains(hit))) return { ok: false, detail: sel(id) + ' is covered by ' + describe(hit) };
            return { ok: true, x, y, width: r.width, height: r.height };
          };
          // tap and swipe: waits for the element to be visible, then scrolls to it and checks nothing covers it — one
          // round trip. `waited` tells a wait that ran out from an element that is there but covered.
          const actionPoint = (id, timeoutMs) => waitFor([{ id, kind: 'visible' }], timeoutMs, false, id)
            .then((r) => Object.assign(r.ok ? point(id) : { ok: false, waited: true, detail: r.detail }, { interruptions: r.interruptions }));
          __SCROLLING__
          // A generation that changes with anything that can change the pixels short of a running animation: evidence
          // after a step that changed nothing reuses the previous screenshot.
          // Per document: a random start, so a new document never continues an old one's count.
          let generation = Math.floor(Math.random() * 2 ** 40);
          const bump = () => { generation++; };
          new MutationObserver(bump).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          for (const e of ['resize', 'scroll', 'load', 'focus', 'blur', 'transitionend', 'animationend']) window.addEventListener(e, bump, true);
          __ON_SCREEN__
          const snapshot = () => ({
            generation,
            animating: document.getAnimations().some((a) => a.playState === 'running'),
            html: document.documentElement ? document.documentElement.outerHTML : '',
            screen: onScreen(),
          });
          // The snapshot as JSON text for the driver (``ScreenshotFreeze/snapshot(from:)``), its strings made well
          // formed: a lone surrogate (text cut inside an emoji) would be escaped as \\udXXX, which no strict JSON
          // parser takes; it becomes U+FFFD, as the browser's own protocol encoding does.
          const wellFormed = (key, v) => (typeof v === 'string' && v.toWellFormed ? v.toWellFormed() : v);
          const snapshotText = () => JSON.stringify(snapshot(), wellFormed);

          __PERMISSIONS__
          Object.defineProperty(window, '__flowmatrix', {
            value: Object.freeze({ transform, check, waitFor, point, actionPoint, scrollMark, wheelCounts, scrolledFrom, focus, layoutRules, layoutFindings, snapshot, snapshotText, permissionDecided, permissionsPending: () => waiting.size + located }),
            enumerable: false,
          });
        })();
        """#
}
