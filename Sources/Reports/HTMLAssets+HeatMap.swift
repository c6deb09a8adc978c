/// The aggregated heat map's style and script (``HeatMapGroups``), part of ``HTMLAssets/style`` and
/// ``HTMLAssets/script`` (one script, one hash in the page's Content-Security-Policy).
extension HTMLAssets {
    static let drillStyle = """
        a.cell.agg{font-size:11px}
        .drill{margin-top:12px}
        .drill h3{margin:8px 0}
        .drill .hr{content-visibility:visible}
        """

    /// Inside the page script's function: uses its `el`, `payload`, `configOf` and `LABELS`.
    static let drillScript = """
          // The aggregated heat map (a run too large for a cell per job): a group's cell opens its jobs below the
          // map, one cell each, from its drill-down file (data/cells-NNN.js: FM.cells with base64 of gzip).
          var SYMBOLS = {passed: '✓', failed: '✗', flaky: '≈', timedOut: 'T', quarantined: '⊘', notRun: '·'};
          var cellData = {}, cellParsed = {};
          window.FM.cells = function (n, data) { cellData[n] = data; };
          function drillFile(n) {
            if (!cellParsed[n]) cellParsed[n] = payload('data/cells-', n, cellData);
            return cellParsed[n];
          }
          function groupTitle(cell) {
            var row = cell.closest('.hr[data-scenario]'), config = configOf(cell), parts = [];
            for (var k in config) { if (k !== 'scenario') parts.push(k + '=' + config[k]); }
            var title = row && row.firstElementChild ? row.firstElementChild.firstChild.textContent.trim() : '';
            return {scenario: title, values: parts};
          }
          var drilled = null;
          function drill(key) {
            var box = document.getElementById('drill');
            var cell = document.querySelector('a.cell.agg[data-cells="' + key + '"]');
            if (!box || !cell || drilled === key) return;
            drilled = key;
            var previous = document.querySelectorAll('a.cell.agg.selected');
            for (var i = 0; i < previous.length; i++) previous[i].classList.remove('selected');
            cell.classList.add('selected');
            drillFile(Number(cell.getAttribute('data-file'))).then(function (file) {
              if (drilled !== key) return;
              var group = file.groups[key];
              if (!group) throw new Error('group ' + key + ' is missing');
              var named = groupTitle(cell);
              while (box.firstChild) box.removeChild(box.firstChild);
              box.appendChild(el('h3', {}, [named.scenario + ' · ' + (named.values.join(',') || 'every column') + ' · '
                + group.j.length + ' job(s)']));
              var map = el('div', {'class': 'heatmap'}, []);
              file.levels.forEach(function (axis, level) {
                var line = el('div', {'class': 'hl'}, [el('span', {'class': 'axis'}, [axis])]);
                group.c.forEach(function (labels) {
                  line.appendChild(el('span', {'class': 'h', 'data-span': '1', style: 'width:24px'}, [labels[level]]));
                });
                map.appendChild(line);
              });
              var line = el('div', {'class': 'hr'}, [el('span', {'class': 'rh'}, [named.scenario])]);
              var boxes = group.c.map(function () { return []; });
              group.j.forEach(function (job) {
                var values = named.values.concat(file.levels.map(function (axis, level) {
                  return axis + '=' + group.c[job[0]][level];
                }).filter(function (part) { return !/=–$/.test(part); }));
                boxes[job[0]].push(el('a', {'class': 'cell s-' + job[2], 'data-job': job[1], 'data-status': job[2],
                  href: '#job=' + encodeURIComponent(job[1]),
                  title: named.scenario + ' · ' + values.join(',') + ' · ' + (LABELS[job[2]] || job[2])}, [SYMBOLS[job[2]] || '']));
              });
              boxes.forEach(function (cells) {
                line.appendChild(cells.length === 1 ? cells[0] : el('span', {'class': 'multi'}, cells));
              });
              map.appendChild(line);
              box.appendChild(map);
              box.setAttribute('data-drilled', key);
            }, function () { box.setAttribute('data-drill-error', key); });
          }

        """

    /// The map's header lines and scenario names stay in view while it scrolls (inside its own scroll box, so the
    /// page scrolls past it); printing or a full-page capture draws every row and the whole map.
    static let stickyStyle = """
        #heatmap .scroll{max-height:80vh}
        #heatmap-table .hl{position:sticky;z-index:2;background:#fff}
        #heatmap-table .axis,#heatmap-table .rh{position:sticky;left:0;z-index:1;background:#fff}
        #heatmap-table .hl .axis{z-index:3}
        #cell-info{min-height:1.45em;margin:0 0 6px;font-size:12.5px}
        a.cell:focus-visible{outline:3px solid #1d5fd6;outline-offset:1px}
        @media print{.heatmap .hr{content-visibility:visible}#heatmap .scroll{max-height:none;overflow:visible}
        #heatmap-table .hl,#heatmap-table .axis,#heatmap-table .rh{position:static}}
        """

