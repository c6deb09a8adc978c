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
          // A group's tooltip: where it is, how many jobs, how many did not pass.
          document.addEventListener('mouseover', function (e) {
            var cell = e.target.closest ? e.target.closest('a.cell.agg') : null;
            if (!cell || cell.hasAttribute('title')) return;
            var named = groupTitle(cell), bad = Number(cell.getAttribute('data-bad'));
            cell.setAttribute('title', named.scenario + ' · ' + (named.values.join(',') || 'every column') + ' · '
              + cell.getAttribute('data-n') + ' job(s)' + (bad ? ', ' + bad + ' did not pass' : ', all passed'));
          });

        """
}
