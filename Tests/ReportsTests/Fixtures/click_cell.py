#!/usr/bin/env python3
"""Clicks an element of report.html (a heat-map cell, a pivot row) in headless Chromium and prints what the page
shows then, as JSON: the open job panel and its images, and the heat-map cells lit up by a pivot row.

Usage: click_cell.py CHROMIUM REPORT_URL CSS_SELECTOR PROFILE_DIR
       click_cell.py CHROMIUM REPORT_URL --ready PROFILE_DIR   (no click: when the page was ready, and its cells)

CSS_SELECTOR may be several joined by " >> ": each is clicked in turn, the next waited for (up to 10 s) before it
is clicked (an aggregated heat map's group cell, then a job cell of its drill-down).

Talks the DevTools protocol over --remote-debugging-pipe (fd 3: commands to the browser, fd 4: replies, each
message NUL-terminated), so no network port and no extra Python package. A real mouse press and release is sent
at the centre of the element. Exits non-zero with a message on stderr on any failure; bounded by a deadline.
"""
import json, os, subprocess, sys, time

DEADLINE = time.monotonic() + 170


def main():
    chromium, url, selector, profile = sys.argv[1:5]
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    # The child reads commands on fd 3 and writes replies on fd 4.
    def wire():
        # Move both ends out of the way first: a pipe may already sit on fd 3 or 4 (and pipes are close-on-exec).
        a, b = os.dup(to_browser_r), os.dup(from_browser_w)
        os.dup2(a, 3)
        os.dup2(b, 4)
        os.set_inheritable(3, True)
        os.set_inheritable(4, True)
    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--disable-component-update", "--disable-sync",
         "--disable-background-networking", "--disable-breakpad", "--remote-debugging-pipe",
         "--window-size=1400,1000", "--user-data-dir=" + profile, "about:blank"],
        preexec_fn=wire, close_fds=False,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "..", "chromium-stderr.txt"), "wb") if os.environ.get("CLICK_DEBUG") else subprocess.DEVNULL)
    os.close(to_browser_r)
    os.close(from_browser_w)
    out = os.fdopen(to_browser_w, "wb", buffering=0)
    inp = os.fdopen(from_browser_r, "rb", buffering=0)
    buffer = b""
    next_id = [0]

    def receive():
        nonlocal buffer
        while b"\0" not in buffer:
            if time.monotonic() > DEADLINE:
                raise TimeoutError("no reply from chromium within the deadline")
            chunk = inp.read(65536)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            buffer += chunk
        message, buffer = buffer.split(b"\0", 1)
        return json.loads(message)

    def call(method, params=None, session=None):
        next_id[0] += 1
        message = {"id": next_id[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        out.write(json.dumps(message).encode() + b"\0")
        while True:
            reply = receive()
            if reply.get("id") == next_id[0]:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(session, expression):
        result = call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                      session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(session, selector):
        """A real mouse press and release at the centre of the first element matching `selector`."""
        rect = evaluate(session, """(function () {
            var el = document.querySelector(%s);
            if (!el) return null;
            el.scrollIntoView({block: 'center', inline: 'center'});
            var r = el.getBoundingClientRect();
            return {x: r.left + Math.min(r.width / 2, 40), y: r.top + r.height / 2, job: el.getAttribute('data-job')};
          })()""" % json.dumps(selector))
        if rect is None:
            raise RuntimeError("no element matches " + selector)
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            call("Input.dispatchMouseEvent", {"type": kind, "x": rect["x"], "y": rect["y"], "button": "left",
                                               "clickCount": 1}, session)
        return rect

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Page.enable", {}, session)
        call("Page.navigate", {"url": url}, session)
        # Wait (in the page, event-driven) until the report's script has run.
        evaluate(session, """new Promise(function (resolve, reject) {
            var t = setTimeout(function () { reject(new Error('report script did not run')); }, 90000);
            (function check() {
              if (document.documentElement && document.documentElement.getAttribute('data-ready') === 'true') {
                clearTimeout(t); resolve(true);
              } else { requestAnimationFrame(check); }
            })();
          })""")
        if selector == "--ready":
            print(json.dumps(evaluate(session, """({
                readyMs: Number(document.documentElement.getAttribute('data-ready-ms')),
                cells: document.querySelectorAll('a.cell[data-job]').length,
                groups: document.querySelectorAll('a.cell.agg').length})""")))
            try:
                call("Browser.close")
            except (EOFError, RuntimeError):
                pass
            return
        before = evaluate(session, "document.querySelectorAll('.job-panel.open').length")
        steps = selector.split(" >> ")
        for n, earlier in enumerate(steps[:-1]):
            click(session, earlier)
            try:
                evaluate(session, """new Promise(function (resolve, reject) {
                    var t0 = Date.now();
                    (function check() {
                      if (document.querySelector(%s)) resolve(true);
                      else if (Date.now() - t0 > 10000) reject(new Error('nothing matched'));
                      else requestAnimationFrame(check);
                    })();
                  })""" % json.dumps(steps[n + 1]))
            except RuntimeError:
                raise RuntimeError("after a click on " + earlier + ", nothing matches " + steps[n + 1])
        rect = click(session, steps[-1])
        # Wait until a panel is open and every image in it has loaded or failed, or until cells are lit up.
        state = evaluate(session, """new Promise(function (resolve) {
            var t0 = Date.now();
            (function check() {
              var panel = document.querySelector('.job-panel.open');
              var imgs = panel ? Array.prototype.slice.call(panel.querySelectorAll('img[data-artifact]')) : [];
              var settled = imgs.every(function (i) { return i.hasAttribute('data-loaded'); });
              var lit = document.querySelectorAll('a.cell.match').length;
              if ((panel && settled) || lit > 0 || Date.now() - t0 > 10000) {
                resolve({
                  hash: location.hash,
                  drilled: document.getElementById('drill') ? document.getElementById('drill').getAttribute('data-drilled') : null,
                  drillCells: document.querySelectorAll('#drill a.cell[data-job]').length,
                  matches: Array.prototype.map.call(document.querySelectorAll('a.cell.match[data-job]'),
                                                    function (c) { return c.getAttribute('data-job'); }),
                  matchedGroups: Array.prototype.map.call(document.querySelectorAll('a.cell.agg.match'),
                                                          function (c) { return c.getAttribute('data-cells'); }),
                  openPanels: document.querySelectorAll('.job-panel.open').length,
                  panel: panel ? panel.getAttribute('data-job-panel') : null,
                  openJob: document.body.getAttribute('data-open-job'),
                  panelVisible: panel ? panel.getBoundingClientRect().width > 0 : false,
                  images: imgs.map(function (i) {
                    return {loaded: i.getAttribute('data-loaded'), width: i.naturalWidth};
                  }),
                  failingStep: panel && panel.querySelector('.failure') ? panel.querySelector('.failure').textContent : null,
                  steps: panel ? panel.querySelectorAll('tr.step').length : 0,
                  attemptTitle: panel && panel.querySelector('.attempt h3') ? panel.querySelector('.attempt h3').textContent : null
                });
              } else { requestAnimationFrame(check); }
            })();
          })""")
        state["clicked"] = rect["job"]
        state["openBefore"] = before
        print(json.dumps(state))
        try:
            call("Browser.close")
        except (EOFError, RuntimeError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # report any failure to the Swift test with a non-zero exit
        print(f"click_cell.py: {error}", file=sys.stderr)
        sys.exit(1)
