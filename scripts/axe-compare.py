#!/usr/bin/env python3
"""Compares FlowMatrix's accessibility audit with axe-core, rule by rule, on the sample shop (docs/ACCESSIBILITY.md).

Not a project dependency: run it with a virtual environment that has axe-playwright-python (which brings Playwright
for Python), using the same Chromium FlowMatrix drives:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install axe-playwright-python
    flowmatrix run Matrices/a11y.json --store /tmp/a11y-store
    /tmp/venv/bin/python scripts/axe-compare.py /tmp/a11y-store/runs/<run>/summary.json

For every job of the run it replays the job's scenario (Workers/Web/Accessibility) in Playwright under the job's
configuration (locale, window, prefers-color-scheme, the default font size of its textSize), runs axe-core after every
step as `policy.audit: every-step` does, stops at the first step with a violation of a rule that maps to an AX code (as
a job stops at its failing step), and compares the (code, element) pairs with the job's `audit` member. It prints, per
AX code, what both found, what only FlowMatrix found and what only axe-core found, and the time per audit of axe-core
(FlowMatrix's is `flowmatrix bench web`'s "audit per step").
"""
import json
import os
import statistics
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AXE_RULES = {
    "AX001": ["button-name", "link-name", "input-button-name", "aria-command-name", "aria-input-field-name",
              "aria-toggle-field-name", "select-name", "label"],
    "AX002": ["color-contrast"],
    "AX003": ["target-size"],
    "AX004": ["html-has-lang", "html-lang-valid", "valid-lang", "html-xml-lang-mismatch"],
}
CODE_OF = {rule: code for code, rules in AXE_RULES.items() for rule in rules}
WINDOWS = {"regular-square": (744, 744), "narrow-portrait": (320, 720), "full-window": (820, 1180)}
BODY_POINTS = {"xSmall": 14, "small": 15, "medium": 16, "large": 17, "xLarge": 19, "xxLarge": 21, "xxxLarge": 23,
               "AX1": 28, "AX2": 33, "AX3": 40, "AX4": 47, "AX5": 53}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


def axe_findings(page, axe, times):
    started = time.perf_counter()
    results = axe.run(page, options={"runOnly": {"type": "rule", "values": sorted(CODE_OF)},
                                     "resultTypes": ["violations"]})
    times.append(time.perf_counter() - started)
    found = set()
    for violation in results.response.get("violations", []):
        code = CODE_OF.get(violation["id"])
        for node in violation.get("nodes", []):
            selector = node["target"][0] if node.get("target") else "html"
            element = page.evaluate(
                "(s) => { const e = document.querySelector(s); if (!e) return s; if (e === document.documentElement)"
                " return 'html'; const h = e.closest('[data-testid]'); return h ? h.dataset.testid : s; }", selector)
            found.add((code, element))
    return found


def replay(browser, base, job, scenario, axe, times):
    configuration = job["configuration"]
    width, height = WINDOWS.get(configuration.get("window", "full-window"), (820, 1180))
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale=configuration.get("locale", "en"),
        color_scheme=configuration.get("appearance", "light"),
        reduced_motion="reduce" if configuration.get("motion") == "reduced" else "no-preference")
    page = context.new_page()
    scale = BODY_POINTS[configuration.get("textSize", "large")] / 17
    session = context.new_cdp_session(page)
    session.send("Page.setFontSizes", {"fontSizes": {"standard": round(16 * scale), "fixed": round(13 * scale)}})
    opened = False
    try:
        for step in scenario["steps"]:
            selector = '[data-testid="%s"]' % step["target"]
            if step["verb"] == "open":
                page.goto(base + step["target"], wait_until="load")
                opened = True
            elif step["verb"] == "wait":
                page.wait_for_selector(selector, timeout=float(step.get("arg", "5")) * 1000)
            elif step["verb"] == "tap":
                page.click(selector)
            if opened and step["verb"] != "request":
                found = axe_findings(page, axe, times)
                if found:
                    return found
        return set()
    finally:
        context.close()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: axe-compare.py <summary.json of a Matrices/a11y.json run>")
    summary = json.load(open(sys.argv[1]))
    jobs = summary["jobs"] + [
        {"scenarioID": row[1], "configuration": dict(p.split("=", 1) for p in row[2].split(",")), "audit": []}
        for row in summary.get("passed", [])]
    folder = os.path.join(ROOT, "Workers/Web/Accessibility")
    scenarios = {}
    for name in os.listdir(folder):
        scenario = json.load(open(os.path.join(folder, name)))
        scenarios[scenario["id"]] = scenario
    server, base = serve(os.path.join(ROOT, "Workers/Web/site"))
    chromium = os.environ.get("FLOWMATRIX_CHROMIUM", "/usr/bin/chromium")
    both, only_fm, only_axe, times = {}, {}, {}, []
    axe = Axe()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for job in jobs:
            ours = {(a["code"], a["element"]) for a in job.get("audit") or []}
            theirs = replay(browser, base, job, scenarios[job["scenarioID"]], axe, times)
            where = "%s [%s]" % (job["scenarioID"], ",".join("%s=%s" % kv for kv in sorted(job["configuration"].items())))
            for code, element in ours | theirs:
                key = (code or "?", element)
                bucket = both if key in ours and key in theirs else only_fm if key in ours else only_axe
                bucket.setdefault(key[0], []).append("%s %s" % (element, where))
        browser.close()
    server.shutdown()
    print("rule   both  only FlowMatrix  only axe-core")
    for code in ["AX001", "AX002", "AX003", "AX004", "AX005"]:
        print("%s  %4d  %15d  %13d" % (code, len(both.get(code, [])), len(only_fm.get(code, [])),
                                       len(only_axe.get(code, []))))
        for label, bucket in (("only FlowMatrix", only_fm), ("only axe-core", only_axe)):
            for entry in bucket.get(code, [])[:6]:
                print("       %s: %s" % (label, entry))
    print("axe-core per audit: median %.1f ms, p90 %.1f ms of %d (rules: %s)" % (
        statistics.median(times) * 1000, sorted(times)[int(len(times) * 0.9)] * 1000, len(times),
        ", ".join(sorted(CODE_OF))))


if __name__ == "__main__":
    main()
