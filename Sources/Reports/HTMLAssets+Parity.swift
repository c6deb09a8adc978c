/// The parity view's inline evidence, part of ``HTMLAssets/style`` and ``HTMLAssets/script``: under each disagreement,
/// the step where the renderers part, each registry's picture of it side by side (the Catalog's wireframe beside the
/// web registry's screenshot), with its verdict and failure message. The pictures come from the jobs' chunks and the
/// carried blobs (the report carries the passing side of a disagreement too), loaded when the row's evidence is open:
/// the first disagreements' are, the others on a click.
extension HTMLAssets {
    static let parityStyle = """
        .parity-evidence summary{cursor:pointer;font-size:12.5px;color:var(--muted)}
        .pe-pictures{display:flex;gap:12px;flex-wrap:wrap;padding:6px 0}
        .pe-pictures figure{margin:0;border:2px solid var(--line);border-radius:6px;padding:4px;max-width:420px}
        .pe-pictures figure.failing{border-color:var(--fail)}
        .pe-pictures figure img{max-height:360px;max-width:408px;display:block}
        .pe-pictures figcaption{font-size:12px;line-height:1.35;margin-top:4px;max-width:408px}
        .pe-pictures .tl-none{height:120px;width:180px;display:flex;align-items:center;justify-content:center;
        text-align:center;color:var(--muted);font-size:12px;
        background:repeating-linear-gradient(45deg,#fff,#fff 3px,#eef0f2 3px,#eef0f2 6px)}
        """

    /// Inside the page script's function, after the timeline's (uses `el`, `jobData`, `decidingAttempt`,
    /// `stepPictures`, `picture`, `LABELS`).
    static let parityScript = #"""
          // The parity rows' evidence: each registry's picture of the step where the renderers part (HTMLAssets+Parity).
          function parityEvidence(box) {
            if (box.getAttribute('data-filled')) return;
            box.setAttribute('data-filled', 'loading');
            var step = Number(box.getAttribute('data-step')), pictures = box.querySelector('.pe-pictures');
            var sides = JSON.parse(box.getAttribute('data-sides'));
            Promise.all(sides.map(function (side) {
              return jobData(side[1]).then(function (j) { return {side: side, j: j}; },
                function () { return {side: side, j: null}; });
            })).then(function (all) {
              all.forEach(function (o) {
                var registry = o.side[0], id = o.side[1], attempt = o.j ? decidingAttempt(o.j[8]) : null;
                var shot = attempt ? stepPictures(attempt)[step] : null;
                var status = o.j ? o.j[3] : 'notRun';
                var failing = status === 'failed' || status === 'timedOut';
                var reached = attempt ? attempt[8].some(function (s) { return s[0] === step; }) : false;
                var text = attempt && attempt[7] ? attempt[7] : (o.j ? o.j[7] : null), message = failing && text ? String(text).slice(0, 200) : '';
                pictures.appendChild(el('figure', {'class': failing ? 'failing' : '', 'data-registry': registry,
                                                   'data-side-job': id}, [
                  shot ? picture(shot, {'data-picture': shot[1], alt: registry + ': step ' + (step + 1)})
                    : el('div', {'class': 'tl-none'}, [!o.j ? 'job unavailable' : reached ? 'no picture kept' : 'step not reached']),
                  el('figcaption', {}, [el('strong', {}, [registry]), ' ',
                    el('span', {'class': 'chip s-' + status}, [LABELS[status] || status]), ' ',
                    el('a', {href: '#job=' + encodeURIComponent(id)}, [shot ? shot[1] : 'open the job']),
                    message ? el('div', {'class': 'muted'}, [message]) : null])]));
              });
              box.setAttribute('data-filled', 'true');
            });
          }
          Array.prototype.forEach.call(document.querySelectorAll('details.parity-evidence'), function (box) {
            if (box.open) parityEvidence(box);
            box.addEventListener('toggle', function () { if (box.open) parityEvidence(box); });
          });
        """#
}
