// test_viewer.mjs: the viewer's polish (issue 25) on real files, in a real browser (Debian's
// chromium, headless, through playwright-core from tests/web), each point checked against our
// collapsed output of the same input where there is a number to check, with no console or page
// error and no request leaving the page:
//
//   shallow     a shallow flame graph (Go's CPU profile) is drawn at the top, as tall as its
//               frames; a deep one (Tachyon) opens on its root;
//   metadata    opening Metadata leaves the root in sight above the footer; floats rounded
//               (1.5220000099999993 shown 1.522, the exact value in its tooltip);
//   sandwich    a File column tells Tachyon's two <module> apart; sorted by self and total
//               (both ways), by name and file; the first by self is collapsed's largest self;
//   regex       an invalid regular expression says so in words;
//   esc         one Esc zooms all the way out (flame graph, time order);
//   palettes    by kind and by module/package, with a legend whose colours are the frames';
//   merge       by function (the default): Go's crypto/sha256.block one frame, MOJO's main one
//               frame, Tachyon's <module> one; by line: as many as lines; totals and search
//               shares as collapsed says in both;
//   heap        Mono's heap types: tables only of metrics with values, no zero rows, no "()",
//               the types as collapsed's last frames sum them; no tab for a file without heap
//               data; MoarVM's snapshots;
//   svg         flamegraph.pl's click-to-zoom, Reset Zoom, Esc, search (prompt and ?s=) with
//               the share matched, an invalid regex in words, under a strict CSP that allows
//               its script and style by their hashes; the header says what the widths measure;
//   signed      pprof with negative values (issue 21's crafted difference of heap profiles; a
//               delta of one, heap_delta.jsonl, whose alloc_* only grew): refused in words where
//               every metric has them; else the page and the SVG show the metrics without,
//               merged by function, as collapsed says; unsymbolized frames named by address.
//
// Screenshots of every view go to OUT (docs/images holds them, looked at).
// usage: node test_viewer.mjs PROFCODEC TESTDATA CORPUS OUT
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [PROFCODEC, DATA, CORPUS, OUT] = process.argv.slice(2);
const CHROMIUM = process.env.PCD_CHROMIUM || '/usr/bin/chromium';
const ROW = 18;

let pw;
try {
  pw = await import(pathToFileURL(path.join(here, '../web/node_modules/playwright-core/index.mjs')).href);
} catch (e) {
  console.log('viewer: playwright-core is not installed (run scripts/setup-deps.sh): ' + e.message);
  process.exit(1);
}
if (!fs.existsSync(CHROMIUM)) {
  console.log('viewer: ' + CHROMIUM + ' is missing (run scripts/setup-deps.sh: it installs Debian\'s chromium)');
  process.exit(1);
}
const real = {
  go: path.join(CORPUS, 'pprof/cpu.pprof'),                   // Go 1.19 runtime/pprof, crypto/sha256
  threads: path.join(CORPUS, 'tachyon/threads_all_zstd.bin'), // CPython 3.15: <module> twice, float metadata
  deep: path.join(CORPUS, 'tachyon/deep_none.bin'),           // a deep stack
  sleepy: path.join(CORPUS, 'mojo/full_sleepy.mojo'),         // Austin: main | main
  alloc: path.join(CORPUS, 'mono/alloc.mlpd'),                // Mono allocations: heap types
  calls: path.join(CORPUS, 'mono/calls.mlpd'),                // Mono calls: no heap data
  v01: path.join(DATA, 'mono/v0_1-all-events.mlpd'),          // heap types, and metrics without values on them
  hits: path.join(DATA, 'mono/sample.mlpd'),                  // Mono sample hits (log:sample): timed samples
  moar: path.join(CORPUS, 'moarvm/nqp-three-snapshots.mvmheap'),
};
for (const [k, f] of Object.entries(real)) {
  if (!fs.existsSync(f)) { console.log('viewer: ' + f + ' (' + k + ') is missing: the shared corpus is needed'); process.exit(1); }
}
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(path.join(OUT, 'pages'), { recursive: true });

const failures = [];
let checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) { failures.push(what); console.log('FAIL: ' + what); }
}
function pcd(args) {
  const r = spawnSync(PROFCODEC, args, { maxBuffer: 1 << 30 });
  return { rc: r.status, out: r.stdout, err: r.stderr.toString() };
}
function convert(file, to, name) {
  const out = path.join(OUT, 'pages', name + '.' + to);
  const r = pcd(['convert', '--to', to, file, '-o', out]);
  check(r.rc === 0, name + ': convert --to ' + to + ' exit ' + r.rc + ': ' + r.err);
  return out;
}

/* The collapsed lines (Austin dialect: "P<pid>;T<tid>;file:function:line;..."), each element's
 * function (file and name: what the page merges by), name, and the default dialect's text. */
function collapsed(file, metric) {
  const m = metric ? ['--metric', metric] : [];
  const a = pcd(['convert', '--to', 'collapsed', '--dialect', 'austin', ...m, file]).out.toString().split('\n').filter((l) => l);
  // frames as read (--granularity address): line for line the austin dialect's
  const d = pcd(['convert', '--to', 'collapsed', '--dialect', 'default', '--granularity', 'address', ...m, file]).out.toString().split('\n').filter((l) => l);
  return a.map((line, i) => {
    const sp = line.lastIndexOf(' ');
    const parts = line.slice(0, sp).split(';').slice(2);
    const dl = d[i], dparts = dl.slice(0, dl.lastIndexOf(' ')).split(';');
    return {
      fns: parts.map((t) => { const b = t.lastIndexOf(':'); return b > 0 && /^\d+$/.test(t.slice(b + 1)) ? t.slice(0, b) : t; }),
      names: parts.map((t) => { const a1 = t.indexOf(':'), a2 = t.lastIndexOf(':'); return a2 > a1 ? t.slice(a1 + 1, a2) : t; }),
      texts: dparts.slice(dparts.length - parts.length),
      value: Number(line.slice(sp + 1)),
    };
  });
}
const sum = (lines) => lines.reduce((s, l) => s + l.value, 0);
/* The same lines as the SVG draws them (issue 25: grouped by function, "name (file)"): each
 * text without its line. */
