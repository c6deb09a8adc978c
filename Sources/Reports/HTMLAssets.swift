import FlowCrypto
import Foundation

/// The report page's inline style sheet and script (constant text: no data is ever interpolated into them).
enum HTMLAssets {
    static let style = """
        :root{--pass:#2e9d57;--fail:#d63b3b;--flaky:#e0a526;--timeout:#8b3fd1;--quar:#58606b;--none:#d9dde2;--ink:#1d232b;
        --muted:#5f6b78;--line:#e3e6ea;--bg:#f6f7f9}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
        header{background:#1d232b;color:#fff;padding:14px 24px}
        header h1{margin:0;font-size:20px}
        header p{margin:4px 0 0;color:#c4ccd6}
        main{padding:16px 24px 80px;max-width:100%}
        section.block{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:0 0 16px}
        h2{font-size:17px;margin:0 0 10px}
        h3{font-size:15px;margin:14px 0 6px}
        .muted{color:var(--muted)}
        code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
        pre{background:#f3f5f7;border:1px solid var(--line);border-radius:6px;padding:8px;overflow:auto;max-height:28em;
        white-space:pre-wrap;word-break:break-word}
        dl.meta{display:grid;grid-template-columns:max-content 1fr max-content 1fr;gap:4px 16px;margin:0}
        dl.meta dt{color:var(--muted)}
        dl.meta dd{margin:0}
        .chips{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0 4px}
        .chip{display:inline-block;border-radius:12px;padding:2px 10px;color:#fff;font-weight:600;font-size:12.5px}
        .s-passed{background:var(--pass)}.s-failed{background:var(--fail)}.s-flaky{background:var(--flaky)}
        .s-timedOut{background:var(--timeout)}.s-quarantined{background:var(--quar)}.s-notRun{background:var(--none);color:#333}
        .headline{font-size:15px;font-weight:600;border-left:4px solid var(--fail);padding:6px 10px;background:#fff5f5;margin:10px 0}
        .headline.ok{border-color:var(--pass);background:#f2fbf5}
        table{border-collapse:collapse}
        table.grid td,table.grid th{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
        table.grid th{color:var(--muted);font-weight:600}
        .scroll{overflow:auto;max-width:100%}
        .heatmap{font-size:11.5px}
        .heatmap .hl,.heatmap .hr{white-space:nowrap;height:24px;line-height:24px;width:max-content}
        .heatmap .hr{content-visibility:auto;contain-intrinsic-size:auto 24px}
        .heatmap .hl{color:var(--muted);border-bottom:1px solid var(--line)}
        .heatmap .axis,.heatmap .rh{display:inline-block;width:18em;text-align:right;padding-right:8px;overflow:hidden;
        text-overflow:ellipsis;vertical-align:top}
        .heatmap .axis{font-weight:700;color:var(--ink)}
        .heatmap .rh{font-weight:500}
        .heatmap .h{display:inline-block;text-align:center;overflow:hidden;text-overflow:ellipsis;vertical-align:top;
        border-left:1px solid var(--line)}
        a.cell,i.none,span.multi{display:inline-block;width:22px;height:22px;margin:1px;vertical-align:top}
        span.multi{display:inline-flex}
        span.multi a.cell{flex:1;width:auto;margin:0 1px 0 0}
        a.cell{border-radius:4px;color:#fff;text-align:center;line-height:22px;text-decoration:none;font-weight:700;
        position:relative;cursor:pointer}
        a.cell.running{box-shadow:inset 0 0 0 3px #1d232b}
        a.cell:hover,a.cell.selected{outline:3px solid #1d232b;outline-offset:1px}
        a.cell.new::after{content:"";position:absolute;top:-3px;right:-3px;width:8px;height:8px;border-radius:50%;background:#111;
        border:1px solid #fff}
        i.none{background:repeating-linear-gradient(45deg,#fff,#fff 3px,#eef0f2 3px,#eef0f2 6px)}
        .legend{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0 10px;font-size:12.5px;align-items:center}
        .legend .cell{width:16px;height:16px;display:inline-flex;font-size:10px}
        .bar{background:#eef0f2;height:10px;border-radius:5px;min-width:80px;position:relative;overflow:hidden}
        .bar>span{display:block;height:100%;background:var(--fail);border-radius:5px}
        .bar.time>span{background:#4a7fd6;position:absolute;top:0}
        .bar.time>span.failing{background:var(--fail)}
        .bar.live>span{background:var(--pass)}.bar.live.bad>span{background:var(--fail)}
        .job-panel{display:none}
        .job-panel.open{display:block;position:fixed;top:0;right:0;bottom:0;width:min(64rem,96vw);overflow:auto;background:#fff;
        box-shadow:-8px 0 24px rgba(0,0,0,.25);padding:16px 22px 60px;z-index:10}
        .job-panel .close{float:right;font-size:14px;text-decoration:none;border:1px solid var(--line);border-radius:6px;padding:2px 10px}
        .attempt{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0}
        .attempt.superseded{opacity:.65}
        tr.failing{background:#fff0f0}
        tr.failing td:first-child{box-shadow:inset 4px 0 0 var(--fail)}
        .interruptions{color:#7a5a00;font-size:12.5px}
        .failure{background:#fff0f0;border:1px solid #f3c4c4;border-radius:6px;padding:8px 10px}
        figure.artifact{display:inline-block;margin:6px 12px 6px 0;vertical-align:top}
        figure.artifact img{min-width:160px;max-width:420px;max-height:420px;border:1px solid var(--line);background:#fff}
        figure.artifact figcaption{font-size:12px;color:var(--muted)}
        tr.step:not(.failing)+tr.artifacts figure.artifact img{min-width:0;max-width:140px;max-height:220px}
        figure.artifact.failing-step img{max-width:520px;max-height:560px;border-color:var(--fail)}
        details.artifact{margin:6px 0}
        details.category{margin:8px 0}
        details.category summary{cursor:pointer}
        .note{color:var(--muted);font-style:italic}
        label.toggle{font-size:12.5px;color:var(--muted)}
        .heatmap.only-failing .hr[data-failing="0"]{display:none}
        tr[data-values]{cursor:pointer}
        tr[data-values]:hover,tr[data-values].active{background:#eef4ff}
        .heatmap.highlighting a.cell:not(.match){opacity:.18}
        .heatmap.highlighting a.cell.match{outline:2px solid #1d232b}
        \(drillStyle)
        \(stickyStyle)
        \(timelineStyle)
        \(parityStyle)
        """

