/// The job panel's timeline, element overlay and configuration strip, part of ``HTMLAssets/style`` and
/// ``HTMLAssets/script`` (one script, one hash in the page's Content-Security-Policy).
///
/// - The timeline: each step's picture (the web registry's `screenshot.png`, the Catalog's `wireframe.png`) as a
///   filmstrip under a large view, with one dot per step; the failing step is marked. Arrow keys, Home/End, a click
///   on a dot or a frame, or dragging across the dots move between steps; F (or the button) jumps to the failure.
/// - The overlay: where the step carries the elements on screen (`elements.json` from the web registry,
///   `surface.json` from the Catalog), each element's box is drawn over the picture, the step's target outlined, and
///   the elements are listed with their identifiers and boxes; a target that is not on screen gets "did you mean"
///   from those identifiers.
/// - The configuration strip: the same step of the same scenario in every configuration of the run (from the heat
///   map's row), following the timeline's step.
/// - The recording: screencast frames (`screencast-NNNN.jpg` artifacts, web attempts that did not pass) played with
///   the steps as dots on its progress line.
extension HTMLAssets {
    static let timelineStyle = """
        .timeline{border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:10px 0;outline:none}
        .timeline:focus-visible{box-shadow:0 0 0 3px #8fb4ff}
        .timeline .tl-head{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin-bottom:6px}
        .timeline .tl-caption{font-weight:600}
        .timeline button{font:inherit;font-size:12.5px;border:1px solid var(--line);background:#fff;border-radius:6px;
        padding:2px 10px;cursor:pointer}
        .tl-stage{position:relative;display:inline-block;max-width:100%;line-height:0;border:1px solid var(--line);
        background:#fff}
        .tl-stage img{max-width:100%;max-height:560px;display:block}
        .tl-stage .tl-none{line-height:1.4;padding:40px 60px;color:var(--muted)}
        .tl-box{position:absolute;border:1px solid rgba(74,127,214,.75);background:rgba(74,127,214,.06);line-height:1.2}
        .tl-box.target{border:3px solid var(--fail);background:rgba(214,59,59,.12);z-index:2}
        .tl-box.suggested{border:2px dashed #e0a526;z-index:1}
        .tl-box.hover{border:2px solid #1d232b;z-index:3}
        .tl-dots{position:relative;display:flex;align-items:center;gap:0;height:26px;margin:8px 0;cursor:pointer;
        touch-action:none;user-select:none}
        .tl-dots::before{content:"";position:absolute;left:0;right:0;top:12px;height:2px;background:var(--line)}
        .tl-dot{position:relative;flex:1;display:flex;justify-content:center}
        .tl-dot span{width:12px;height:12px;border-radius:50%;background:var(--pass);border:2px solid #fff;
        box-shadow:0 0 0 1px #9aa4ae}
        .tl-dot.failing span{background:var(--fail);width:16px;height:16px}
        .tl-dot.timedOut span{background:var(--timeout)}
        .tl-dot.current span{box-shadow:0 0 0 3px #1d232b}
        .filmstrip{display:flex;gap:6px;overflow-x:auto;padding:4px 0}
        .filmstrip .tl-frame{flex:0 0 auto;border:2px solid transparent;border-radius:6px;padding:2px;background:#fff;
        cursor:pointer;text-align:center;font-size:11.5px;color:var(--muted)}
        .filmstrip .tl-frame img{height:72px;display:block;margin:0 auto 2px}
        .filmstrip .tl-frame .tl-blank{height:72px;width:54px;display:flex;align-items:center;justify-content:center;
        background:repeating-linear-gradient(45deg,#fff,#fff 3px,#eef0f2 3px,#eef0f2 6px)}
        .filmstrip .tl-frame.failing{border-color:var(--fail)}
        .filmstrip .tl-frame.current{border-color:#1d232b}
        .tl-elements{font-size:12.5px;margin-top:8px}
        .tl-elements table td{padding:1px 8px}
        .tl-elements tr.target{background:#fff0f0;font-weight:600}
        .tl-missing{background:#fff8e6;border:1px solid #f0d9a0;border-radius:6px;padding:6px 10px}
        .tl-missing button{margin-left:4px}
        .configs{margin:10px 0}
        .configs .tl-strip{display:flex;gap:10px;overflow-x:auto;padding:4px 0}
        .configs figure{flex:0 0 auto;margin:0;border:2px solid var(--line);border-radius:6px;padding:4px;max-width:260px}
        .configs figure.self{border-color:#1d232b}
        .configs figure img{max-height:200px;max-width:248px;display:block}
        .configs figcaption{font-size:11.5px;line-height:1.3;margin-top:3px}
        .configs .tl-none{height:80px;width:140px;display:flex;align-items:center;justify-content:center;text-align:center;
        color:var(--muted);font-size:11.5px;background:repeating-linear-gradient(45deg,#fff,#fff 3px,#eef0f2 3px,#eef0f2 6px)}
        .recording img{max-width:100%;max-height:480px;display:block;border:1px solid var(--line)}
        .recording .tl-dots .tl-dot{position:absolute;flex:none;transform:translateX(-50%)}
        .recording .tl-progress{position:absolute;left:0;top:11px;height:4px;background:#4a7fd6}
        """