const byFunction = (lines) => lines.map((l) => ({ ...l, texts: l.texts.map((t) => t.replace(/:-?\d+\)$/, ')')) }));
/* the frames a search highlights: the paths (of `key`: 'fns' by function, 'texts' by line)
 * that end in an element whose name (of `names`) matches re */
function prefixes(lines, key, re, names) {
  const s = new Set();
  for (const l of lines) if (l.value > 0) l[names || 'names'].forEach((n, i) => { if (re.test(n)) s.add(l[key].slice(0, i + 1).join(';')); });
  return s;
}
/* the share of the total of the lines with an element whose name matches re (a line once) */
const share = (lines, re) => (100 * sum(lines.filter((l) => l.names.some((n) => re.test(n)))) / sum(lines)).toFixed(2) + '%';
function grouped(v) {
  return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// ---- the browser -------------------------------------------------------------------------------

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pcd-chromium-'));
const context = await pw.chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 800 },
  deviceScaleFactor: 1,
});
const page = context.pages()[0] || await context.newPage();
let errors = [], requests = [];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.type() + ': ' + m.text()); });
page.on('pageerror', (e) => errors.push('page error: ' + e.message));
page.on('request', (r) => {
  const u = r.url();
  if (!u.startsWith('file:') && !u.startsWith('data:') && u !== 'about:blank' && !u.startsWith('http://pcd.invalid/')) requests.push(u);
});
async function open(file) {
  errors = []; requests = [];
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.pcdViewer && window.pcdViewer.ready && window.pcdViewer.firstPaint != null, null, { timeout: 20000 });
}
function clean(name) {
  check(errors.length === 0, name + ': console or page errors: ' + errors.join(' | '));
  check(requests.length === 0, name + ': requests left the page: ' + requests.join(' '));
  errors = []; requests = [];
}
const drawn = (which) => page.evaluate((w) => window.pcdViewer.drawn(w), which);
const total = () => page.evaluate(() => Number(document.getElementById('total').dataset.value));
const crumbs = () => page.$$eval('#path .crumb[data-node]', (es) => es.map((e) => e.textContent));
const frame = () => new Promise((r) => setTimeout(r, 60));
async function select(id, value) { await page.selectOption('#' + id, value); await frame(); }
async function clickTab(v) { await page.click('.tab[data-view="' + v + '"]'); await frame(); }
async function clickFrame(r) { await page.locator('#canvas').click({ position: { x: r.x + Math.min(r.w / 2, 40), y: r.y + ROW / 2 } }); await frame(); }
async function shot(name) { await page.screenshot({ path: path.join(OUT, name + '.png') }); }
/* get() again every 50 ms until ok(value) or ms have passed; the last value (a page reacts to a
 * click in its own time: on a loaded machine one frame's wait is not always enough) */
async function until(get, ok, ms = 4000) {
  const t0 = Date.now();
  let v = await get();
  while (!ok(v) && Date.now() - t0 < ms) {
    await new Promise((r) => setTimeout(r, 50));
    v = await get();
  }
  return v;
}
/* where the root row of the main canvas is in the window, and what is drawn there */
const rootSeen = () => page.evaluate(() => {
  const c = document.getElementById('canvas').getBoundingClientRect();
  const r = window.pcdViewer.drawn().find((x) => x.row === 0);
  const y = c.top + r.y + 9, x = c.left + 20;
  const hit = document.elementFromPoint(x, y);
  return { y, top: document.getElementById('main').getBoundingClientRect().top, foot: document.getElementById('legend').getBoundingClientRect().top,
    hit: hit && hit.id };
});
/* the functions drawn more than once side by side (siblings of one name and file) */
function twins(rects) {
  const seen = new Set(), out = new Set();
  for (const r of rects) {
    if (r.faded || r.node === 0) continue;
    const k = r.parent + '\0' + r.name + '\0' + r.file;
    if (seen.has(k)) out.add(r.name);
    seen.add(k);
  }
  return [...out];
}

// ---- Go: shallow, merge, search, Esc, palettes -------------------------------------------------