    static let script = """
        (function () {
          'use strict';
          var LABELS = {passed: 'passed', failed: 'failed', flaky: 'flaky', timedOut: 'timed out',
                        quarantined: 'quarantined', notRun: 'not run'};
          function el(tag, attrs, kids) {
            var e = document.createElement(tag);
            for (var k in attrs) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }
            for (var i = 0; kids && i < kids.length; i++) {
              if (kids[i] === null || kids[i] === undefined) continue;
              e.appendChild(typeof kids[i] === 'string' ? document.createTextNode(kids[i]) : kids[i]);
            }
            return e;
          }
          function mark(img, ok) { img.setAttribute('data-loaded', ok ? 'true' : 'false'); }
          // A job's panel is built when it is opened, from its chunk file (data/jobs-NNN.js); the artifacts it shows
          // come from the blob packs the folder carries (blobs/pack-NNN.js). Both are scripts that call FM.chunk /
          // FM.pack with base64 of gzip (a page from file:// may load scripts, not fetch files); DecompressionStream
          // inflates what is opened.
          var run = null;
          function runData() {
            if (run === null) {
              var node = document.getElementById('run-data');
              try { run = node ? JSON.parse(node.textContent) : {}; } catch (e) { run = {}; }
              if (!run.axes) run.axes = [];
              if (!run.chunks) run.chunks = 1;
            }
            return run;
          }
          var chunks = {}, packs = {}, loads = {}, parsed = {}, urls = {};
          window.FM = {
            chunk: function (n, data) { chunks[n] = data; },
            pack: function (n, blobs) { packs[n] = blobs; },
            // The live view: forget a job's chunk and panel (its steps changed) and rebuild the panel if it is open.
            reopen: function (id) {
              var n = chunkOf(id), panel = document.getElementById('job-' + id);
              delete parsed[n];
              delete loads[numbered('data/jobs-', n)];
              if (panel) panel.parentNode.removeChild(panel);
              if (wantedJob === id) show(id);
            }
          };
          function inflate(bytes) {
            var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
            return new Response(stream).arrayBuffer();
          }
          function gunzip(base64) {
            var text = atob(base64), bytes = new Uint8Array(text.length);
            for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
            return inflate(bytes);
          }
          // A carried blob is Z85 (5 characters per 4 bytes) after one digit: the zero bytes padding the last group.
          var Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#', Z85V = {};
          for (var z = 0; z < 85; z++) Z85V[Z85.charCodeAt(z)] = z;
          function unz85(text) {
            var groups = (text.length - 1) / 5, bytes = new Uint8Array(groups * 4), p = 1;
            for (var g = 0; g < groups; g++) {
              var v = 0;
              for (var k = 0; k < 5; k++) v = v * 85 + Z85V[text.charCodeAt(p++)];
              bytes[4 * g] = v >>> 24; bytes[4 * g + 1] = (v >>> 16) & 255;
              bytes[4 * g + 2] = (v >>> 8) & 255; bytes[4 * g + 3] = v & 255;
            }
            return bytes.subarray(0, bytes.length - Number(text.charAt(0)));
          }
          function numbered(prefix, n) {
            var digits = String(n);
            while (digits.length < 3) digits = '0' + digits;
            return prefix + digits + '.js';
          }
          function load(src) {
            if (!loads[src]) {
              loads[src] = new Promise(function (resolve, reject) {
                var tag = document.createElement('script');
                tag.src = src;
                tag.onload = function () { resolve(); };
                tag.onerror = function () { reject(new Error('cannot load ' + src)); };
                document.body.appendChild(tag);
              });
            }
            return loads[src];
          }
          function chunkOf(id) {
            var bytes = new TextEncoder().encode(id), h = 0x811c9dc5;
            for (var i = 0; i < bytes.length; i++) { h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0; }
            return h % runData().chunks;
          }
          // The JSON of data file `prefix` n: its script loaded, its FM call's base64 (kept in `store`) inflated.
          function payload(prefix, n, store) {
            return load(numbered(prefix, n)).then(function () {
              if (store[n] === undefined) throw new Error(prefix + n + ' is missing');
              var data = store[n];
              delete store[n];
              return gunzip(data);
            }).then(function (buffer) { return JSON.parse(new TextDecoder().decode(buffer)); });
          }
          function jobData(id) {
            var n = chunkOf(id);
            if (!parsed[n]) parsed[n] = payload('data/jobs-', n, chunks);
            return parsed[n].then(function (jobs) {
              return Object.prototype.hasOwnProperty.call(jobs, id) ? jobs[id] : null;
            });
          }
          function blobURL(r) {
            var sha = r[4];
            if (!urls[sha]) {
              urls[sha] = load(numbered('blobs/pack-', r[5][0])).then(function () {
                var pack = packs[r[5][0]];
                if (!pack || typeof pack[r[5][1]] !== 'string') throw new Error('blob ' + sha + ' is missing');
                return inflate(unz85(pack[r[5][1]]));
              }).then(function (buffer) {
                return {url: URL.createObjectURL(new Blob([buffer], {type: r[2]})), bytes: buffer};
              });
            }
            return urls[sha];
          }
          function image(r, attrs) {
            var img = el('img', attrs);
            blobURL(r).then(function (b) {
              img.addEventListener('load', function () { mark(img, img.naturalWidth > 0); });
              img.addEventListener('error', function () { mark(img, false); });
              img.src = b.url;
              if (img.parentNode) img.parentNode.setAttribute('href', b.url);
            }, function () { mark(img, false); });
            return img;
          }
          function preview(r, pre, link) {
            blobURL(r).then(function (b) {
              var text = new TextDecoder().decode(b.bytes.slice(0, 65536));
              if (r[7] === 'json' && b.bytes.byteLength <= 65536) {
                try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { text = text; }
              } else if (b.bytes.byteLength > 65536) {
                text += '\\n…';
              }
              pre.textContent = text;
              link.setAttribute('href', b.url);
            }, function () { pre.textContent = 'unavailable'; });
          }
          function secs(us) {
            if (us === null || us === undefined) return '-';
            var v = us / 1e6;
            if (v < 1) return Math.round(v * 1000) + ' ms';
            if (v < 60) return v.toFixed(2) + ' s';
            var m = Math.floor(v / 60);
            return m + ' min ' + (v - m * 60).toFixed(0) + ' s';
          }
          function stamp(seconds) { return new Date(seconds * 1000).toISOString().replace(/\\.\\d+Z$/, 'Z'); }
          function failureText(step, steps, message) {
            var parts = [];
            if (step !== null && step !== undefined) {
              var key = null;
              for (var i = 0; i < steps.length; i++) { if (steps[i][0] === step) { key = steps[i][1]; break; } }
              parts.push('step ' + (step + 1) + (key !== null ? ' (' + key + ')' : ''));
            }
            if (message) parts.push(message);
            return parts.length ? parts.join(': ') : 'no message';
          }
          function artifactRow(refs, open) {
            var td = el('td', {colspan: '5'});
            for (var i = 0; i < refs.length; i++) {
              var r = refs[i], caption = r[1] + ' · ' + r[2] + ' · ' + r[3] + ' bytes';
              if (r[5] === null) {
                td.appendChild(el('div', {'class': 'note artifact', 'data-sha256': r[4]}, [caption + ' — '
                  + (r[6] === null ? 'not carried' : r[6]) + ' · blob ' + r[4].slice(0, 12) + '…']));
              } else if (r[7] === 'image') {
                td.appendChild(el('figure', {'class': 'artifact'}, [
                  el('a', {}, [image(r, {'data-artifact': r[1], alt: r[1]})]), el('figcaption', {}, [caption])]));
              } else {
                var pre = el('pre'), link = el('a', {}, ['open']);
                var box = el('details', {'class': 'artifact', 'data-kind': r[7]}, [el('summary', {}, [caption + ' · ', link]), pre]);
                if (open) box.setAttribute('open', '');
                preview(r, pre, link);
                td.appendChild(box);
              }
            }
            return el('tr', {'class': 'artifacts'}, [el('td'), td]);
          }
          function attemptBlock(a) {
            var outcome = a[2], steps = a[8], refs = a[9];
            var interrupted = 0;
            for (var i = 0; i < steps.length; i++) { if (steps[i][5] !== null && steps[i][5] !== undefined) interrupted++; }
            var box = el('div', {'class': 'attempt' + (a[5] ? ' superseded' : ''), 'data-attempt': String(a[0])}, [
              el('h3', {}, ['Attempt ' + a[0] + ': ' + (outcome || 'unfinished') + ' on worker ',
                el('span', {'class': 'mono'}, [a[1] === null ? '?' : a[1]]),
                ' · ' + secs(a[3]) + (a[5] ? ' · superseded' : '')])]);
            var facts = [];
            if (a[4] !== null) facts.push('started ' + stamp(runData().start + a[4]));
            facts.push(steps.length + ' step(s)');
            facts.push(interrupted + ' with interruptions handled');
            box.appendChild(el('p', {'class': 'muted'}, [facts.join(' · ')]));
            if (a[7] !== null && outcome !== 'passed') {
              box.appendChild(el('p', {'class': 'failure'}, [failureText(a[6], steps, a[7])]));
            }
            var total = 0;
            for (var t = 0; t < steps.length; t++) total += Math.max(0, steps[t][3]);
            var table = el('table', {'class': 'grid steps'}, [el('tr', {}, [el('th', {}, ['#']), el('th', {}, ['step']),
              el('th', {}, ['outcome']), el('th', {}, ['duration']), el('th', {}, ['timeline']), el('th', {}, ['message'])])]);
            var byStep = {}, shown = {};
            for (var r = 0; r < refs.length; r++) { (byStep[refs[r][0]] = byStep[refs[r][0]] || []).push(refs[r]); }
            var offset = 0;
            for (var k = 0; k < steps.length; k++) {
              var st = steps[k], so = st[2];
              var failing = st[0] === a[6] || so === 'failed' || so === 'errored' || so === 'timedOut';
              shown[st[0]] = true;
              var bar = el('span', {'class': failing ? 'failing' : ''});
              bar.style.left = (total > 0 ? offset / total * 100 : 0).toFixed(2) + '%';
              bar.style.width = (total > 0 ? Math.max(0.5, st[3] / total * 100) : 0).toFixed(2) + '%';
              offset += Math.max(0, st[3]);
              var message = el('td', {}, [st[4] !== null && st[4] !== undefined ? st[4] : null]);
              if (st[5] !== null && st[5] !== undefined) {
                message.appendChild(el('div', {'class': 'interruptions'}, ['interruptions handled: ' + st[5]]));
              }
              table.appendChild(el('tr', {'class': 'step' + (failing ? ' failing' : ''), 'data-step': String(st[0])}, [
                el('td', {}, [String(st[0] + 1)]), el('td', {'class': 'mono'}, [st[1]]),
                el('td', {}, [so + (failing ? ' ◀' : '')]), el('td', {}, [secs(st[3])]),
                el('td', {}, [el('div', {'class': 'bar time'}, [bar])]), message]));
              if (byStep[st[0]]) table.appendChild(artifactRow(byStep[st[0]], failing));
            }
            Object.keys(byStep).map(Number).sort(function (x, y) { return x - y; }).forEach(function (index) {
              if (shown[index]) return;
              table.appendChild(el('tr', {'class': 'step', 'data-step': String(index)}, [el('td', {}, [String(index + 1)]),
                el('td', {colspan: '5', 'class': 'muted'}, ['(no step record)'])]));
              table.appendChild(artifactRow(byStep[index], index === a[6]));
            });
            box.appendChild(table);
            return box;
          }
          function build(id, j) {
            var status = j[3], attempts = j[8], axes = runData().axes;
            var panel = el('section', {'class': 'job-panel', id: 'job-' + id, 'data-job-panel': id}, [
              el('a', {'class': 'close', href: '#'}, ['close ✕']),
              el('h2', {}, [j[1] + ' ', el('span', {'class': 'chip s-' + status}, [LABELS[status] || status])]),
              el('p', {'class': 'muted'}, ['scenario ', el('span', {'class': 'mono'}, [j[0]]), ' · registry ',
                el('span', {'class': 'mono'}, [j[2]]), ' · job ', el('span', {'class': 'mono'}, [id]),
                ' · ' + attempts.length + ' attempt(s) · ' + secs(j[4])])]);
            var heads = el('tr'), values = el('tr');
            for (var i = 0; i < axes.length; i++) {
              if (j[5][i] === null || j[5][i] === undefined) continue;
              heads.appendChild(el('th', {}, [axes[i]]));
              values.appendChild(el('td', {'class': 'mono'}, [j[5][i]]));
            }
            panel.appendChild(el('table', {'class': 'grid'}, [heads, values]));
            var deciding = null;
            for (var n = attempts.length - 1; n >= 0 && deciding === null; n--) {
              if (!attempts[n][5] && attempts[n][2] !== null) deciding = attempts[n];
            }
            if (deciding === null && attempts.length) deciding = attempts[attempts.length - 1];
            var problem = status !== 'passed' && status !== 'flaky';
            if (problem && (j[6] !== null || j[7] !== null)) {
              panel.appendChild(el('p', {'class': 'failure', 'data-failure-step': j[6] === null ? '' : String(j[6])}, [
                el('strong', {}, [failureText(j[6], deciding ? deciding[8] : [], j[7])])]));
            }
            var failingStep = deciding ? (deciding[6] !== null ? deciding[6] : j[6]) : null;
            if (problem && failingStep !== null) {
              var figures = el('div', {'class': 'failing-step-artifacts'});
              deciding[9].forEach(function (r) {
                if (r[0] !== failingStep || r[5] === null || r[7] !== 'image') return;
                figures.appendChild(el('figure', {'class': 'artifact failing-step'}, [el('a', {}, [
                  image(r, {'data-artifact': r[1], 'data-failing-step': String(failingStep), alt: r[1]})]),
                  el('figcaption', {}, [r[1] + ' at the failing step ' + (failingStep + 1) + ', attempt ' + deciding[0]])]));
              });
              if (figures.firstChild) panel.appendChild(figures);
            }
            reviewViews(panel, id, j);
            if (!attempts.length) panel.appendChild(el('p', {'class': 'note'}, ['No attempt was started.']));
            for (var m = 0; m < attempts.length; m++) panel.appendChild(attemptBlock(attempts[m]));
            document.getElementById('panels').appendChild(panel);
            return panel;
          }
          function cellOf(id) {
            var cells = document.querySelectorAll('.cell[data-job]');
            for (var k = 0; k < cells.length; k++) { if (cells[k].getAttribute('data-job') === id) return cells[k]; }
            return null;
          }
          var wantedJob = null;
          function show(id) {
            wantedJob = id;
            var open = document.querySelectorAll('.job-panel.open');
            for (var i = 0; i < open.length; i++) open[i].classList.remove('open');
            var selected = document.querySelectorAll('.cell.selected');
            for (var j = 0; j < selected.length; j++) selected[j].classList.remove('selected');
            document.body.removeAttribute('data-open-job');
            if (!id) return;
            var cell = cellOf(id);
            if (cell) cell.classList.add('selected');
            var existing = document.getElementById('job-' + id);
            var ready = existing ? Promise.resolve(existing)
              : jobData(id).then(function (j) { return j === null ? null : (document.getElementById('job-' + id) || build(id, j)); });
            ready.then(function (panel) {
              if (!panel || wantedJob !== id) return;
              panel.classList.add('open');
              document.body.setAttribute('data-open-job', id);
            }, function () { document.body.setAttribute('data-open-job-error', id); });
          }
          function fromHash() {
            var match = /^#job=(.+)$/.exec(location.hash);
            var id = null;
            if (match) { try { id = decodeURIComponent(match[1]); } catch (e) { id = null; } }
            show(id);
            var cells = /^#cells=([0-9]+[.][0-9]+)$/.exec(location.hash);
            if (cells) drill(cells[1]);
          }
          window.addEventListener('hashchange', fromHash);
          document.addEventListener('keydown', function (e) {
            if (e.key === 'Escape' && location.hash) { location.hash = ''; }
          });
          var toggle = document.getElementById('only-failing');
          if (toggle) {
            toggle.addEventListener('change', function () {
              var map = document.getElementById('heatmap-table');
              if (map) map.classList.toggle('only-failing', toggle.checked);
            });
          }
          // A cell's configuration comes from the header above its column (every header line is one axis): a
          // row's first element is its title, then one element per column (a cell, a hatched gap, or a box of cells).
          var columns = null;
          function headerColumns() {
            if (columns !== null) return columns;
            columns = [];
            var lines = document.querySelectorAll('#heatmap-table .hl');
            for (var r = 0; r < lines.length; r++) {
              var parts = lines[r].children, labels = [];
              for (var c = 1; c < parts.length; c++) {
                var span = Number(parts[c].getAttribute('data-span')) || 1;
                for (var n = 0; n < span; n++) labels.push(parts[c].textContent);
              }
              columns.push({axis: parts.length ? parts[0].textContent : '', labels: labels});
            }
            return columns;
          }
          function configAt(row, column) {
            var values = {}, levels = headerColumns();
            for (var i = 0; i < levels.length; i++) {
              var label = levels[i].labels[column];
              if (label !== undefined && label !== '–') values[levels[i].axis] = label;
            }
            values.scenario = row.getAttribute('data-scenario');
            return values;
          }
          function configOf(cell) {
            var box = cell.parentElement && cell.parentElement.classList.contains('multi') ? cell.parentElement : cell;
            var row = box.closest('.hr[data-scenario]');
            if (!row) return {};
            return configAt(row, Array.prototype.indexOf.call(row.children, box) - 1);
          }
          var activeRow = null;
          function highlight(row) {
            var map = document.getElementById('heatmap-table');
            var cells = document.querySelectorAll('a.cell[data-job]');
            if (activeRow) activeRow.classList.remove('active');
            if (!map || row === activeRow) {
              activeRow = null;
              if (map) map.classList.remove('highlighting');
              for (var i = 0; i < cells.length; i++) cells[i].classList.remove('match');
              return;
            }
            var wanted;
            try { wanted = JSON.parse(row.getAttribute('data-values')); } catch (e) { return; }
            activeRow = row;
            row.classList.add('active');
            map.classList.add('highlighting');
            var rows = map.querySelectorAll('.hr'), aggregated = document.getElementById('aggregated') !== null;
            for (var r = 0; r < rows.length; r++) {
              var kids = rows[r].children;
              for (var c = 1; c < kids.length; c++) {
                var config = configAt(rows[r], c - 1);
                // An aggregated map shows the first axes only: a group matches when those agree (its drill-down
                // shows which of its jobs have the other values).
                // Several values of one axis are a set (`network ∈ {edge, offline}`): one of them must match.
                var match = wanted.every(function (pair) {
                  return wanted.some(function (q) { return q[0] === pair[0] && config[q[0]] === q[1]; })
                    || (aggregated && !(pair[0] in config));
                });
                var inside = kids[c].matches('a.cell') ? [kids[c]] : kids[c].querySelectorAll('a.cell');
                for (var k = 0; k < inside.length; k++) inside[k].classList.toggle('match', match);
              }
            }
          }
          document.addEventListener('click', function (e) {
            var cell = e.target.closest ? e.target.closest('a.cell[data-job]') : null;
            if (cell && !cell.hasAttribute('href')) {
              e.preventDefault();
              location.hash = 'job=' + encodeURIComponent(cell.getAttribute('data-job'));
              return;
            }
            var row = e.target.closest ? e.target.closest('tr[data-values]') : null;
            if (row) highlight(row);
          });
        \(drillScript)
        \(cellInfoScript)
        \(timelineScript)
        \(parityScript)
          fromHash();
          // Ready once the heat map and the failures by axis (parsed above this script) have been laid out for a
          // frame; data-ready-ms is the time since navigation started.
          requestAnimationFrame(function () {
            document.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now())));
            document.documentElement.setAttribute('data-ready', 'true');
          });
        })();
        """
}
