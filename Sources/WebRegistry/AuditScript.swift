/// The in-page half of the accessibility audit (`assert page accessible`): contrast (AX002), target size (AX003),
/// `lang`/`dir` (AX004) and clipped text (AX005), each finding naming its element by the identifier attribute; and
/// AX001's candidates, the controls whose name Chromium's accessibility engine computes blank, which the driver then
/// confirms in the browser's accessibility tree (`WebRegistry+Audit.swift`).
///
/// - Contrast: every visible element with its own text, not disabled. The text colour (its alpha blended) against
///   the backgrounds painted behind the text's first line (`elementsFromPoint`, so positioned backdrops that are not
///   ancestors count), composed down to the first opaque one (the white canvas below all). A `linear-gradient` or
///   `radial-gradient` behind the text is judged at each colour stop, and its worst stop counts; a `url()` image is
///   not judged (the element is reported as skipped in `skipped`). WCAG 2.2 AA: 4.5:1, or 3:1 for text at least
///   24 px, or 18.66 px bold.
/// - Target size: links, buttons, form fields and elements with a widget role or a tab stop, visible, enabled and
///   not covered at their centre (a panel over them), smaller than 24×24 CSS px, unless a link sits inline in a line
///   of text, or the 24 px circle centred on the target meets no other target (WCAG 2.5.8's spacing exception).
/// - Language: `<html lang>` present, with the configuration's language as its primary subtag; the document's
///   computed direction equal to the configuration's.
/// - Clipped: the `no-truncation` rule of `__flowmatrix.layoutFindings`.
enum AuditScript {
    /// A function expression taking `{ attr, language, dir, names, roles }` and returning `{ findings: [{ code, id,
    /// detail }], skipped, unnamed, elapsed }`: with `names`, `unnamed` lists the labels of the controls (`roles`: the
    /// accessibility tree's interactive roles) whose computed name is blank, kept for the driver at
    /// `globalThis[Symbol.for('flowmatrix.audit.unnamed')]`, or is null (see `unnamedControls`); `elapsed` is the
    /// script's own time in the page, in ms (without the round trip).
    static let source = #"""
        ((opts) => {
          const started = performance.now();
          const attr = opts.attr, out = [];
          let skipped = 0;
          const label = (el) => {
            const own = el.getAttribute && el.getAttribute(attr);
            if (own) return own;
            const holder = el.parentElement && el.parentElement.closest('[' + attr + ']');
            const tag = el.nodeName.toLowerCase() + (el.className && typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/)[0] : '');
            return holder ? tag + ' in ' + holder.getAttribute(attr) : tag;
          };
          const add = (code, el, detail) => out.push({ code, id: typeof el === 'string' ? el : label(el), detail });
          // AX001's candidates: the controls (by the role Chromium's accessibility engine computes) whose computed name is
          // blank, in the flat tree's order (open shadow roots walked). They are kept for the driver, which confirms each
          // in the accessibility tree. null when the engine's names are not exposed, or a custom element may hold a
          // closed shadow root (whose controls a page cannot reach): the driver reads the whole tree then.
          const unnamedControls = () => {
            if (!('computedName' in Element.prototype)) return null;
            const roles = new Set(opts.roles), found = [];
            const blank = (name) => !/[^\s\u0085\u180e\u200b-\u200d\u2060\ufeff]/.test(name || '');
            const control = 'a, area, button, input, select, textarea, summary, audio, video, [role], [tabindex], [contenteditable], [aria-pressed], [aria-haspopup]';
            let closed = false;
            // Under `display: none` (its own or an ancestor's, across shadow hosts) a control is never in the tree: not a
            // candidate (so a page whose only unnamed controls are hidden costs no confirmation round). checkVisibility()
            // answers most elements without a style read. An image map's <area> is `display: none` yet in the tree (as
            // its image's link): always a candidate.
            const gone = new Map();
            const undisplayed = (el) => {
              if (!el || !el.checkVisibility || el.localName === 'area') return false;
              if (gone.has(el)) return gone.get(el);
              const yes = !el.checkVisibility() && (getComputedStyle(el).display === 'none' || undisplayed(el.parentElement || (el.parentNode && el.parentNode.host)));
              gone.set(el, yes);
              return yes;
            };
            const walk = (root) => {
              for (const el of root.querySelectorAll('*')) {
                const role = el.computedRole;
                if ((roles.has(role) || (role === '' && el.matches(control))) && blank(el.computedName) && !undisplayed(el)) found.push(el);
                if (el.shadowRoot) walk(el.shadowRoot);
                else if (el.localName.includes('-') && customElements.get(el.localName)) closed = true;
              }
            };
            walk(document);
            if (closed) return null;
            globalThis[Symbol.for('flowmatrix.audit.unnamed')] = found;
            return found.map(label);
          };
          // Rendered, visible and not empty (its box kept in `rects` when given).
          const shown = (el, rects) => {
            if (!el.isConnected || (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true }))) return false;
            const r = el.getBoundingClientRect();
            if (rects) rects.set(el, r);
            return r.width > 0 && r.height > 0;
          };
          const parse = (text) => {
            const m = /rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)/.exec(text || '');
            if (!m) return null;
            let a = m[4] === undefined ? 1 : parseFloat(m[4]);
            if (m[4] && m[4].endsWith('%')) a /= 100;
            return [parseFloat(m[1]), parseFloat(m[2]), parseFloat(m[3]), a];
          };
          const colours = new Map();
          const colour = (text) => { let c = colours.get(text); if (c === undefined) colours.set(text, c = parse(text)); return c; };
          const over = (top, below) => {
            const a = top[3];
            return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a)).concat([1]);
          };
          const lum = (c) => {
            const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
          };
          const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
          const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
          // AX002. Each element's computed style is read once (`facts`), with what it paints behind the text above it
          // (a list of layers, each a list of candidate colours: a gradient's stops; null when an image is in the way),
          // and each distinct colour parsed once: many texts share their backdrops.
          const factsOf = new Map();
          const facts = (n) => {
            let f = factsOf.get(n);
            if (f) return f;
            const s = getComputedStyle(n), image = s.backgroundImage;
            let paint = [];
            if (image && image !== 'none') {
              if (/url\(/.test(image)) paint = null;
              else {
                const stops = (image.match(/rgba?\([^)]*\)/g) || []).map(colour).filter(Boolean);
                if (stops.length) paint.push(stops);
              }
            }
            if (paint) { const bg = colour(s.backgroundColor); if (bg && bg[3] > 0) paint.push([bg]); }
            f = { s, paint, index: factsOf.size };
            factsOf.set(n, f);
            return f;
          };
          // The layers `nodes` paint, from the top down to the first opaque one, and a key naming the nodes that
          // painted them (the same key, the same colours behind); null when an image is in the way.
          const layersOf = (nodes) => {
            const layers = [];
            let key = '';
            for (const n of nodes) {
              const f = facts(n);
              if (f.paint === null) return null;
              if (!f.paint.length) continue;
              layers.push(...f.paint);
              key += f.index + ' ';
              if (layers[layers.length - 1].every((c) => c[3] >= 1)) break;
            }
            return { layers, key };
          };
          const chain = (el) => { const out = []; for (let n = el; n; n = n.parentElement) out.push(n); return out; };
          // The backgrounds behind a point of `el`: what the hit test lists there from `el` down (so positioned
          // backdrops that are not ancestors count), or `el` and all its ancestors where the hit test does not list it
          // (off screen, where it lists nothing: that needs no hit test).
          const unzoomed = !window.visualViewport || visualViewport.scale === 1;
          const layersBehind = (el, x, y) => {
            if (unzoomed && (x < -1 || y < -1 || x > innerWidth + 1 || y > innerHeight + 1)) return layersOf(chain(el));
            const stack = document.elementsFromPoint(x, y);
            const at = stack.indexOf(el);
            return layersOf(at < 0 ? chain(el) : stack.slice(at));
          };
          // The elements with text of their own to judge, read before any hit test.
          const texts = [];
          const skippedTags = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'TITLE', 'HEAD']);
          const isText = (n) => n.nodeType === 3 && /\S/.test(n.data);
          for (const el of document.body ? document.body.querySelectorAll('*') : []) {
            if (skippedTags.has(el.nodeName)) continue;
            const text = [...el.childNodes].find(isText);
            if (text && shown(el) && !el.closest(':disabled, [aria-disabled=true]')) texts.push([el, text]);
          }
          const candidatesOf = new Map();
          const candidates = (behind) => {
            let colours = candidatesOf.get(behind.key);
            if (colours) return colours;
            colours = [[255, 255, 255, 1]];
            const layers = behind.layers;
            for (let i = layers.length - 1; i >= 0; i--) {
              const next = [];
              for (const below of colours) for (const top of layers[i]) next.push(over(top, below));
              colours = next.slice(0, 64);
            }
            candidatesOf.set(behind.key, colours);
            return colours;
          };
          for (const [el, text] of texts) {
            const s = facts(el).s;
            const fg = colour(s.color);
            if (!fg) continue;
            const range = document.createRange();
            range.selectNodeContents(text);
            const rect = [...range.getClientRects()].find((r) => r.width > 0 && r.height > 0);
            if (!rect) continue;
            const behind = layersBehind(el, rect.left + rect.width / 2, rect.top + rect.height / 2);
            if (behind === null) { skipped++; continue; }
            let worst = null;
            for (const bg of candidates(behind)) {
              const r = ratio(over(fg, bg), bg);
              if (!worst || r < worst.r) worst = { r, bg };
            }
            if (!worst || worst.r >= 4.5) continue;  // passes at any size: the font is not read
            const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight, 10) >= 700;
            const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
            if (worst.r < needed) {
              add('AX002', el, (Math.floor(worst.r * 100) / 100) + ':1 < ' + needed + ':1 (text ' + hex(over(fg, worst.bg)) + ' on ' + hex(worst.bg) + ', ' + size + 'px' + (bold ? ' bold' : '') + ')');
            }
          }
          // AX003. Only a small target that another one crowds needs to be reachable (a hit test), and then only the
          // targets crowding it: a target under something else at its centre (a panel over the list) cannot be reached
          // now, and is not judged.
          const targetSelector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [tabindex]:not([tabindex="-1"])';
          const reachableOf = new Map();
          const reachable = (el) => {
            if (reachableOf.has(el)) return reachableOf.get(el);
            const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            let hit = null, yes = true;
            if (!(x < 0 || y < 0 || x >= innerWidth || y >= innerHeight)) { hit = document.elementFromPoint(x, y); yes = !hit || hit === el || el.contains(hit); }
            reachableOf.set(el, yes);
            return yes;
          };
          const rects = new Map();
          const targets = [...document.querySelectorAll(targetSelector)].filter((el) => shown(el, rects) && !el.matches(':disabled'));
          const inlineInText = (el) => getComputedStyle(el).display === 'inline' && el.parentElement && [...el.parentElement.childNodes].some((n) => n !== el && n.nodeType === 3 && /\S/.test(n.data));
          const small = new Set(targets.filter((el) => { const r = rects.get(el); return (r.width < 24 || r.height < 24) && !inlineInText(el); }));
          const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];
          const distanceToRect = (p, r) => Math.hypot(Math.max(r.left - p[0], 0, p[0] - r.right), Math.max(r.top - p[1], 0, p[1] - r.bottom));
          for (const el of small) {
            const r = rects.get(el), c = centre(r);
            const close = targets.filter((other) => {
              if (other === el || other.contains(el) || el.contains(other)) return false;
              const o = rects.get(other);
              if (small.has(other)) { const d = centre(o); return Math.hypot(d[0] - c[0], d[1] - c[1]) < 24; }
              return distanceToRect(c, o) < 12;
            });
            if (close.length && reachable(el) && close.some(reachable)) add('AX003', el, Math.round(r.width * 10) / 10 + '×' + Math.round(r.height * 10) / 10 + ' px < 24×24 px, with another target within 12 px of its centre');
          }
          const html = document.documentElement;
          const lang = (html.getAttribute('lang') || '').trim();
          if (!lang) add('AX004', 'html', 'has no lang; the configuration\'s language is ' + opts.language);
          else if (lang.split('-')[0].toLowerCase() !== opts.language) add('AX004', 'html', 'lang="' + lang + '" does not match the configuration\'s language ' + opts.language);
          const direction = getComputedStyle(document.body || html).direction;
          if (direction !== opts.dir) add('AX004', 'html', 'lays out ' + direction + ' but the configuration is ' + opts.dir);
          if (window.__flowmatrix) for (const f of window.__flowmatrix.layoutFindings(null, new Set(['no-truncation']))) {
            const m = /^truncated: (\S+) (.*)$/.exec(f);
            if (m) add('AX005', m[1], 'text is clipped ' + m[2]);
          }
          const unnamed = opts.names ? unnamedControls() : null;
          return { findings: out, skipped, unnamed, elapsed: performance.now() - started };
        })
        """#
}