    /// Inside the page script's function, after ``drillScript``: every cell's description (scenario ·
    /// configuration · outcome, or a group's counts) as its tooltip and in the line above the map, for the pointer
    /// and the keyboard focus alike; the map is navigated with the arrow keys (Home/End along a row, Enter opens).
    static let cellInfoScript = """
          function describe(cell) {
            if (cell.closest('#drill')) return cell.getAttribute('title') || '';
            if (cell.classList.contains('agg')) {
              var group = groupTitle(cell), bad = Number(cell.getAttribute('data-bad'));
              return group.scenario + ' · ' + (group.values.join(',') || 'every column') + ' · '
                + cell.getAttribute('data-n') + ' job(s)' + (bad ? ', ' + bad + ' did not pass' : ', all passed');
            }
            var row = cell.closest('.hr[data-scenario]'), config = configOf(cell), parts = [];
            for (var key in config) { if (key !== 'scenario') parts.push(key + '=' + config[key]); }
            var title = row && row.firstElementChild ? row.firstElementChild.firstChild.textContent.trim() : '';
            var status = cell.getAttribute('data-status') || 'passed';
            return title + ' · ' + (parts.join(',') || 'default') + ' · ' + (LABELS[status] || status);
          }
          function inform(cell) {
            var text = describe(cell), info = document.getElementById('cell-info');
            cell.setAttribute('title', text);
            cell.setAttribute('aria-label', text);
            if (info) info.textContent = text;
          }
          document.addEventListener('mouseover', function (e) {
            var cell = e.target.closest ? e.target.closest('.heatmap a.cell') : null;
            if (cell) inform(cell);
          });
          document.addEventListener('focusin', function (e) {
            var cell = e.target.closest ? e.target.closest('.heatmap a.cell') : null;
            if (cell) inform(cell);
          });
          // Arrow keys: the next cell left or right in the row (into a box of several cells one by one), or the
          // same column in the nearest shown row above or below that has a cell there.
          function firstCell(item) { return item ? (item.matches('a.cell') ? item : item.querySelector('a.cell')) : null; }
          function sideways(cell, key) {
            var box = cell.parentElement.classList.contains('multi') ? cell.parentElement : cell;
            if (box !== cell && (key === 'ArrowLeft' || key === 'ArrowRight')) {
              var inner = key === 'ArrowLeft' ? cell.previousElementSibling : cell.nextElementSibling;
              if (inner) return inner;
            }
            var kids = box.parentElement.children, at = Array.prototype.indexOf.call(kids, box);
            var back = key === 'ArrowLeft' || key === 'End', c = key === 'Home' ? 1 : key === 'End' ? kids.length - 1
              : at + (back ? -1 : 1);
            for (; c >= 1 && c < kids.length; c += back ? -1 : 1) {
              var found = firstCell(kids[c]);
              if (found) return found;
            }
            return null;
          }
          function vertical(cell, key) {
            var box = cell.parentElement.classList.contains('multi') ? cell.parentElement : cell, row = box.parentElement;
            var at = Array.prototype.indexOf.call(row.children, box);
            for (var r = row; (r = key === 'ArrowUp' ? r.previousElementSibling : r.nextElementSibling);) {
              if (!r.classList.contains('hr') || r.getClientRects().length === 0) continue;
              var found = firstCell(r.children[at]);
              if (found) return found;
            }
            return null;
          }
          document.addEventListener('keydown', function (e) {
            var cell = e.target.closest ? e.target.closest('#heatmap-table a.cell') : null;
            if (!cell) return;
            if (e.key === 'Enter' && !cell.hasAttribute('href')) {
              e.preventDefault();
              location.hash = 'job=' + encodeURIComponent(cell.getAttribute('data-job'));
              return;
            }
            var next = e.key === 'ArrowUp' || e.key === 'ArrowDown' ? vertical(cell, e.key)
              : ['ArrowLeft', 'ArrowRight', 'Home', 'End'].indexOf(e.key) >= 0 ? sideways(cell, e.key) : null;
            if (!next) return;
            e.preventDefault();
            cell.setAttribute('tabindex', '-1');
            next.setAttribute('tabindex', '0');
            next.focus();
          });
          // The map's first cell is a tab stop even when it has no link (a passed job).
          var first = document.querySelector('#heatmap-table .hr a.cell');
          if (first) first.setAttribute('tabindex', '0');

        """
}

