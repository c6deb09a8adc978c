// The accessibility audit's page script, two versions in one Chromium, alternated (docs/ACCESSIBILITY.md, "Cost per
// step"). Not a project dependency: it needs Node (18 or later) and the Chromium FlowMatrix drives.
//
//   node scripts/audit-script-ab.mjs [--before REV] [--after REV] [--rounds N] [--compare] [--pages DIR]
//
// `AuditScript.source` is read from Sources/WebRegistry/AuditScript.swift at git revision REV (--before: HEAD~1 by
// default; --after: the working tree by default); the page prelude (`PagePrelude`) from the working tree. On the sample
// shop (Workers/Web/site, served on 127.0.0.1) at the bench's window (744×744), with the page's accessibility on as the
// audit keeps it, it runs each version N times (30 by default) on the catalog and then on the open cart, alternated
// (before, after, after, before, …), and prints for each the median time inside the page (performance.now(), wall) and
// the renderer main thread's CPU time per evaluation (`Performance.getMetrics` ThreadTime: what a loaded machine does
// not inflate). With --compare it instead checks that both versions return the same findings and skipped count on the
// shop (light and dark, three windows) and on every .html page of --pages DIR, and exits 1 when one differs.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, readdirSync, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import os from 'node:os';

const args = process.argv.slice(2);
const option = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const rounds = parseInt(option('--rounds', '30'), 10);
const compareMode = args.includes('--compare');
const pagesDir = option('--pages', null);
const swiftFile = 'Sources/WebRegistry/AuditScript.swift';
const sourceAt = (rev) => rev ? execFileSync('git', ['-C', repo, 'show', rev + ':' + swiftFile], { encoding: 'utf8' })
  : readFileSync(path.join(repo, swiftFile), 'utf8');
const literal = (text, key) => {
  const a = text.indexOf(key);
  if (a < 0) throw new Error('no ' + key);
  const b = text.indexOf('"""#', a + key.length);
  return text.slice(a + key.length, b).split('\n').map((l) => l.replace(/^ {8}/, '')).join('\n').trim();
};
const scripts = {
  before: literal(sourceAt(option('--before', 'HEAD~1')), 'static let source = #"""'),
  after: literal(sourceAt(option('--after', null)), 'static let source = #"""'),
};
const web = (name) => readFileSync(path.join(repo, 'Sources/WebRegistry', name), 'utf8');
const prelude = literal(web('PagePrelude.swift'), 'static let body = #"""')
  .replace('__LOCATORS__', () => literal(web('PageLocators.swift'), 'static let script = #"""'))
  .replace('__CONFIG__', () => JSON.stringify({ attr: 'data-testid', dir: null, pseudo: 'none', interruptions: [] }))
  .replace('__ACCENTS__', '{}')
  .replace('__ON_SCREEN__', () => literal(web('ScreenElements.swift'), 'static let source = #"""'));

const roots = [path.join(repo, 'Workers/Web/site'), ...(pagesDir ? [path.resolve(pagesDir)] : [])];
const server = http.createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = roots.map((r) => path.join(r, name)).find((f) => existsSync(f) && !name.includes('..'));
  if (!file) { res.writeHead(404); res.end(); return; }
  const type = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript' }[path.extname(file)] || 'application/json';
  res.writeHead(200, { 'content-type': type }); res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = 'http://127.0.0.1:' + server.address().port + '/';

