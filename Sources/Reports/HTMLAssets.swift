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
        table.heatmap th,table.heatmap td{padding:1px;text-align:center;font-size:11.5px}
        table.heatmap thead th{font-weight:500;color:var(--muted);border-bottom:1px solid var(--line);white-space:nowrap;padding:2px 4px}
        table.heatmap thead th.axis{text-align:right;font-weight:700;color:var(--ink)}
        table.heatmap tbody th{text-align:right;font-weight:500;padding-right:8px;white-space:nowrap;max-width:28em;overflow:hidden;
        text-overflow:ellipsis}
        a.cell{display:flex;align-items:center;justify-content:center;width:22px;height:22px;border-radius:4px;color:#fff;
        text-decoration:none;font-weight:700;position:relative}
        a.cell:hover,a.cell.selected{outline:3px solid #1d232b;outline-offset:1px}
        a.cell.new::after{content:"";position:absolute;top:-3px;right:-3px;width:8px;height:8px;border-radius:50%;background:#111;
        border:1px solid #fff}
        td.none{background:repeating-linear-gradient(45deg,#fff,#fff 3px,#eef0f2 3px,#eef0f2 6px)}
        .legend{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0 10px;font-size:12.5px;align-items:center}
        .legend .cell{width:16px;height:16px;display:inline-flex;font-size:10px}
        .bar{background:#eef0f2;height:10px;border-radius:5px;min-width:80px;position:relative;overflow:hidden}
        .bar>span{display:block;height:100%;background:var(--fail);border-radius:5px}
        .bar.time>span{background:#4a7fd6;position:absolute;top:0}
        .bar.time>span.failing{background:var(--fail)}
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
        table.heatmap.only-failing tbody tr[data-failing="0"]{display:none}
        tr[data-values]{cursor:pointer}
        tr[data-values]:hover,tr[data-values].active{background:#eef4ff}
        table.heatmap.highlighting a.cell:not(.match){opacity:.18}
        table.heatmap.highlighting a.cell.match{outline:2px solid #1d232b}
        """

    static let script = """
        (function () {
          'use strict';
          function show(id) {
            var open = document.querySelectorAll('.job-panel.open');
            for (var i = 0; i < open.length; i++) open[i].classList.remove('open');
            var selected = document.querySelectorAll('.cell.selected');
            for (var j = 0; j < selected.length; j++) selected[j].classList.remove('selected');
            document.body.removeAttribute('data-open-job');
            if (!id) return;
            var panel = document.getElementById('job-' + id);
            if (!panel) return;
            panel.classList.add('open');
            document.body.setAttribute('data-open-job', id);
            var cells = document.querySelectorAll('.cell[data-job]');
            for (var k = 0; k < cells.length; k++) {
              if (cells[k].getAttribute('data-job') === id) cells[k].classList.add('selected');
            }
          }
          function fromHash() {
            var match = /^#job=(.+)$/.exec(location.hash);
            var id = null;
            if (match) { try { id = decodeURIComponent(match[1]); } catch (e) { id = null; } }
            show(id);
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
          function configOf(cell) {
            var values = {};
            var text = cell.getAttribute('data-config') || '';
            var parts = text ? text.split(',') : [];
            for (var i = 0; i < parts.length; i++) {
              var eq = parts[i].indexOf('=');
              if (eq > 0) values[parts[i].slice(0, eq)] = parts[i].slice(eq + 1);
            }
            var row = cell.closest('tr[data-scenario]');
            if (row) values.scenario = row.getAttribute('data-scenario');
            return values;
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
            for (var j = 0; j < cells.length; j++) {
              var config = configOf(cells[j]);
              var match = wanted.every(function (pair) { return config[pair[0]] === pair[1]; });
              cells[j].classList.toggle('match', match);
            }
          }
          document.addEventListener('click', function (e) {
            var row = e.target.closest ? e.target.closest('tr[data-values]') : null;
            if (row) highlight(row);
          });
          function mark(img, ok) { img.setAttribute('data-loaded', ok ? 'true' : 'false'); }
          var images = document.querySelectorAll('img[data-artifact]');
          for (var n = 0; n < images.length; n++) {
            (function (img) {
              img.addEventListener('load', function () { mark(img, img.naturalWidth > 0); });
              img.addEventListener('error', function () { mark(img, false); });
              if (img.complete) mark(img, img.naturalWidth > 0);
            })(images[n]);
          }
          fromHash();
          document.documentElement.setAttribute('data-ready', 'true');
        })();
        """

    /// `'sha256-…'` of the script, for the page's Content-Security-Policy: only this script may run.
    static var scriptHashSource: String {
        "'sha256-" + Data(SHA256.hash(Array(script.utf8))).base64EncodedString() + "'"
    }

    /// No network at all: images from the report folder (or data URLs), the inline style, and the one script.
    static var contentSecurityPolicy: String {
        "default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src \(scriptHashSource);"
            + " base-uri 'none'; form-action 'none'"
    }
}
