#!/usr/bin/env python3
"""Captures pictures of report.html's views with headless Chromium, for docs/REPORTS.md.

Usage: report-pictures.py CHROMIUM REPORT_HTML|LIVE_URL OUT_DIR SHOT...
  SHOT is NAME=JOB_ID:SELECTOR[:JS]: opens REPORT_HTML#job=JOB_ID, waits until the open panel's review views are
  drawn (every picture painted), runs JS in the page if given, and writes OUT_DIR/NAME.png: the first element
  matching SELECTOR inside the open panel (or the page when JOB_ID is empty), scrolled into view. A URL (the live
  view, `http://127.0.0.1:8080/`) is opened as it is.

Talks the DevTools protocol over --remote-debugging-pipe (as Tests/ReportsTests/Fixtures/click_cell.py); no
network port, no extra package. Exits non-zero with a message on any failure; bounded by a deadline.
"""
import base64, json, os, subprocess, sys, tempfile, time

DEADLINE = time.monotonic() + 180


def main():
    chromium, report, out_dir = sys.argv[1:4]
    shots = sys.argv[4:]
    profile = tempfile.mkdtemp(prefix="flowmatrix-pictures-")
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()

    def wire():
        a, b = os.dup(to_r), os.dup(from_w)
        os.dup2(a, 3)
        os.dup2(b, 4)
        os.set_inheritable(3, True)
        os.set_inheritable(4, True)

    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--remote-debugging-pipe", "--hide-scrollbars",
         "--user-data-dir=" + profile, "about:blank"],
        preexec_fn=wire, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    os.close(to_r)
    os.close(from_w)
    out = os.fdopen(to_w, "wb", buffering=0)
    inp = os.fdopen(from_r, "rb", buffering=0)
    buffer = b""
    next_id = [0]

    def call(method, params=None, session=None):
        nonlocal buffer
        next_id[0] += 1
        message = {"id": next_id[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        out.write(json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in buffer:
                if time.monotonic() > DEADLINE:
                    raise TimeoutError("no reply from chromium within the deadline")
                chunk = inp.read(1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                buffer += chunk
            raw, buffer = buffer.split(b"\0", 1)
            reply = json.loads(raw)
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

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Page.enable", {}, session)
        call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 1400, "deviceScaleFactor": 1,
                                                    "mobile": False}, session)
        for shot in shots:
            name, rest = shot.split("=", 1)
            job, selector, *script = rest.split(":", 2)
            page = report if report.startswith(("http://", "https://")) else "file://" + os.path.abspath(report)
            url = page + ("#job=" + job if job else "")
            call("Page.navigate", {"url": "about:blank"}, session)
            call("Page.navigate", {"url": url}, session)
            evaluate(session, """new Promise(function (resolve, reject) {
                var t0 = Date.now();
                (function check() {
                  var ready = document.documentElement && document.documentElement.getAttribute('data-ready') === 'true';
                  var panel = document.querySelector('.job-panel.open');
                  var imgs = panel ? panel.querySelectorAll('img[data-picture]') : [];
                  var painted = Array.prototype.every.call(imgs, function (i) { return i.hasAttribute('data-painted'); });
                  var drawn = !%s || (panel && panel.querySelector('.configs[data-shown], [data-timeline]') && painted);
                  if (ready && drawn) resolve(true);
                  else if (Date.now() - t0 > 30000) reject(new Error('the views were not drawn'));
                  else setTimeout(check, 50);
                })();
              })""" % json.dumps(bool(job)))
            if script:
                evaluate(session, script[0])
                evaluate(session, "new Promise(function (r) { setTimeout(r, 300); })")
            box = evaluate(session, """(function () {
                var root = document.querySelector('.job-panel.open') || document;
                var e = root.querySelector(%s);
                if (!e) return null;
                e.scrollIntoView({block: 'start'});
                var b = e.getBoundingClientRect();
                return {x: b.left + window.scrollX, y: b.top + window.scrollY, width: b.width, height: b.height};
              })()""" % json.dumps(selector))
            if box is None:
                raise RuntimeError(f"{name}: nothing matches {selector}")
            clip = {"x": max(0, box["x"] - 8), "y": max(0, box["y"] - 8), "width": box["width"] + 16,
                    "height": min(box["height"] + 16, 1380), "scale": 1}
            data = call("Page.captureScreenshot", {"format": "png", "clip": clip}, session)["data"]
            path = os.path.join(out_dir, name + ".png")
            with open(path, "wb") as f:
                f.write(base64.b64decode(data))
            print(f"{path}: {int(clip['width'])}x{int(clip['height'])}")
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
        subprocess.run(["rm", "-rf", profile])


if __name__ == "__main__":
    try:
        main()
    except Exception as error:
        print(f"report-pictures.py: {error}", file=sys.stderr)
        sys.exit(1)