    /// Inside the page script's function: uses its `el`, `blobURL`, `image`, `jobData`, `LABELS` and `runData`.
    static let timelineScript = #"""
          // The job panel's timeline, overlay, configuration strip and recording (HTMLAssets+Timeline.swift).
          var PICTURES = ['screenshot.png', 'wireframe.png'];
          function decidingAttempt(attempts) {
            for (var n = attempts.length - 1; n >= 0; n--) {
              if (!attempts[n][5] && attempts[n][2] !== null) return attempts[n];
            }
            return attempts.length ? attempts[attempts.length - 1] : null;
          }
          // A picture of the review views: loaded from its blob, `data-painted` once it has loaded (or failed).
          function picture(r, attrs) {
            var img = el('img', attrs);
            blobURL(r).then(function (b) {
              img.addEventListener('load', function () { img.setAttribute('data-painted', img.naturalWidth > 0 ? 'true' : 'false'); });
              img.addEventListener('error', function () { img.setAttribute('data-painted', 'false'); });
              img.src = b.url;
            }, function () { img.setAttribute('data-painted', 'false'); });
            return img;
          }
          function isFrame(r) { return /^screencast-\d+\.jpg$/.test(r[1]); }
          // Step index → the carried picture of that step: a screenshot or a wireframe, else its first image.
          function stepPictures(attempt) {
            var out = {};
            attempt[9].forEach(function (r) {
              if (r[7] !== 'image' || r[5] === null || isFrame(r)) return;
              var have = out[r[0]];
              if (!have || (PICTURES.indexOf(r[1]) >= 0 && PICTURES.indexOf(have[1]) < 0)) out[r[0]] = r;
            });
            return out;
          }
          function elementsRef(attempt, step) {
            for (var i = 0; i < attempt[9].length; i++) {
              var r = attempt[9][i];
              if (r[0] === step && r[5] !== null && (r[1] === 'elements.json' || r[1] === 'surface.json')) return r;
            }
            return null;
          }
          // The elements on screen, one shape for both sources: {width, height, list: [{id, box: [x, y, w, h], text}]}.
          var screens = {};
          function screenOf(r) {
            if (!screens[r[4]]) {
              screens[r[4]] = blobURL(r).then(function (b) {
                var data = JSON.parse(new TextDecoder().decode(b.bytes)), list = [];
                if (data.surface) {
                  var s = data.surface;
                  (s.elements || []).forEach(function (e) {
                    if (!e.id || !e.frame || e.isVisible === false) return;
                    list.push({id: e.id, box: [e.frame.x, e.frame.y, e.frame.width, e.frame.height], text: e.label || ''});
                  });
                  return {width: s.viewportWidth, height: s.viewportHeight, list: list};
                }
                (data.elements || []).forEach(function (e) {
                  if (e.id && e.box) list.push({id: e.id, box: e.box, text: e.text || ''});
                });
                return {width: data.viewport ? data.viewport[0] : 0, height: data.viewport ? data.viewport[1] : 0, list: list};
              });
            }
            return screens[r[4]];
          }
          // A step key is `verb:target`; the page-wide targets name no element.
          function targetOf(key) {
            var at = key ? key.indexOf(':') : -1, target = at < 0 ? '' : key.slice(at + 1);
            return target === '' || target === 'page' || target === 'layout' || /^(open|request|ambient|rotate):/.test(key)
              ? null : target;
          }
          function distance(a, b) {
            var row = [], i, j;
            for (j = 0; j <= b.length; j++) row.push(j);
            for (i = 1; i <= a.length; i++) {
              var previous = row[0];
              row[0] = i;
              for (j = 1; j <= b.length; j++) {
                var kept = row[j];
                row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
                previous = kept;
              }
            }
            return row[b.length];
          }
          // The identifiers nearest to a missing target: by edit distance, or sharing its last word.
          function didYouMean(target, ids) {
            var last = target.split(/[.\-_]/).pop().toLowerCase();
            return ids.map(function (id) {
              var d = distance(target.toLowerCase(), id.toLowerCase());
              var words = id.toLowerCase().split(/[.\-_]/);
              return {id: id, d: words.indexOf(last) >= 0 ? Math.min(d, 2) : d};
            }).filter(function (c) { return c.d <= Math.max(2, Math.floor(target.length / 3)); })
              .sort(function (x, y) { return x.d - y.d || (x.id < y.id ? -1 : 1); }).slice(0, 3).map(function (c) { return c.id; });
          }
          function boxText(b) { return b.map(function (v) { return Math.round(v); }).join(', '); }
          // Draws the elements of `screen` over `stage`, outlines `target`, and lists them in `list`.
          function overlay(stage, list, screen, target, stepNumber) {
            var w = screen.width || 1, h = screen.height || 1, boxes = {}, ids = [];
            screen.list.forEach(function (e) {
              if (boxes[e.id]) return;
              ids.push(e.id);
              var box = el('div', {'class': 'tl-box' + (e.id === target ? ' target' : ''), 'data-element': e.id,
                title: e.id + ' · ' + boxText(e.box)});
              box.style.left = (e.box[0] / w * 100) + '%'; box.style.top = (e.box[1] / h * 100) + '%';
              box.style.width = (e.box[2] / w * 100) + '%'; box.style.height = (e.box[3] / h * 100) + '%';
              boxes[e.id] = box;
              stage.appendChild(box);
            });
            var table = el('table', {'class': 'grid'}, [el('tr', {}, [el('th', {}, ['identifier']), el('th', {}, ['box (x, y, w, h)']),
              el('th', {}, ['text'])])]);
            screen.list.forEach(function (e) {
              var tr = el('tr', {'class': e.id === target ? 'target' : '', 'data-element': e.id}, [
                el('td', {'class': 'mono'}, [e.id]), el('td', {'class': 'mono'}, [boxText(e.box)]), el('td', {}, [e.text.slice(0, 80)])]);
              tr.addEventListener('mouseenter', function () { boxes[e.id].classList.add('hover'); });
              tr.addEventListener('mouseleave', function () { boxes[e.id].classList.remove('hover'); });
              table.appendChild(tr);
            });
            if (target !== null && !boxes[target]) {
              var guesses = didYouMean(target, ids), note = el('p', {'class': 'tl-missing', 'data-missing': target}, [
                el('span', {'class': 'mono'}, [target]), ' is not on screen at step ' + stepNumber + '.']);
              if (guesses.length) note.appendChild(document.createTextNode(' Did you mean'));
              guesses.forEach(function (g) {
                boxes[g].classList.add('suggested');
                note.appendChild(el('button', {type: 'button', 'data-suggestion': g, 'class': 'mono'}, [g]));
              });
              note.addEventListener('click', function (e) {
                var b = e.target.closest('[data-suggestion]');
                if (b) boxes[b.getAttribute('data-suggestion')].classList.toggle('hover');
              });
              list.appendChild(note);
            }
            list.appendChild(el('details', {open: ''}, [el('summary', {}, [screen.list.length + ' element(s) on screen at step '
              + stepNumber]), table]));
          }
          // The timeline of `attempt`: returns it, or null when no step of the attempt carries a picture.
          function timeline(attempt, failingStep, onStep) {
            var steps = attempt[8], pictures = stepPictures(attempt);
            if (!steps.length || !Object.keys(pictures).length) return null;
            var failingAt = -1;
            for (var i = 0; i < steps.length; i++) {
              if (steps[i][0] === failingStep || (failingAt < 0 && (steps[i][2] === 'failed' || steps[i][2] === 'errored' || steps[i][2] === 'timedOut'))) failingAt = i;
            }
            var root = el('div', {'class': 'timeline', role: 'group', 'data-timeline': String(attempt[0]), tabindex: '0',
              'aria-label': 'Timeline of attempt ' + attempt[0] + ': left and right arrows move between steps, F jumps to the failure'});
            var caption = el('span', {'class': 'tl-caption'}), head = el('div', {'class': 'tl-head'}, [caption]);
            var jump = null;
            if (failingAt >= 0) {
              jump = el('button', {type: 'button', 'data-jump': ''}, ['Jump to the failure (F)']);
              head.appendChild(jump);
            }
            var stage = el('div', {'class': 'tl-stage'}), list = el('div', {'class': 'tl-elements'});
            var dots = el('div', {'class': 'tl-dots', role: 'slider', 'aria-valuemin': '1', 'aria-valuemax': String(steps.length)});
            var strip = el('div', {'class': 'filmstrip'}), frames = [], marks = [];
            steps.forEach(function (st, k) {
              var cls = (k === failingAt ? ' failing' : '') + (st[2] === 'timedOut' ? ' timedOut' : '');
              var dot = el('div', {'class': 'tl-dot' + cls, 'data-step': String(st[0]), title: 'step ' + (st[0] + 1) + ': ' + st[1]
                + ' · ' + st[2]}, [el('span')]);
              marks.push(dot);
              dots.appendChild(dot);
              var shot = pictures[st[0]];
              var frame = el('button', {type: 'button', 'class': 'tl-frame' + cls, 'data-step': String(st[0]), tabindex: '-1'}, [
                shot ? picture(shot, {'data-picture': shot[1], alt: 'step ' + (st[0] + 1)}) : el('div', {'class': 'tl-blank'}, ['—']),
                String(st[0] + 1)]);
              frame.addEventListener('click', function () { go(k); });
              frames.push(frame);
              strip.appendChild(frame);
            });
            root.appendChild(head); root.appendChild(stage); root.appendChild(dots); root.appendChild(strip); root.appendChild(list);
            var current = -1;
            function go(k) {
              k = Math.max(0, Math.min(steps.length - 1, k));
              if (k === current) return;
              if (current >= 0) { marks[current].classList.remove('current'); frames[current].classList.remove('current'); }
              current = k;
              var st = steps[k], shot = pictures[st[0]];
              marks[k].classList.add('current'); frames[k].classList.add('current');
              frames[k].scrollIntoView({block: 'nearest', inline: 'nearest'});
              root.setAttribute('data-step', String(st[0]));
              dots.setAttribute('aria-valuenow', String(k + 1));
              caption.textContent = 'Step ' + (st[0] + 1) + ' of ' + steps.length + ' · ' + st[1] + ' · ' + st[2]
                + (k === failingAt ? ' ◀ the failure' : '');
              stage.textContent = ''; list.textContent = '';
              if (shot) {
                var img = picture(shot, {'data-picture': shot[1], 'data-timeline-picture': String(st[0]), alt: 'step ' + (st[0] + 1)});
                stage.appendChild(img);
                var ref = elementsRef(attempt, st[0]);
                if (ref) {
                  var wanted = k;
                  screenOf(ref).then(function (screen) {
                    if (current !== wanted) return;
                    overlay(stage, list, screen, targetOf(st[1]), st[0] + 1);
                    root.setAttribute('data-overlay', String(st[0]));
                  }, function () { list.appendChild(el('p', {'class': 'note'}, ['the elements on screen are unavailable'])); });
                }
              } else {
                stage.appendChild(el('div', {'class': 'tl-none'}, ['no picture kept at step ' + (st[0] + 1)]));
              }
              if (onStep) onStep(st[0]);
            }
            function fromPointer(e) {
              var r = dots.getBoundingClientRect();
              go(Math.floor((e.clientX - r.left) / Math.max(1, r.width) * steps.length));
            }
            var dragging = false;
            dots.addEventListener('pointerdown', function (e) {
              dragging = true;
              if (dots.setPointerCapture && e.pointerId !== undefined) { try { dots.setPointerCapture(e.pointerId); } catch (x) { dragging = true; } }
              fromPointer(e);
              root.focus({preventScroll: true});
            });
            dots.addEventListener('pointermove', function (e) { if (dragging) fromPointer(e); });
            dots.addEventListener('pointerup', function () { dragging = false; });
            dots.addEventListener('pointercancel', function () { dragging = false; });
            if (jump) jump.addEventListener('click', function () { go(failingAt); });
            root.addEventListener('keydown', function (e) {
              var to = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? current + 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? current - 1
                : e.key === 'Home' ? 0 : e.key === 'End' ? steps.length - 1 : (e.key === 'f' || e.key === 'F') && failingAt >= 0 ? failingAt : null;
              if (to === null) return;
              e.preventDefault();
              e.stopPropagation();
              go(to);
            });
            root.go = go;
            go(failingAt >= 0 ? failingAt : steps.length - 1);
            return root;
          }
          // The same step of the same scenario in every configuration of the run (the jobs of its heat-map row).
          var STRIP_LIMIT = 24;
          function configurationStrip(id, j) {
            var rows = document.querySelectorAll('#heatmap-table .hr[data-scenario]'), ids = [], statuses = {};
            for (var r = 0; r < rows.length; r++) {
              if (rows[r].getAttribute('data-scenario') !== j[0]) continue;
              var cells = rows[r].querySelectorAll('a.cell[data-job]');
              for (var c = 0; c < cells.length; c++) {
                var other = cells[c].getAttribute('data-job');
                if (statuses[other] === undefined) { ids.push(other); statuses[other] = cells[c].classList.contains('s-passed'); }
              }
            }
            if (ids.length < 2) return null;
            // This job, then the others that did not pass (their pictures are carried), then the rest, in map order.
            var ordered = [id].concat(ids.filter(function (x) { return x !== id && !statuses[x]; }),
              ids.filter(function (x) { return x !== id && statuses[x]; })).slice(0, STRIP_LIMIT);
            var title = el('h3'), strip = el('div', {'class': 'tl-strip'});
            var box = el('div', {'class': 'configs', role: 'group', 'data-configs': String(ids.length)}, [title, strip]);
            if (ids.length > STRIP_LIMIT) {
              box.appendChild(el('p', {'class': 'muted'}, ['the first ' + STRIP_LIMIT + ' of ' + ids.length + ' configurations']));
            }
            var jobs = Promise.all(ordered.map(function (x) {
              return jobData(x).then(function (data) { return {id: x, j: data}; }, function () { return {id: x, j: null}; });
            }));
            var axes = runData().axes, shown = -1;
            box.show = function (step) {
              if (step === shown) return;
              shown = step;
              title.textContent = 'Step ' + (step + 1) + ' in every configuration';
              box.setAttribute('data-step', String(step));
              jobs.then(function (all) {
                if (shown !== step) return;
                // The axes whose values differ between these configurations name each one.
                var differing = axes.map(function (a, i) { return i; }).filter(function (i) {
                  var seen = {};
                  all.forEach(function (o) { if (o.j) seen[o.j[5][i]] = true; });
                  return Object.keys(seen).length > 1;
                });
                strip.textContent = '';
                all.forEach(function (o) {
                  if (!o.j) return;
                  var label = differing.map(function (i) { return o.j[5][i]; }).filter(function (v) { return v !== null; }).join(' · ');
                  var attempt = decidingAttempt(o.j[8]), shot = attempt ? stepPictures(attempt)[step] : null;
                  var reached = attempt ? attempt[8].some(function (s) { return s[0] === step; }) : false;
                  var figure = el('figure', {'class': o.id === id ? 'self' : '', 'data-config-job': o.id}, [
                    shot ? picture(shot, {'data-picture': shot[1], alt: label})
                      : el('div', {'class': 'tl-none'}, [reached ? 'no picture kept' : 'step not reached']),
                    el('figcaption', {}, [el('a', {href: '#job=' + encodeURIComponent(o.id)}, [label || o.id]), ' ',
                      el('span', {'class': 'chip s-' + o.j[3]}, [LABELS[o.j[3]] || o.j[3]])])]);
                  strip.appendChild(figure);
                });
                box.setAttribute('data-shown', String(step));
              });
            };
            return box;
          }
          // The screencast of an attempt: its frames in order, the steps as dots where each step's first frame is.
          function recording(attempt) {
            var frames = attempt[9].filter(function (r) { return isFrame(r) && r[5] !== null; })
              .sort(function (x, y) { return x[0] - y[0] || (x[1] < y[1] ? -1 : 1); });
            if (frames.length < 2) return null;
            var root = el('div', {'class': 'recording timeline', role: 'group', 'aria-label': 'Recording', 'data-recording': String(frames.length), tabindex: '0'});
            var caption = el('span', {'class': 'tl-caption'}), play = el('button', {type: 'button', 'data-play': ''}, ['Play']);
            var view = el('div', {'class': 'tl-stage'}), dots = el('div', {'class': 'tl-dots'}), bar = el('div', {'class': 'tl-progress'});
            dots.appendChild(bar);
            var seen = {};
            frames.forEach(function (r, k) {
              if (seen[r[0]]) return;
              seen[r[0]] = true;
              var dot = el('div', {'class': 'tl-dot' + (r[0] === attempt[6] ? ' failing' : ''), 'data-step': String(r[0]),
                title: 'step ' + (r[0] + 1)}, [el('span')]);
              dot.style.left = (k / (frames.length - 1) * 100) + '%';
              dot.addEventListener('click', function (e) { e.stopPropagation(); show(k); });
              dots.appendChild(dot);
            });
            root.appendChild(el('div', {'class': 'tl-head'}, [el('strong', {}, ['Recording']), caption, play]));
            root.appendChild(view); root.appendChild(dots);
            var at = 0, timer = null;
            function show(k) {
              at = Math.max(0, Math.min(frames.length - 1, k));
              view.textContent = '';
              view.appendChild(picture(frames[at], {'data-picture': frames[at][1], alt: 'frame ' + (at + 1)}));
              bar.style.width = (at / (frames.length - 1) * 100) + '%';
              caption.textContent = 'frame ' + (at + 1) + ' of ' + frames.length + ' · step ' + (frames[at][0] + 1);
              root.setAttribute('data-frame', String(at));
            }
            function stop() { if (timer) { clearInterval(timer); timer = null; play.textContent = 'Play'; } }
            play.addEventListener('click', function () {
              if (timer) return stop();
              if (at >= frames.length - 1) show(0);
              play.textContent = 'Pause';
              timer = setInterval(function () { if (at >= frames.length - 1) stop(); else show(at + 1); }, 200);
            });
            dots.addEventListener('click', function (e) {
              var r = dots.getBoundingClientRect();
              show(Math.round((e.clientX - r.left) / Math.max(1, r.width) * (frames.length - 1)));
            });
            root.addEventListener('keydown', function (e) {
              if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
              e.preventDefault(); e.stopPropagation();
              stop(); show(at + (e.key === 'ArrowRight' ? 1 : -1));
            });
            show(0);
            return root;
          }
          // Adds the review views to a job's panel, under its failure: the deciding attempt's timeline (and recording),
          // then the configuration strip following the timeline's step.
          function reviewViews(panel, id, j) {
            var attempt = decidingAttempt(j[8]);
            if (!attempt) return;
            var failingStep = attempt[6] !== null ? attempt[6] : j[6];
            var views = el('div', {'class': 'review'}), strip = configurationStrip(id, j);
            var line = timeline(attempt, failingStep, strip ? function (step) { strip.show(step); } : null);
            if (line) views.appendChild(line);
            var movie = recording(attempt);
            if (movie) views.appendChild(movie);
            if (strip) {
              if (!line) strip.show(failingStep !== null ? failingStep : 0);
              views.appendChild(strip);
            }
            if (views.firstChild) panel.appendChild(views);
          }
        """#
}