const executable = process.env.FLOWMATRIX_CHROMIUM || ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium'].find(existsSync);
const profile = mkdtempSync(path.join(os.tmpdir(), 'audit-ab-'));
const chrome = spawn(executable, ['--headless=new', '--remote-debugging-pipe', '--user-data-dir=' + profile, '--no-first-run',
  '--disable-background-networking', '--disable-extensions', '--hide-scrollbars', '--mute-audio',
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--font-render-hinting=none',
  '--enable-blink-features=ComputedAccessibilityInfo', ...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []),
  'about:blank'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
let id = 0, buffer = '';
const pending = new Map();
chrome.stdio[4].on('data', (d) => {
  buffer += d.toString();
  for (let i; (i = buffer.indexOf('\0')) >= 0;) {
    const m = JSON.parse(buffer.slice(0, i)); buffer = buffer.slice(i + 1);
    const p = m.id && pending.get(m.id);
    if (p) { pending.delete(m.id); m.error ? p.reject(new Error(JSON.stringify(m.error))) : p.resolve(m.result); }
  }
});
const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const m = { id: ++id, method, params, ...(sessionId ? { sessionId } : {}) };
  pending.set(m.id, { resolve, reject }); chrome.stdio[3].write(JSON.stringify(m) + '\0');
});
let failed = 0;
try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId: s } = await send('Target.attachToTarget', { targetId, flatten: true });
  const evaluate = async (expression) => {
    const r = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, s);
    if (r.exceptionDetails) throw new Error(JSON.stringify(r.exceptionDetails).slice(0, 600));
    return r.result.value;
  };
  await send('Page.enable', {}, s);
  await send('Runtime.enable', {}, s);
  await send('Performance.enable', { timeDomain: 'threadTicks' }, s);
  await send('Page.addScriptToEvaluateOnNewDocument', { source: prelude }, s);
  await send('Accessibility.enable', {}, s);
  const window = async ({ width = 744, height = 744, dark = false }) => {
    await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, s);
    await send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] }, s);
  };
  const waitFor = async (expression) => {
    for (const end = Date.now() + 10000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (await evaluate(expression)) return;
    throw new Error('timed out waiting for ' + expression);
  };
  const open = async (page, ready = 'true') => {
    await send('Page.navigate', { url: base + page }, s);
    await waitFor('location.pathname === ' + JSON.stringify('/' + page) + ' && document.readyState === "complete" && (' + ready + ')');
    await send('Accessibility.getRootAXNode', {}, s);
  };
  const shop = async () => open('index.html', '!!document.querySelector(\'[data-testid="catalog.item.1"]\')');
  const openCart = async () => {
    await evaluate('document.querySelector(\'[data-testid="catalog.item.1.add"]\').click(); document.querySelector(\'[data-testid="header.cart"]\').click()');
    await waitFor('!!document.querySelector(\'[data-testid="cart.total"]\').textContent');
  };
  const options = JSON.stringify({ attr: 'data-testid', language: 'en', dir: 'ltr', names: true, roles: ['button', 'link', 'textbox',
    'searchbox', 'checkbox', 'radio', 'combobox', 'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'tab', 'listbox', 'PopUpButton', 'ToggleButton'] });
  const threadTime = async () => (await send('Performance.getMetrics', {}, s)).metrics.find((m) => m.name === 'ThreadTime').value * 1000;
  const run = async (which) => {
    const cpu = await threadTime();
    const r = await evaluate('(() => { const t = performance.now(); const r = (' + scripts[which] + ')(' + options + '); return { ms: performance.now() - t, findings: r.findings, skipped: r.skipped }; })()');
    r.cpu = (await threadTime()) - cpu;
    return r;
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  if (compareMode) {
    const pages = pagesDir ? readdirSync(pagesDir).filter((f) => f.endsWith('.html')).sort() : [];
    for (const conf of [{}, { dark: true }, { width: 375, height: 667 }, { dark: true, width: 375, height: 667 }, { width: 1280, height: 800 }]) {
      await window(conf);
      const check = async (label) => {
        const a = await run('before'), b = await run('after');
        const same = JSON.stringify([a.findings, a.skipped]) === JSON.stringify([b.findings, b.skipped]);
        if (!same) failed++;
        console.log((same ? 'same      ' : 'DIFFERENT ') + label + ' ' + JSON.stringify(conf) + ': ' + a.findings.map((f) => f.code + ' ' + f.id).join(', ')
          + (same ? '' : '\n  before: ' + JSON.stringify(a) + '\n  after:  ' + JSON.stringify(b)));
      };
      await shop(); await check('catalog'); await openCart(); await check('open cart');
      for (const page of pages) { await open(page); await check(page); }
    }
    console.log(failed ? failed + ' differ' : 'the same findings everywhere');
  } else {
    await window({});
    for (const page of ['catalog', 'open cart']) {
      if (page === 'catalog') await shop(); else await openCart();
      const t = { before: [], after: [] }, c = { before: [], after: [] };
      for (let i = 0; i < 3; i++) { await run('before'); await run('after'); }
      for (let i = 0; i < rounds; i++) for (const w of i % 2 ? ['after', 'before'] : ['before', 'after']) {
        const r = await run(w); t[w].push(r.ms); c[w].push(r.cpu);
      }
      console.log(page + ': inside the page, median before ' + median(t.before).toFixed(1) + ' ms, after ' + median(t.after).toFixed(1)
        + ' ms; renderer CPU per evaluation, median before ' + median(c.before).toFixed(1) + ' ms, after ' + median(c.after).toFixed(1)
        + ' ms (' + (median(c.before) / median(c.after)).toFixed(2) + '×), ' + rounds + ' each, alternated');
    }
  }
} finally {
  server.close();
  chrome.on('exit', () => { rmSync(profile, { recursive: true, force: true }); process.exit(failed ? 1 : 0); });
  chrome.kill();
}