{
  const html = convert(real.go, 'html', 'go');
  const lines = collapsed(real.go);
  await open(html);
  clean('go');
  check(await total() === sum(lines), 'go: total ' + (await total()) + ', collapsed says ' + sum(lines));
  // shallow: the canvas as tall as the frames, at the top of its pane, the root in sight
  const geo = await page.evaluate(() => ({ canvas: document.getElementById('canvas').clientHeight, pane: document.getElementById('graph').clientHeight,
    scroll: document.getElementById('graph').scrollHeight }));
  let rects = await drawn();
  const rows = Math.max(...rects.map((r) => r.row)) + 1;
  const top = Math.min(...rects.map((r) => r.y));
  check(geo.canvas === rows * ROW + 8, 'go: the canvas is ' + geo.canvas + ' px tall for ' + rows + ' rows');
  check(geo.canvas < geo.pane && geo.scroll <= geo.pane, 'go: a shallow graph in a canvas of ' + geo.canvas + ' px, pane ' + geo.pane);
  check(top <= 8, 'go: blank above the top frame: ' + top + ' px');
  const seen = await rootSeen();
  check(seen.hit === 'canvas' && seen.y < seen.foot, 'go: the root is not in sight: ' + JSON.stringify(seen));

  // merged by function (the default): one crypto/sha256.block under its caller, no two
  // siblings of one function; the root level and search as collapsed's functions say
  check(await page.$eval('#merge', (e) => e.value) === 'function', 'go: not merged by function at first');
  check(twins(rects).length === 0, 'go: siblings of one function by function: ' + JSON.stringify(twins(rects)));
  const BLOCK = /^crypto\/sha256\.block$/;
  const blocks = rects.filter((r) => r.name === 'crypto/sha256.block');
  const blockLines = new Set(lines.flatMap((l) => l.texts.filter((t) => t.startsWith('crypto/sha256.block '))));
  check(blockLines.size >= 20, 'go: crypto/sha256.block is on ' + blockLines.size + ' lines in the collapsed output');
  const parents = prefixes(lines, 'fns', BLOCK);
  check(blocks.length === parents.size, 'go: crypto/sha256.block drawn ' + blocks.length + ' times by function, ' + parents.size + ' paths to it');
  const rootFns = new Set(lines.filter((l) => l.fns.length).map((l) => l.fns[0]));
  check(rects.filter((r) => r.row === 1).length === rootFns.size, 'go: ' + rects.filter((r) => r.row === 1).length + ' root-level frames, collapsed has ' + rootFns.size + ' functions');
  await page.fill('#search', '^crypto/sha256\\.block$');
  await frame();
  let res = await page.$eval('#search-result', (e) => ({ count: Number(e.dataset.count), pct: e.dataset.percent }));
  check(res.pct === share(lines, BLOCK), 'go: search shows ' + res.pct + ', collapsed says ' + share(lines, BLOCK));
  check(res.count === parents.size, 'go: the search counts ' + res.count + ' frames by function, ' + parents.size + ' callers');
  await shot('search');
  clean('go search');
  // by line: a frame per line, the same total and share
  await select('merge', 'line');
  rects = await drawn();
  const lineBlocks = rects.filter((r) => r.name === 'crypto/sha256.block' && !r.faded);
  const tw = twins(rects);
  check(tw.includes('crypto/sha256.block'), 'go: by line, no sibling crypto/sha256.block frames: ' + JSON.stringify(tw));
  check(new Set(lineBlocks.map((r) => r.line)).size >= 10, 'go: by line, crypto/sha256.block on ' + new Set(lineBlocks.map((r) => r.line)).size + ' lines');
  check(await total() === sum(lines), 'go: by line, total ' + (await total()));
  res = await page.$eval('#search-result', (e) => ({ count: Number(e.dataset.count), pct: e.dataset.percent }));
  check(res.pct === share(lines, BLOCK), 'go: by line, search shows ' + res.pct);
  const byLine = prefixes(lines, 'texts', BLOCK);
  check(res.count === byLine.size, 'go: by line, the search counts ' + res.count + ' frames, collapsed ' + byLine.size);
  await shot('merge-by-line');
  await page.fill('#search', '');
  await select('merge', 'function');
  clean('go merge');

  // an invalid regex says so in words
  await page.fill('#search', 'sha256.(block');
  await frame();
  const bad = await page.evaluate(() => ({ text: document.getElementById('search-result').textContent, invalid: document.getElementById('search').getAttribute('aria-invalid'),
    lit: window.pcdViewer.drawn().filter((r) => r.match).length }));
  check(/^Not a regular expression: unterminated group/.test(bad.text), 'go: an invalid regex says ' + JSON.stringify(bad.text));
  check(bad.invalid === 'true' && bad.lit === 0, 'go: an invalid regex: aria-invalid ' + bad.invalid + ', ' + bad.lit + ' frames lit');
  await shot('search-invalid');
  await page.fill('#search', 'sha256\\.(block|Sum256)');
  await frame();
  check(await page.$eval('#search-result', (e) => !e.classList.contains('bad') && Number(e.dataset.count) > 0), 'go: a valid regex after an invalid one');
  await page.fill('#search', '');
  clean('go regex');

  // Esc: one press zooms all the way out
  rects = await drawn();
  await clickFrame(rects.find((r) => r.name === 'main.main.func1'));
  await clickFrame((await drawn()).find((r) => r.name === 'main.hashLoop' && !r.faded));
  await clickFrame((await drawn()).find((r) => r.name === 'crypto/sha256.Sum256' && !r.faded));
  check((await crumbs()).length === 4, 'go: three clicks give the breadcrumbs ' + JSON.stringify(await crumbs()));
  await page.locator('#canvas').hover({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Escape');
  await frame();
  check((await crumbs()).length === 1 && await page.evaluate(() => window.pcdViewer.state.zoom) === 0, 'go: after one Esc the breadcrumbs are ' + JSON.stringify(await crumbs()));
  check(/Esc[^.;]*zooms all the way out/.test(await page.$eval('#foot', (e) => e.textContent)), 'go: the footer does not say what Esc does');

  // palettes: by kind (Go's frames are all code), by package with its legend
  const legend = () => page.$$eval('#legend-items .legend-item', (es) => es.map((e) => [e.dataset.label, getComputedStyle(e.querySelector('.sw')).backgroundColor]));
  check(JSON.stringify((await legend()).map((x) => x[0])) === '["code"]', 'go: the kinds\' legend ' + JSON.stringify(await legend()));
  await select('palette', 'package');
  const lg = await legend();
  const names = lg.map((x) => x[0]);
  for (const p of ['main', 'crypto/sha256', 'runtime', 'sort']) check(names.includes(p), 'go: the packages\' legend has no ' + p + ': ' + JSON.stringify(names));
  rects = await drawn();
  const rgbOf = (s) => s.match(/\d+/g).slice(0, 3).map(Number);
  const near = (a, b) => a.every((x, i) => Math.abs(x - b[i]) <= 0.12 * b[i] + 3);
  for (const [p, c] of lg) {
    const of = rects.filter((r) => r.package === p && !r.faded && r.node);
    check(of.length > 0 && of.every((r) => near(rgbOf(r.fill), rgbOf(c))), 'go: frames of ' + p + ' are not coloured as its swatch ' + c + ': ' + JSON.stringify(of.slice(0, 3).map((r) => r.fill)));
  }
  check(rects.filter((r) => r.name.startsWith('crypto/sha256.')).every((r) => r.package === 'crypto/sha256'), 'go: crypto/sha256\'s frames are not of its package');
  check(rects.filter((r) => r.name === 'cmpbody').every((r) => r.package === 'internal/bytealg'), 'go: cmpbody (assembly) is not of internal/bytealg');
  await shot('flame');
  clean('go palettes');
}

// ---- Tachyon: metadata, sandwich, time order; a deep graph -------------------------------------

{
  const html = convert(real.threads, 'html', 'threads');
  const lines = collapsed(real.threads);
  await open(html);
  clean('threads');
  // metadata: floats rounded, the exact value in the tooltip; the graph stays in sight
  const meta = await page.$$eval('#meta-list span', (es) => es.map((e) => [e.textContent, e.title]));
  const dur = meta.find((m) => m[0].startsWith('duration_sec = '));
  check(dur && dur[0] === 'duration_sec = 1.522' && dur[1].includes('1.5220000099999993'), 'threads: the duration shows ' + JSON.stringify(dur));
  check(meta.every((m) => !/\d\.\d{7,}/.test(m[0])), 'threads: raw floats in the metadata: ' + meta.filter((m) => /\d\.\d{7,}/.test(m[0])).map((m) => m[0]));
  await page.click('#meta summary');
  await frame();
  let seen = await until(rootSeen, (v) => v.hit === 'canvas' && v.y > v.top && v.y < v.foot);
  check(seen.hit === 'canvas' && seen.y > seen.top && seen.y < seen.foot, 'threads: with the metadata open the root is not in sight: ' + JSON.stringify(seen));
  await page.click('#meta summary');

  // merged by function: <module> once under its caller; by line, twice
  check(twins(await drawn()).length === 0, 'threads: siblings of one function by function: ' + JSON.stringify(twins(await drawn())));
  await select('merge', 'line');
  const tw = twins(await drawn());
  check(tw.includes('<module>'), 'threads: by line, no <module> twice side by side: ' + JSON.stringify(tw));
  await select('merge', 'function');

  // the sandwich: a File column, sorted by self and total both ways
  await clickTab('sandwich');
  const head = await page.$$eval('#sw-table thead th', (es) => es.map((e) => e.textContent.replace(/ [▾▴]$/, '')));
  check(JSON.stringify(head) === '["Function","File","Self","Total"]', 'threads: the sandwich\'s columns ' + JSON.stringify(head));
  const table = () => page.$$eval('#sw-table tbody tr[data-fn]', (rs) => rs.map((r) => ({ name: r.cells[0].textContent, file: r.cells[1].textContent,
    fullFile: r.cells[1].title, self: Number(r.cells[2].dataset.value), total: Number(r.cells[3].dataset.value) })));
  let t = await table();
  const modules = t.filter((r) => r.name === '<module>');
  check(modules.length >= 2 && new Set(modules.map((r) => r.file)).size === modules.length, 'threads: the <module> rows ' + JSON.stringify(modules));
  const sorted = (xs, k, desc) => xs.every((r, i) => i === 0 || (desc ? xs[i - 1][k] >= r[k] : xs[i - 1][k] <= r[k]));
  check(sorted(t, 'total', true), 'threads: not sorted by total at first');
  await page.click('#sw-table th[data-sort="self"]');
  t = await table();
  check(sorted(t, 'self', true), 'threads: not sorted by self, largest first');
  // the largest self: collapsed's last frames by function
  const selfBy = new Map();
  for (const l of lines) if (l.fns.length) selfBy.set(l.fns.at(-1), (selfBy.get(l.fns.at(-1)) || 0) + l.value);
  const best = [...selfBy.entries()].sort((a, b) => b[1] - a[1])[0];
  check(t[0].self === best[1] && best[0].endsWith(':' + t[0].name) && best[0].startsWith(t[0].fullFile), 'threads: the first by self is ' + JSON.stringify(t[0]) + ', collapsed says ' + best);
  await shot('sandwich');
  await page.click('#sw-table th[data-sort="self"]');
  check(sorted(await table(), 'self', false), 'threads: a second click does not sort by self the other way');
  await page.click('#sw-table th[data-sort="file"]');
  t = await table();
  check(t.every((r, i) => i === 0 || t[i - 1].fullFile <= r.fullFile), 'threads: not sorted by file');
  await page.click('#sw-table th[data-sort="total"]');
  check(sorted(await table(), 'total', true), 'threads: not sorted by total again');
  clean('threads sandwich');

  // the time order: two zooms, one Esc back to the whole run
  await clickTab('chart');
  const boxes = (await drawn('chart')).filter((b) => b.w > 30).sort((a, b) => b.w - a.w);
  await shot('order');
  const c = await page.$eval('#chart-canvas', (e) => e.getBoundingClientRect().top);
  await page.locator('#chart-canvas').click({ position: { x: boxes[0].x + 10, y: boxes[0].y + 8 } });
  await frame();
  const b2 = (await drawn('chart')).filter((b) => b.row > 0 && b.w > 20)[0];
  if (b2) await page.locator('#chart-canvas').click({ position: { x: b2.x + 10, y: b2.y + 8 } });
  await frame();
  check((await page.$$('#path .crumb')).length === 2, 'threads: the time order did not zoom (' + c + ')');
  await page.keyboard.press('Escape');
  await frame();
  check(/^whole (run|profile)$/.test(await page.$eval('#path', (e) => e.textContent)), 'threads: after one Esc the time order shows ' + await page.$eval('#path', (e) => e.textContent));
  clean('threads time order');
}
{
  const html = convert(real.deep, 'html', 'deep');
  await open(html);
  clean('deep');
  const g = await page.evaluate(() => ({ pane: document.getElementById('graph').clientHeight, scroll: document.getElementById('graph').scrollHeight }));
  check(g.scroll > g.pane, 'deep: the graph is not taller than its pane');
  let seen = await rootSeen();
  check(seen.hit === 'canvas' && seen.y < seen.foot, 'deep: opens without its root in sight: ' + JSON.stringify(seen));
  await page.click('#meta summary');
  await frame();
  seen = await until(rootSeen, (v) => v.hit === 'canvas' && v.y > v.top && v.y < v.foot);
  check(seen.hit === 'canvas' && seen.y > seen.top && seen.y < seen.foot, 'deep: with the metadata open the root is not in sight: ' + JSON.stringify(seen));
  const raw = await page.$$eval('#meta-list span', (es) => es.filter((e) => /\d\.\d{7,}/.test(e.textContent)).length);
  check(raw === 0, 'deep: ' + raw + ' raw floats in the metadata');
  await shot('metadata');
  clean('deep metadata');
}

// ---- MOJO: main | main ---------------------------------------------------------------------------

{
  const html = convert(real.sleepy, 'html', 'sleepy');
  const lines = collapsed(real.sleepy);
  await open(html);
  clean('sleepy');
  const rects = await drawn();
  check(twins(rects).length === 0, 'sleepy: siblings of one function by function: ' + JSON.stringify(twins(rects)));
  check(rects.filter((r) => r.name === 'main' && !r.faded).length === 1, 'sleepy: main is drawn ' + rects.filter((r) => r.name === 'main').length + ' times by function');
  await select('merge', 'line');
  const tw = twins(await drawn());
  check(tw.includes('main'), 'sleepy: by line, main is not twice side by side: ' + JSON.stringify(tw));
  check(await total() === sum(lines), 'sleepy: by line, total ' + (await total()) + ', collapsed says ' + sum(lines));
  clean('sleepy merge');
}

// ---- heap types: Mono with and without heap data, MoarVM ----------------------------------------

/* the heap types' tables: per h2 "By METRIC (...)", its rows' type and value texts */
const typeTables = () => page.$$eval('#types .tables > div', (ds) => ds.map((d) => ({ h: d.querySelector('h2').textContent,
  rows: [...d.querySelectorAll('tbody tr')].map((r) => [r.dataset.type, r.cells[1].textContent]) })));
{
  const html = convert(real.alloc, 'html', 'mono-alloc');
  await open(html);
  clean('mono-alloc');
  check(await page.$('.tab[data-view="types"]') !== null, 'mono-alloc: no heap types tab');
  await clickTab('types');
  const heads = await page.$$eval('#types h2', (hs) => hs.map((h) => h.textContent));
  check(heads.every((h) => !h.includes('()')), 'mono-alloc: empty parentheses in ' + JSON.stringify(heads));
  const tables = await typeTables();
  check(tables.length === 2, 'mono-alloc: ' + tables.length + ' tables of types');
  check(tables.every((tb) => tb.rows.length > 0 && tb.rows.every((r) => !/^0( |$)/.test(r[1]))), 'mono-alloc: a row of zero');
  // the types as collapsed's last frames (heap types) sum them
  const byType = new Map();
  for (const l of collapsed(real.alloc, 'alloc-bytes')) byType.set(l.names.at(-1), (byType.get(l.names.at(-1)) || 0) + l.value);
  const want = [...byType.entries()].filter((e) => e[1] > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50).map((e) => e[0]);
  const bytes = tables.find((tb) => tb.h.startsWith('By Allocated bytes'));
  check(bytes && JSON.stringify(bytes.rows.map((r) => r[0])) === JSON.stringify(want), 'mono-alloc: types by bytes ' + JSON.stringify(bytes && bytes.rows.slice(0, 5)) + ', collapsed says ' + JSON.stringify(want.slice(0, 5)));
  await shot('heap-types');
  clean('mono-alloc types');
}
{
  const html = convert(real.v01, 'html', 'mono-v01');
  await open(html);
  clean('mono-v01');
  await clickTab('types');
  const tables = await typeTables();
  const hs = tables.map((tb) => tb.h.replace(/ \(.*$/, ''));
  check(JSON.stringify(hs) === '["By Allocated bytes","By Allocations"]', 'mono-v01: tables ' + JSON.stringify(hs) + ' (calls and time have no values on types)');
  check(tables.every((tb) => tb.rows.every((r) => !/^0( |$)/.test(r[1]))), 'mono-v01: a row of zero');
  check(/Calls, Self time: no values on heap types/.test(await page.$eval('#types', (e) => e.textContent)), 'mono-v01: does not say which metrics have no values on types');
  clean('mono-v01 types');
}
{
  const html = convert(real.calls, 'html', 'mono-calls');
  await open(html);
  clean('mono-calls');
  check(await page.$('.tab[data-view="types"]') === null, 'mono-calls: a heap types tab for a file without heap data');
  check(await page.$eval('#types', (e) => e.textContent) === '', 'mono-calls: heap types shown');
  // the time order of Mono's calls (its enter/leave slices per thread, as chrome shows them):
  // every call of the main thread a box at its depth, the widest the longest call chrome has
  const chrome = JSON.parse(pcd(['convert', '--to', 'chrome', real.calls]).out.toString());
  const calls = (chrome.traceEvents || chrome).filter((e) => e.ph === 'X');
  const byTid = new Map();
  for (const e of calls) byTid.set(e.tid, (byTid.get(e.tid) || 0) + 1);
  const mainTid = [...byTid.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const longest = calls.filter((e) => e.tid === mainTid).sort((a, b) => b.dur - a.dur)[0];
  check(await page.$('.tab[data-view="chart"]:not([hidden])') !== null, 'mono-calls: no time order tab');
  const thr = await page.evaluate(() => window.pcdViewer.threads().map((t) => t.tid));
  const ti = thr.indexOf(String(mainTid));
  check(ti >= 0, 'mono-calls: the main thread ' + mainTid + ' is not among the page threads ' + JSON.stringify(thr));
  await select('thread', 't:' + ti);
  await clickTab('chart');
  const boxes = await drawn('chart');
  const widest = [...boxes].sort((a, b) => b.w - a.w)[0];
  check(widest && widest.name === longest.name && widest.row === 0,
        'mono-calls: the widest box of the time order is ' + JSON.stringify(widest) + ', chrome\'s longest call ' + longest.name);
  const rows = new Set(boxes.map((b) => b.row));
  check(rows.size >= 4, 'mono-calls: the time order has ' + rows.size + ' depths');
  await shot('order-mono');
  clean('mono-calls time order');
}
{
  // the time order of Mono's sample hits (timed samples on their sampled threads): the main
  // thread's boxes at depth 0 are chrome's X events of its hits at depth 0, in the same order
  // (chrome draws the same samples), and the thread's hits add up to top's total
  const html = convert(real.hits, 'html', 'mono-hits');
  await open(html);
  clean('mono-hits');
  const chrome = JSON.parse(pcd(['convert', '--to', 'chrome', real.hits]).out.toString());
  const xs = (chrome.traceEvents || chrome).filter((e) => e.ph === 'X');
  const byTid = new Map();
  for (const e of xs) byTid.set(e.tid, (byTid.get(e.tid) || 0) + 1);
  const mainTid = [...byTid.entries()].sort((a, b) => b[1] - a[1])[0][0];
  // depth 0: the X events no other event of the thread encloses (of equal spans, the outer one
  // comes last: chrome closes levels innermost first)
  const mine = xs.map((e, i) => ({ ...e, i })).filter((e) => e.tid === mainTid).sort((a, b) => a.ts - b.ts || b.dur - a.dur || b.i - a.i);
  const outer = [];
  let until = -Infinity;
  for (const e of mine) if (e.ts >= until - 0.0005) { outer.push(e); until = e.ts + e.dur; } // (µs: sums of floats)
  check(await page.$('.tab[data-view="chart"]:not([hidden])') !== null, 'mono-hits: no time order tab');
  const thr = await page.evaluate(() => window.pcdViewer.threads().map((t) => t.tid));
  const ti = thr.indexOf(String(mainTid));
  check(ti >= 0, 'mono-hits: the main thread ' + mainTid + ' is not among the page threads ' + JSON.stringify(thr));
  await select('thread', 't:' + ti);
  await clickTab('chart');
  const boxes = (await drawn('chart')).filter((b) => b.row === 0).sort((a, b) => a.x - b.x);
  // (the page leaves out boxes too narrow to see: chrome's depth 0 events of 1 % of the thread's
  // span or more are all there, and the page has none that chrome has not, in the same order)
  const names = boxes.map((b) => b.name), want = outer.map((e) => e.name);
  const span = outer.length ? outer[outer.length - 1].ts + outer[outer.length - 1].dur - outer[0].ts : 0;
  const big = outer.filter((e) => e.dur >= span / 100).map((e) => e.name);
  const within = (a, b) => { let j = 0; for (const x of b) if (j < a.length && a[j] === x) j++; return j === a.length; };
  check(big.length >= 1 && names.length >= 3 && within(big, names) && within(names, want),
        'mono-hits: the time order\'s depth 0 is ' + JSON.stringify(names) + ', chrome\'s ' + JSON.stringify(want) + ' (of 1 % or more: ' + JSON.stringify(big) + ')');
  await shot('order-mono-hits');
  clean('mono-hits time order');
}
{
  const html = convert(real.moar, 'html', 'moarvm');
  await open(html);
  clean('moarvm');
  check(await page.evaluate(() => window.pcdViewer.state.view) === 'icicle', 'moarvm: does not open as an icicle');
  const kinds = await page.$$eval('#legend-items .legend-item', (es) => es.map((e) => e.dataset.label));
  check(kinds.includes('heap type') && kinds.includes('heap root'), 'moarvm: the kinds\' legend ' + JSON.stringify(kinds));
  await shot('heap-icicle');
  await clickTab('types');
  const heads = await page.$$eval('#types h2', (hs) => hs.map((h) => h.textContent));
  check(heads[0] === 'Top types in snapshot 2', 'moarvm: the heading ' + JSON.stringify(heads[0]));
  const growth = await page.$$eval('#types > table tbody tr', (rs) => rs.map((r) => [...r.cells].slice(1, -1).map((c) => c.textContent)));
  check(growth.length > 0 && growth.every((r) => r.some((v) => v !== '–')), 'moarvm: a growth row without a value');
  clean('moarvm types');
}

// ---- the SVG ------------------------------------------------------------------------------------

{
  const svg = convert(real.go, 'svg', 'go');
  const lines = byFunction(collapsed(real.go));
  errors = []; requests = [];
  const url = pathToFileURL(svg).href;
  await page.goto(url);
  const head = await page.$eval('#what', (e) => e.textContent);
  // (pprof's samples are records: `info` counts them)
  const records = JSON.parse(pcd(['info', '--json', real.go]).out.toString()).summary.samples;
  check(head === 'widths: cpu in nanoseconds, ' + grouped(sum(lines)) + ' in total (690 ms) from ' + grouped(records) + ' sample records',
    'go.svg: the header says ' + JSON.stringify(head));
  check(await page.$eval('#search', (e) => !e.classList.contains('hide')), 'go.svg: no Search control');
  const geom = () => page.$$eval('#frames > g', (gs) => gs.map((g) => {
    const r = g.querySelector('rect');
    return { title: g.querySelector('title').textContent, x: Number(r.getAttribute('x')), w: Number(r.getAttribute('width')), y: Number(r.getAttribute('y')),
      hidden: getComputedStyle(g).display === 'none', parent: g.classList.contains('parent') };
  }));
  const before = await geom();
  // click a frame: it fills the width, its descendants with it, its ancestors faded, the rest hidden
  const target = before.filter((f) => f.title.startsWith('crypto/sha256.Sum256 ')).sort((a, b) => b.w - a.w)[0];
  const idx = before.indexOf(target);
  await page.locator('#frames > g').nth(idx).click({ position: { x: 20, y: 8 } });
  let after = await geom();
  const z = after[idx];
  check(Math.abs(z.x - 10) < 0.01 && Math.abs(z.w - 1180) < 0.01, 'go.svg: the frame clicked is at ' + z.x + ' width ' + z.w);
  const kids = after.filter((f, i) => !f.hidden && !f.parent && i !== idx);
  const inside = (f, i) => before[i].x >= target.x - 0.02 && before[i].x + before[i].w <= target.x + target.w + 0.02;
  check(kids.length > 0 && after.every((f, i) => f.hidden || f.parent || i === idx || inside(f, i)), 'go.svg: a frame outside the one clicked is shown');
  const ancestors = before.filter((f) => f.y > target.y && f.x <= target.x + 0.02 && f.x + f.w >= target.x + target.w - 0.02);
  check(after.filter((f) => f.parent).length === ancestors.length && ancestors.length === 3, 'go.svg: ' + after.filter((f) => f.parent).length + ' frames shown as ancestors, ' +
    JSON.stringify(ancestors.map((f) => f.title)));
  check(await page.$eval('#unzoom', (e) => !e.classList.contains('hide')), 'go.svg: no Reset Zoom when zoomed');
  const clip = await page.evaluate(() => ({ x: 0, y: 0, width: document.documentElement.width.baseVal.value, height: document.documentElement.height.baseVal.value }));
  await page.screenshot({ path: path.join(OUT, 'svg-zoom.png'), clip });
  await page.click('#unzoom');
  after = await geom();
  check(after.every((f, i) => !f.hidden && !f.parent && f.x === before[i].x && f.w === before[i].w), 'go.svg: Reset Zoom does not give the picture back');
  await page.locator('#frames > g').nth(idx).click({ position: { x: 20, y: 8 } });
  await page.keyboard.press('Escape');
  check((await geom()).every((f) => !f.hidden), 'go.svg: Esc does not zoom out');
  // search through the prompt, as flamegraph.pl asks
  page.once('dialog', (d) => d.accept('^crypto/sha256\\.block '));
  await page.click('#search');
  let m = await page.$eval('#matched', (e) => ({ pct: e.dataset.percent, text: e.textContent }));
  const want = share(lines.map((l) => ({ ...l, names: l.texts })), /^crypto\/sha256\.block /);
  check(m.pct === want, 'go.svg: the search matched ' + JSON.stringify(m) + ', collapsed says ' + want);
  const lit = await page.$$eval('#frames rect', (rs) => rs.filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length);
  const wantLit = prefixes(lines, 'texts', /^crypto\/sha256\.block /, 'texts').size;
  check(lit === wantLit, 'go.svg: ' + lit + ' frames lit, collapsed has ' + wantLit);
  await page.locator('#frames > g').nth(idx).click({ position: { x: 20, y: 8 } });
  await page.screenshot({ path: path.join(OUT, 'svg.png'), clip });
  clean('go.svg');
  // ?s= and an invalid regex in words
  await page.goto(url + '?s=' + encodeURIComponent('sha256.(block'));
  m = await page.$eval('#matched', (e) => ({ text: e.textContent, err: e.classList.contains('err') }));
  check(m.err && /^Not a regular expression: unterminated group/.test(m.text), 'go.svg: an invalid regex says ' + JSON.stringify(m));
  await page.goto(url + '?s=' + encodeURIComponent('^runtime\\.'));
  m = await page.$eval('#matched', (e) => e.dataset.percent);
  check(m === share(lines, /^runtime\./), 'go.svg: ?s= matched ' + m + ', collapsed says ' + share(lines, /^runtime\./));
  clean('go.svg ?s=');
  // served with a strict CSP: the script and the style allowed by their hashes only
  const body = fs.readFileSync(svg, 'utf8');
  const hash = (s) => "'sha256-" + crypto.createHash('sha256').update(s, 'utf8').digest('base64') + "'";
  const js = body.slice(body.indexOf('<![CDATA[') + 9, body.indexOf(']]></script>'));
  const css = body.slice(body.indexOf('<style type="text/css">') + 23, body.indexOf('</style>'));
  await page.route('http://pcd.invalid/**', (r) => r.fulfill({ status: 200, contentType: 'image/svg+xml', body,
    headers: { 'Content-Security-Policy': "default-src 'none'; script-src " + hash(js) + '; style-src ' + hash(css) } }));
  await page.goto('http://pcd.invalid/go.svg?s=' + encodeURIComponent('^crypto/sha256\\.block '));
  m = await page.$eval('#matched', (e) => e.dataset.percent);
  check(m === want, 'go.svg under a strict CSP: the search matched ' + m + ' (the script did not run?)');
  check(await page.$eval('#title', (e) => getComputedStyle(e).fontSize) === '17px', 'go.svg under a strict CSP: the style did not apply');
  await page.locator('#frames > g').nth(idx).click({ position: { x: 20, y: 8 } });
  check(await page.evaluate(() => window.pcdSvg.zoomed()) === target.title.slice(0, target.title.lastIndexOf(' (')), 'go.svg under a strict CSP: no zoom');
  clean('go.svg under a CSP');
  await page.unroute('http://pcd.invalid/**');
}

// ---- signed values and frames named by address (pprof, issue 21) ------------------------------

{
  const crafted = (f) => {
    const out = path.join(OUT, 'pages', f + '.pprof');
    const r = pcd(['encode', path.join(here, f === 'heap_delta' ? '.' : '../pprof/crafted', f + '.jsonl'), '-o', out]);
    check(r.rc === 0, f + ': encode exit ' + r.rc + ': ' + r.err);
    return out;
  };
  // a difference of heap profiles, every metric with negative values: a flame graph cannot
  // draw them as widths; said, and nothing written
  const neg = crafted('negative');
  for (const to of ['html', 'svg']) {
    const out = path.join(OUT, 'pages', 'negative.' + to);
    const r = pcd(['convert', '--to', to, neg, '-o', out]);
    check(r.rc === 1 && !fs.existsSync(out) && new RegExp('has negative values \\(a difference of profiles\\), which ' + to + ' cannot draw as widths').test(r.err),
      'negative --to ' + to + ': exit ' + r.rc + ', ' + (fs.existsSync(out) ? 'written' : 'not written') + ': ' + r.err.trim());
  }
  // a delta of a heap profile: allocations only grew, what is in use grew and shrank
  const delta = crafted('heap_delta');
  const lines = collapsed(delta, 'alloc_space');
  const out = path.join(OUT, 'pages', 'heap_delta.html');
  let r = pcd(['convert', '--to', 'html', '--metric', 'alloc_space', delta, '-o', out]);
  check(r.rc === 0 && /leaves out inuse_objects/.test(r.err) && /leaves out inuse_space/.test(r.err), 'heap_delta --to html: exit ' + r.rc + ': ' + r.err.trim());
  await open(out);
  clean('heap_delta');
  const metrics = await page.$$eval('#metric option', (os2) => os2.map((o) => o.textContent));
  check(JSON.stringify(metrics) === '["alloc_objects","alloc_space (bytes)"]', 'heap_delta: the metrics offered ' + JSON.stringify(metrics));
  check(await total() === sum(lines), 'heap_delta: total ' + (await total()) + ', collapsed says ' + sum(lines));
  // by function: Marshal once under handle (its lines 30 and 31 are one function), by line twice
  const width = (rs, name) => rs.filter((x) => x.name === name && !x.faded);
  const rootW = (rs) => rs.find((x) => x.row === 0).w;
  let rects = await drawn();
  const marshal = width(rects, 'encoding/json.Marshal');
  const wantFn = sum(lines.filter((l) => l.names.includes('encoding/json.Marshal')));
  check(marshal.length === 1 && Math.abs(marshal[0].w - rootW(rects) * wantFn / sum(lines)) < 0.5,
    'heap_delta: by function, Marshal drawn ' + JSON.stringify(marshal.map((x) => x.w)) + ', collapsed says ' + wantFn + ' of ' + sum(lines));
  check(twins(rects).length === 0, 'heap_delta: siblings of one function by function: ' + JSON.stringify(twins(rects)));
  await select('merge', 'line');
  rects = await drawn();
  const byLine = width(rects, 'encoding/json.Marshal').map((x) => x.line).sort();
  check(JSON.stringify(byLine) === '[30,31]', 'heap_delta: by line, Marshal on lines ' + JSON.stringify(byLine));
  check(await total() === sum(lines), 'heap_delta: by line, total ' + (await total()));
  await select('merge', 'function');
  await page.fill('#search', '^encoding/json\\.');
  await frame();
  const res = await page.$eval('#search-result', (e) => e.dataset.percent);
  check(res === share(lines, /^encoding\/json\./), 'heap_delta: search shows ' + res + ', collapsed says ' + share(lines, /^encoding\/json\./));
  await page.fill('#search', '');
  await select('metric', String(await page.$eval('#metric', (e) => [...e.options].find((o) => o.textContent === 'alloc_objects').value)));
  const objects = sum(collapsed(delta, 'alloc_objects'));
  check(await total() === objects, 'heap_delta: alloc_objects total ' + (await total()) + ', collapsed says ' + objects);
  await shot('heap-delta');
  clean('heap_delta metrics');
  // the SVG of alloc_space: its total, zoom and search
  const svgOut = path.join(OUT, 'pages', 'heap_delta.svg');
  r = pcd(['convert', '--to', 'svg', '--metric', 'alloc_space', delta, '-o', svgOut]);
  check(r.rc === 0, 'heap_delta --to svg: exit ' + r.rc + ': ' + r.err.trim());
  errors = []; requests = [];
  await page.goto(pathToFileURL(svgOut).href + '?s=' + encodeURIComponent('^encoding/json\\.'));
  const head = await page.$eval('#what', (e) => e.textContent);
  check(head.startsWith('widths: alloc_space in bytes, ' + grouped(sum(lines)) + ' in total '), 'heap_delta.svg: the header says ' + JSON.stringify(head));
  const m = await page.$eval('#matched', (e) => e.dataset.percent);
  check(m === share(lines, /^encoding\/json\./), 'heap_delta.svg: ?s= matched ' + m + ', collapsed says ' + share(lines, /^encoding\/json\./));
  const zoomed = await page.evaluate(() => {
    const f = window.pcdSvg.frames.find((x) => x.name.startsWith('main.handle '));
    return f && window.pcdSvg.zoom(f.name) && window.pcdSvg.zoomed();
  });
  check(zoomed === 'main.handle (main.go)', 'heap_delta.svg: zoomed on ' + JSON.stringify(zoomed) + ', not main.handle');
  clean('heap_delta.svg');

  // unsymbolized native code: frames named by address and module, as go tool pprof names them
  const uns = crafted('unsymbolized');
  const ulines = collapsed(uns);
  const names = new Set(ulines.flatMap((l) => l.texts));
  check([...names].some((n) => /^[0-9a-f]{16} \[libc\.so\.6\]$/.test(n)), 'unsymbolized: collapsed names no frame by address: ' + JSON.stringify([...names]));
  await open(convert(uns, 'html', 'unsymbolized'));
  clean('unsymbolized');
  rects = await drawn();
  const shown = new Set(rects.filter((x) => x.node !== 0).map((x) => x.name));
  check(JSON.stringify([...shown].sort()) === JSON.stringify([...names].sort()), 'unsymbolized: the page shows ' + JSON.stringify([...shown].sort()) +
    ', collapsed ' + JSON.stringify([...names].sort()));
  check(await total() === sum(ulines), 'unsymbolized: total ' + (await total()) + ', collapsed says ' + sum(ulines));
  await page.fill('#search', '\\[server\\]$');
  await frame();
  const us = await page.$eval('#search-result', (e) => e.dataset.percent);
  const uwant = share(ulines.map((l) => ({ ...l, names: l.texts })), /\[server\]$/);
  check(us === uwant, 'unsymbolized: search shows ' + us + ', collapsed says ' + uwant);
  await page.fill('#search', '');
  await select('palette', 'package');
  const legend = await page.$$eval('#legend-items .legend-item', (es) => es.map((e) => e.dataset.label));
  check(legend.includes('libc.so.6') && legend.includes('server'), 'unsymbolized: the modules\' legend ' + JSON.stringify(legend));
  await shot('unsymbolized');
  clean('unsymbolized palette');
  const usvg = convert(uns, 'svg', 'unsymbolized');
  errors = []; requests = [];
  await page.goto(pathToFileURL(usvg).href + '?s=' + encodeURIComponent('\\[server\\]$'));
  const titles = await page.$$eval('#frames > g title', (ts) => ts.map((t) => t.textContent.slice(0, t.textContent.lastIndexOf(' ('))));
  check(JSON.stringify([...new Set(titles.slice(1))].sort()) === JSON.stringify([...names].sort()), 'unsymbolized.svg: the frames ' + JSON.stringify(titles));
  check(await page.$eval('#matched', (e) => e.dataset.percent) === uwant, 'unsymbolized.svg: ?s= matched ' + await page.$eval('#matched', (e) => e.dataset.percent));
  clean('unsymbolized.svg');
}

await context.close();
fs.rmSync(profile, { recursive: true, force: true });
console.log('viewer: ' + checks + ' checks, ' + failures.length + ' failures; screenshots in ' + OUT);
process.exit(failures.length ? 1 : 0);
