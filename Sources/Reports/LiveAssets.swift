/// What the live view adds to the report page: a section for progress and workers, and `live.js`, the event-stream
/// client that updates the page's own elements (cells, count chips, the failures by axis, open panels) — the
/// static page's data model, not a second UI. Strings reach the page as text (`textContent`), or, for the pivot,
/// as the HTML the server escaped exactly like the static page's.
enum LiveAssets {
    static let section = """
        <section class="block" id="live"><h2>Live</h2>
        <p id="live-progress" class="muted">connecting…</p>
        <div class="bar live" id="live-bar"><span style="width:0%"></span></div>
        <h3>Workers</h3><ul id="live-workers" class="mono"></ul>
        </section>

        """

    static let script = """
        (function () {
          'use strict';
          var SYMBOLS = {passed: '', failed: '✗', flaky: '≈', timedOut: 'T', quarantined: '⊘', notRun: '·'};
          var LABELS = {passed: 'passed', failed: 'failed', flaky: 'flaky', timedOut: 'timed out',
                        quarantined: 'quarantined', notRun: 'not run'};
          var root = document.documentElement, byID = null, updates = 0, running = [], lastReopen = 0;
          function cells() {
            if (byID === null) {
              byID = {};
              var all = document.querySelectorAll('a.cell[data-job]');
              for (var i = 0; i < all.length; i++) byID[all[i].getAttribute('data-job')] = all[i];
            }
            return byID;
          }
          function setCell(id, status) {
            var cell = cells()[id];
            if (!cell || !LABELS.hasOwnProperty(status)) return;
            var selected = cell.classList.contains('selected');
            cell.className = 'cell s-' + status + (selected ? ' selected' : '');
            cell.setAttribute('data-status', status);
            cell.removeAttribute('title');
            cell.textContent = SYMBOLS[status];
            if (status === 'passed') { cell.removeAttribute('href'); } else {
              cell.setAttribute('href', '#job=' + encodeURIComponent(id));
              var row = cell.closest('.hr');
              if (row && status !== 'notRun') row.setAttribute('data-failing', '1');
            }
            updates++;
          }
          function onCells(e) {
            var list = JSON.parse(e.data), open = document.body.getAttribute('data-open-job');
            for (var i = 0; i < list.length; i++) {
              setCell(list[i][0], list[i][1]);
              if (list[i][0] === open) FM.reopen(open);
            }
            root.setAttribute('data-live-updates', String(updates));
          }
          function onProgress(e) {
            var p = JSON.parse(e.data), counts = p.counts || {};
            document.getElementById('live-progress').textContent = p.done + ' of ' + p.total + ' jobs final · ' +
              p.inFlight + ' in flight · ' + p.workers + ' worker(s) · ' + p.attempts + ' attempt(s)';
            var bar = document.querySelector('#live-bar span');
            if (bar) bar.style.width = (p.total ? Math.floor(100 * p.done / p.total) : 100) + '%';
            // Red only once something did not pass; until then the bar is progress, not trouble.
            var bad = (counts.failed || 0) + (counts.timedOut || 0) + (counts.quarantined || 0);
            document.getElementById('live-bar').classList.toggle('bad', bad > 0);
            progress = p;
            runBlock();
            for (var status in LABELS) {
              var chip = document.querySelector('[data-count="' + status + '"]');
              if (chip) chip.textContent = LABELS[status] + ': ' + (counts[status] || 0);
            }
            root.setAttribute('data-live-done', String(p.done));
          }
          // The Run block's figures while the run goes: its duration so far (every second), jobs/s, attempts, workers.
          var runData = {}, progress = null;
          try { runData = JSON.parse(document.getElementById('run-data').textContent); } catch (e) {}
          function seconds(value) {
            if (value < 60) return value.toFixed(2) + ' s';
            var minutes = Math.floor(value / 60);
            return minutes + ' min ' + (value - minutes * 60).toFixed(0) + ' s';
          }
          function setText(id, text) { var node = document.getElementById(id); if (node) node.textContent = text; }
          function runBlock() {
            if (typeof runData.start !== 'number') return;
            var elapsed = Math.max(0, Date.now() / 1000 - runData.start);
            setText('run-finished', 'running');
            setText('run-duration', seconds(elapsed));
            if (!progress) return;
            setText('run-rate', elapsed > 0 ? (progress.done / elapsed).toFixed(2) : '-');
            setText('run-attempts', progress.attempts + ' (' + (progress.retries || 0) + ' retries)');
            setText('run-workers', progress.workers + ' connected');
            root.setAttribute('data-live-block', String(progress.done));
          }
          setInterval(runBlock, 1000);
          function onWorkers(e) {
            var list = JSON.parse(e.data), ul = document.getElementById('live-workers'), now = Date.now();
            var open = document.body.getAttribute('data-open-job'), openRunning = false;
            for (var r = 0; r < running.length; r++) running[r].classList.remove('running');
            running = [];
            while (ul.firstChild) ul.removeChild(ul.firstChild);
            for (var i = 0; i < list.length; i++) {
              var li = document.createElement('li'), ids = list[i][2];
              li.textContent = list[i][0] + ' · ' + list[i][1] + ' job(s)' + (ids.length ? ': ' + ids.join(' ') : '');
              ul.appendChild(li);
              for (var k = 0; k < ids.length; k++) {
                var cell = cells()[ids[k]];
                if (cell) { cell.classList.add('running'); running.push(cell); }
                if (ids[k] === open) openRunning = true;
              }
            }
            // An open panel of a job still running shows its steps as they are journaled (once a second).
            if (openRunning && now - lastReopen > 1000) { lastReopen = now; FM.reopen(open); }
          }
          function onPivot(e) {
            var old = document.getElementById('pivot'), template = document.createElement('template');
            template.innerHTML = JSON.parse(e.data);
            var fresh = template.content.querySelector('#pivot');
            if (old && fresh) old.parentNode.replaceChild(fresh, old);
            var headline = document.getElementById('headline'), line = fresh && fresh.querySelector('.headline');
            if (headline && line) { headline.textContent = line.textContent; headline.className = line.className; }
          }
          var source = new EventSource('events');
          source.addEventListener('open', function () { root.setAttribute('data-live', 'open'); });
          source.addEventListener('cells', onCells);
          source.addEventListener('progress', onProgress);
          source.addEventListener('workers', onWorkers);
          source.addEventListener('pivot', onPivot);
          // The run is over and its reports are written: the same URL now serves the static report.
          source.addEventListener('final', function () {
            source.close();
            root.setAttribute('data-live', 'final');
            location.reload();
          });
        })();
        """
}
