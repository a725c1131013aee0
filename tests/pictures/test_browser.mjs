// test_browser.mjs: the HTML pages and SVG flame graphs in a real browser (Debian's chromium,
// headless, driven by playwright-core from tests/web; no browser is ever downloaded).
//
// For every format that `profcodec formats --json` lists html for, every file of tests/data
// (tests/data/PROVENANCE) is converted and opened, and checked against our collapsed output of
// the same input (an independent path: aggregated lines, not the page's data):
//   - no console error, no page error, no request leaves the page;
//   - the root total shown, and the frames drawn at the root level;
//   - a regex search for a known function: how many frames it highlights, the % shown;
//   - a click zooms in (breadcrumbs), the first breadcrumb goes back;
//   - switching thread, process and metric gives their totals;
//   - the time order and sandwich views draw;
//   - a differential page of two inputs colours frames both ways;
//   - the SVG loads without errors.
// The pages test_pictures wrote (synthetic/: heap snapshots, allocations, a timed profile, a
// cross-format diff) are checked against what they were built from. A screenshot per format
// and the README's pictures go to OUT. One browser, one page, reused.
//
// usage: node test_browser.mjs PROFCODEC TESTDATA CORPUS SYNTHETIC_DIR OUT
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [PROFCODEC, DATA, CORPUS, SYNTH, OUT] = process.argv.slice(2);
const CHROMIUM = process.env.PCD_CHROMIUM || '/usr/bin/chromium';
const JS_MAX = 2 ** 53 - 1;

let pw;
try {
  pw = await import(pathToFileURL(path.join(here, '../web/node_modules/playwright-core/index.mjs')).href);
} catch (e) {
  console.log('browser: playwright-core is not installed (run scripts/setup-deps.sh): ' + e.message);
  process.exit(1);
}
if (!fs.existsSync(CHROMIUM)) {
  console.log('browser: ' + CHROMIUM + ' is missing (run scripts/setup-deps.sh: it installs Debian\'s chromium)');
  process.exit(1);
}
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(path.join(OUT, 'pages'), { recursive: true });
fs.mkdirSync(path.join(OUT, 'readme'), { recursive: true });

const failures = [];
let checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) { failures.push(what); console.log('FAIL: ' + what); }
}
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 0.5;

function pcd(args, okCodes = [0]) {
  const r = spawnSync(PROFCODEC, args, { maxBuffer: 1 << 30 });
  return { rc: r.status, out: r.stdout, err: r.stderr.toString() };
}

// ---- what the collapsed output says ------------------------------------------------------------

/* The lines of `convert --to collapsed` in the austin dialect (its thread part is always
 * "P<pid>;T<tid>") zipped with the default dialect's (its frames: "name (file:line)"): per
 * element its text (a frame per line, as the page merged by line shows them), its function
 * (file:name, as the page merged by function shows them) and its name. */
const collapsedOf = new Map();   // (each file and metric converted once)
function collapsed(file, metric) {
  const key = file + '\0' + (metric || '');
  if (!collapsedOf.has(key)) collapsedOf.set(key, collapsed0(file, metric));
  return collapsedOf.get(key);
}
function collapsed0(file, metric) {
  const m = metric ? ['--metric', metric] : [];
  const a = pcd(['convert', '--to', 'collapsed', '--dialect', 'austin', ...m, file]);
  // frames as read (--granularity address): line for line the austin dialect's, whose bytes keep them
  const d = pcd(['convert', '--to', 'collapsed', '--dialect', 'default', '--granularity', 'address', ...m, file]);
  const al = a.out.toString().split('\n').filter((l) => l), dl = d.out.toString().split('\n').filter((l) => l);
  if (al.length !== dl.length) throw new Error(file + ': the two dialects give ' + al.length + ' and ' + dl.length + ' lines');
  return al.map((line, i) => {
    const sp = line.lastIndexOf(' ');
    const parts = line.slice(0, sp).split(';');
    const n = parts.length - 2;
    const dline = dl[i], dsp = dline.lastIndexOf(' ');
    const dparts = dline.slice(0, dsp).split(';');
    const texts = n > 0 ? dparts.slice(dparts.length - n) : [];
    return {
      thread: parts[0] + ';' + parts[1],
      texts,
      fns: parts.slice(2).map((t) => { const b = t.lastIndexOf(':'); return b > 0 && /^\d+$/.test(t.slice(b + 1)) ? t.slice(0, b) : t; }),
      // the function's name, from Austin's file:function:line (a marker or label as it is)
      names: parts.slice(2).map((t, i) => {
        if (t === ':GC:' || t === ':INVALID:') return texts[i];
        const a1 = t.indexOf(':'), a2 = t.lastIndexOf(':');
        return a2 > a1 ? t.slice(a1 + 1, a2) : t;
      }),
      value: Math.min(Number(line.slice(sp + 1)), JS_MAX),
    };
  });
}
const sum = (lines) => lines.reduce((s, l) => s + l.value, 0);
/* The total of `convert --to collapsed` (the default dialect's lines: with every heap snapshot a
 * thread, --metric TYPE@all, the austin dialect's "P0;T0" threads merge lines the default dialect
 * keeps apart, so the two cannot be zipped; the totals are the same). */
function collapsedTotal(file, metric) {
  const d = pcd(['convert', '--to', 'collapsed', '--dialect', 'default', '--metric', metric, file]);
  return d.out.toString().split('\n').filter((l) => l).reduce((s, l) => s + Math.min(Number(l.slice(l.lastIndexOf(' ') + 1)), JS_MAX), 0);
}
/* A thread of the page or of an ndjson row as one key: process, thread id, name. */
function threadKey(t) {
  return [t.pid == null ? '' : String(t.pid), t.tid == null ? '' : String(t.tid), t.name || t.thread || ''].join('|');
}
/* The total of METRIC per thread (threadKey) of `convert --to ndjson`'s rows. */
function ndjsonThreadTotals(file, metric) {
  const r = pcd(['convert', '--to', 'ndjson', '--metric', metric, file], [0, 1]);
  const totals = new Map();
  for (const line of r.out.toString().split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line);
    const k = threadKey(row);
    totals.set(k, (totals.get(k) || 0) + Math.min(row.value, JS_MAX)); // (values are already times the count)
  }
  return totals;
}
function threadPrefix(t) {
  // (a thread without an id, Mono's call tree beside its calls' threads: collapsed's T0)
  return 'P' + (t.pid == null ? 0 : t.pid) + ';T' + (t.iid != null && t.iid >= 0 ? t.iid + ':' : '') + (t.tid == null ? 0 : t.tid);
}
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- the browser ---------------------------------------------------------------------------------

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
page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && r.url() !== 'about:blank') requests.push(r.url()); });

async function open(file) {
  errors = []; requests = [];
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.pcdViewer && window.pcdViewer.ready && window.pcdViewer.firstPaint != null, null, { timeout: 20000 });
}
function clean(name) {
  check(errors.length === 0, name + ': console or page errors: ' + errors.join(' | '));
  check(requests.length === 0, name + ': requests left the page: ' + requests.join(' '));
}
const drawn = (which) => page.evaluate((w) => window.pcdViewer.drawn(w), which);
const total = () => page.evaluate(() => Number(document.getElementById('total').dataset.value));
const crumbs = () => page.$$eval('#path .crumb[data-node]', (es) => es.map((e) => e.textContent));
async function clickTab(v) { await page.click('.tab[data-view="' + v + '"]'); }

// ---- one input -------------------------------------------------------------------------------------

async function checkFile(file, fmt, name) {
  const html = path.join(OUT, 'pages', name + '.html');
  const conv = pcd(['convert', '--to', 'html', file, '-o', html]);
  if (conv.rc !== 0 && !fs.existsSync(html)) return false; // damage before anything
  check(conv.rc === 0 || conv.rc === 1, name + ': convert --to html exit ' + conv.rc + ': ' + conv.err);
  const lines = collapsed(file);
  await open(html);
  clean(name);
  const want = sum(lines);
  check(close(await total(), want), name + ': root total ' + (await total()) + ', collapsed says ' + want);
  // (nothing but the root to draw: no sample value, or only samples without frames, as a MOJO
  // file cut after its first, empty, sample)
  if (!(want > 0) || !lines.some((l) => l.texts.length)) return true;

  // the root level, frames merged by function (the page's default, when it has a choice; by line:
  // test_viewer.mjs)
  let rects = await drawn();
  const W = rects.find((r) => r.row === 0).w;
  const key = (await page.$eval('#merge-box', (e) => e.hidden)) ? 'texts' : 'fns';
  const roots = new Map();
  for (const l of lines) if (l[key].length) roots.set(l[key][0], { name: l.names[0], v: (roots.get(l[key][0]) || { v: 0 }).v + l.value });
  const visible = [...roots.values()].filter((r) => r.v / want * W >= 0.5).map((r) => r.name).sort();
  const shown = rects.filter((r) => r.row === 1 && !r.faded).map((r) => r.name).sort();
  check(JSON.stringify(shown) === JSON.stringify(visible), name + ': root-level frames ' + JSON.stringify(shown) + ', collapsed says ' + JSON.stringify(visible));

  // search a known function: the name on most lines
  const counts = new Map();
  for (const l of lines) for (const n of new Set(l.names)) if (!n.startsWith('[')) counts.set(n, (counts.get(n) || 0) + 1);
  const known = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (known) {
    const fn = known[0];
    const prefixes = new Map();
    let covered = 0;
    for (const l of lines) {
      if (!(l.value > 0)) continue;
      let hit = false;
      l.names.forEach((n, i) => {
        if (n !== fn) return;
        hit = true;
        const k = l[key].slice(0, i + 1).join(';');
        prefixes.set(k, (prefixes.get(k) || 0) + l.value);
      });
      if (hit) covered += l.value;
    }
    const widest = Math.max(...prefixes.values());
    await page.fill('#search', '^' + escapeRe(fn) + '$');
    const res = await page.$eval('#search-result', (e) => ({ count: Number(e.dataset.count), pct: e.dataset.percent, text: e.textContent }));
    const wantPct = (100 * covered / want).toFixed(2) + '%';
    check(res.count === prefixes.size, name + ': search ' + fn + ' highlights ' + res.count + ' frames, collapsed says ' + prefixes.size);
    check(res.pct === wantPct, name + ': search ' + fn + ' shows ' + res.pct + ', collapsed says ' + wantPct);
    const lit = (await drawn()).filter((r) => r.match).length;
    check(lit <= prefixes.size && (lit >= 1 || widest / want * W < 0.5), name + ': ' + lit + ' highlighted frames drawn of ' + prefixes.size);
    await page.fill('#search', '');
  }

  // click to zoom, and back
  rects = await drawn();
  const top = rects.filter((r) => r.row === 1 && !r.faded).sort((a, b) => b.w - a.w)[0];
  if (top) {
    await page.locator('#canvas').click({ position: { x: top.x + top.w / 2, y: top.y + 8 } });
    const c = await crumbs();
    check(c.length === 2 && c[1] === top.name, name + ': after clicking ' + top.name + ' the breadcrumbs are ' + JSON.stringify(c));
    const z = (await drawn()).filter((r) => r.row === 1 && !r.faded);
    check(z.length === 1 && Math.abs(z[0].w - W) < 0.01, name + ': the zoomed frame does not fill the width');
    await page.click('#path .crumb[data-node="0"]');
    check((await crumbs()).length === 1, name + ': the first breadcrumb does not go back');
    check((await drawn()).filter((r) => r.row === 1 && !r.faded).length === shown.length, name + ': the root level differs after going back');
  }

  // threads and processes
  const threads = await page.evaluate(() => window.pcdViewer.threads());
  // heap snapshots as threads ("snapshot N"): each is the collapsed output of --metric TYPE@N,
  // and the page's totals over all of them that of --metric TYPE@all
  const snapshotOf = (t) => (t.tid == null && t.name && /^snapshot (\d+)$/.exec(t.name)) || null;
  const snapshots = threads.length > 1 && threads.every((t) => snapshotOf(t));
  const def = (await page.evaluate(() => window.pcdViewer.types()))[Number(await page.$eval('#metric', (e) => e.value || '0'))];
  const opts = await page.$$eval('#thread option', (os2) => os2.map((o) => o.value));
  // Mono: the page, as every output that shows times, has a sampling log's hits on their sampled
  // threads and its GC slices on a thread of their own, where collapsed sums the hits on the call
  // tree's thread; ndjson shows times too, so its rows (the same metric) say each thread's total
  const rowsOf = fmt === 'mono' ? ndjsonThreadTotals(file, def.name) : null;
  for (const v of opts.filter((o) => o !== 'all').slice(0, 5)) {
    let expect;
    if (rowsOf && v.startsWith('t:')) expect = rowsOf.get(threadKey(threads[Number(v.slice(2))])) || 0;
    else if (snapshots && v.startsWith('t:')) expect = collapsedTotal(file, def.name + '@' + snapshotOf(threads[Number(v.slice(2))])[1]);
    else if (v.startsWith('t:')) expect = sum(lines.filter((l) => l.thread === threadPrefix(threads[Number(v.slice(2))])));
    else expect = sum(lines.filter((l) => l.thread.split(';')[0] === 'P' + v.slice(2)));
    await page.selectOption('#thread', v);
    check(close(await total(), expect), name + ': thread ' + v + ' total ' + (await total()) + ', collapsed says ' + expect);
  }
  if (opts.length) await page.selectOption('#thread', 'all');
  // metrics
  const types = await page.evaluate(() => window.pcdViewer.types());
  const metrics = await page.$$eval('#metric option', (os2) => os2.map((o) => o.value));
  if (metrics.length > 1) {
    for (const v of metrics) {
      const expect = snapshots ? collapsedTotal(file, types[Number(v)].name + '@all') : sum(collapsed(file, types[Number(v)].name));
      await page.selectOption('#metric', v);
      check(close(await total(), expect), name + ': metric ' + types[Number(v)].name + ' total ' + (await total()) + ', collapsed says ' + expect);
    }
    await page.selectOption('#metric', metrics[0]);
  }
  // every snapshot of a heap file is on the page: its heap types view compares the first and the last
  if (snapshots) {
    await clickTab('types');
    const growth = await page.$$eval('#types > table tbody tr', (rs) => rs.length);
    check(growth > 0, name + ': ' + threads.length + ' snapshots and no growth table');
    await clickTab('flame');
  }
  // the other views draw
  if (await page.$('.tab[data-view="chart"]')) {
    await clickTab('chart');
    check((await drawn('chart')).length > 0, name + ': the time order view draws nothing');
  }
  await clickTab('sandwich');
  check((await page.$$('#sw-table tbody tr')).length > 0, name + ': the sandwich lists no function');
  check((await drawn('callees')).length > 0, name + ': the sandwich draws no callees');
  await clickTab('flame');
  clean(name + ' (after the views)');
  return true;
}

// ---- the inputs -------------------------------------------------------------------------------------

const formats = JSON.parse(execFileSync(PROFCODEC, ['formats', '--json']).toString());
const withHtml = new Set(formats.filter((f) => f.convert_to.includes('html')).map((f) => f.name + ':' + f.version));
const inputs = fs.readFileSync(path.join(DATA, 'PROVENANCE'), 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'))
  .filter((p) => p[2] && p[2] !== '-' && withHtml.has(p[2]))
  .map((p) => ({ file: path.join(DATA, p[0]), fmt: p[2].split(':')[0], rel: p[0] }));
const byFormat = new Map();
let opened = 0;
for (const inp of inputs) {
  const name = inp.rel.replace(/\//g, '__');
  if (await checkFile(inp.file, inp.fmt, name)) {
    opened++;
    if (!byFormat.has(inp.fmt)) byFormat.set(inp.fmt, []);
    if (pcd(['validate', inp.file]).rc === 0) byFormat.get(inp.fmt).push(inp.file);
  }
}
check(opened > 0, 'no tests/data file was opened (formats listing html: ' + [...withHtml].join(' ') + ')');

// differential pages: the first pair of each format's files that compare
async function checkDiff(baseFile, newFile, name, extra) {
  const out = path.join(OUT, 'pages', name + '.html');
  const r = pcd(['convert', '--to', 'html', '--base', baseFile, newFile, '-o', out]);
  if (r.rc !== 0) return false;
  await open(out);
  clean(name);
  // the scaled pair by line: merged by function, a function whose other lines shrank is one
  // frame that grew (MOJO's main at the line that calls fib and at one that does not)
  if (extra && !(await page.$eval('#merge-box', (e) => e.hidden))) await page.selectOption('#merge', 'line');
  // a side without values of the metric compared shows everything grown (or shrunk): another pair
  const sides = await page.$eval('#total', (e) => [Number(e.dataset.value), Number(e.dataset.base)]);
  if (!extra && !(sides[0] > 0 && sides[1] > 0)) return false;
  const rects = (await drawn()).filter((r2) => r2.row > 0 && !r2.faded);
  // two inputs whose profiles are the same per total (tests/data's two MoarVM heaps) colour
  // nothing: another pair
  if (!extra && rects.every((x) => !x.delta)) return false;
  check(rects.some((x) => x.delta > 0), name + ': no frame coloured as grown');
  check(rects.some((x) => x.delta < 0), name + ': no frame coloured as shrunk');
  if (extra) await extra(rects);
  return true;
}
for (const [fmt, files] of byFormat) {
  let done = false;
  for (let i = 0; i < files.length && !done; i++)
    for (let k = 0; k < files.length && !done; k++)
      if (i !== k) done = await checkDiff(files[i], files[k], fmt + '-diff');
  if (!done && files.length >= 2) console.log('note: ' + fmt + ': no two different profiles among its tests/data files (no differential page)');
}

/* A profile against itself with one function's samples tripled (through Austin text, for the
 * formats that write it): that function grows, the rest shrinks per total; the collapsed
 * differential form says the same. */
function scaledPair(src, fn, dir) {
  const text = pcd(['convert', '--to', 'austin', src]);
  if (text.rc !== 0) return null;
  const out = text.out.toString().split('\n').map((l) => {
    if (l.startsWith('#') || !l) return l;
    const sp = l.lastIndexOf(' ');
    const metrics = l.slice(sp + 1).split(',');
    if (l.slice(0, sp).split(';').some((f) => f.split(':')[1] === fn)) metrics[0] = String(Number(metrics[0]) * 3);
    return l.slice(0, sp) + ' ' + metrics.join(',');
  }).join('\n');
  const t = path.join(dir, 'scaled.austin.txt'), m = path.join(dir, 'scaled.mojo');
  fs.writeFileSync(t, out);
  return pcd(['encode', '--from', 'austin', t, '-o', m]).rc === 0 ? m : null;
}
/* The picture of a format: its corpus file (when there is a corpus) with the most distinct
 * frames, else its first tests/data file. */
const showcaseOf = new Map();
const showcase = (fmt) => {
  if (showcaseOf.has(fmt)) return showcaseOf.get(fmt);
  const dir = path.join(CORPUS, fmt);
  let best = (byFormat.get(fmt) || [])[0], most = -1;
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
    const file = path.join(dir, f);
    const info = pcd(['info', '--json', file]);
    if (info.rc !== 0 || JSON.parse(info.out).format !== fmt) continue;
    const frames = new Set(collapsed(file).flatMap((l) => l.texts)).size;
    if (frames > most) { most = frames; best = file; }
  }
  showcaseOf.set(fmt, best);
  return best;
};
{
  const wr = fs.existsSync(path.join(CORPUS, 'mojo/wall_recursive.mojo')) ? path.join(CORPUS, 'mojo/wall_recursive.mojo') : path.join(DATA, 'mojo/v3_basic.mojo');
  const fn = wr.endsWith('wall_recursive.mojo') ? 'fib' : 'Worker.run';
  const scaled = scaledPair(wr, fn, OUT);
  check(scaled != null, 'cannot make the scaled MOJO pair');
  if (scaled) {
    await checkDiff(wr, scaled, 'mojo-scaled-diff', async (rects) => {
      check(rects.filter((r) => r.name === fn).every((r) => r.delta > 0), 'mojo-scaled-diff: ' + fn + ' is not coloured as grown');
      check(rects.some((r) => r.name !== fn && r.delta < 0), 'mojo-scaled-diff: nothing else is coloured as shrunk');
      await page.screenshot({ path: path.join(OUT, 'readme', 'diff.png') });
      // raw values: the base's own total; per total: the input's
      const want = [sum(collapsed(scaled)), sum(collapsed(wr))];
      let got = await page.$eval('#total', (e) => [Number(e.dataset.value), Number(e.dataset.base)]);
      check(close(got[0], want[0]) && close(got[1], want[0]), 'mojo-scaled-diff: per total ' + got + ', collapsed says ' + want[0]);
      await page.selectOption('#diff-mode', 'raw');
      got = await page.$eval('#total', (e) => [Number(e.dataset.value), Number(e.dataset.base)]);
      check(close(got[0], want[0]) && close(got[1], want[1]), 'mojo-scaled-diff: raw ' + got + ', collapsed says ' + want);
      for (const w of ['new', 'base', 'both']) {
        await page.selectOption('#diff-width', w);
        const r2 = (await drawn()).filter((r) => r.row === 0)[0];
        check(r2 && r2.w > 0, 'mojo-scaled-diff: nothing drawn with widths by ' + w);
      }
      clean('mojo-scaled-diff (values and widths)');
    });
    // the collapsed differential form: per total, the new column is the new profile's lines
    const d = pcd(['convert', '--to', 'collapsed', '--base', wr, scaled]).out.toString().split('\n').filter((l) => l);
    // (empty stacks have no line, but count in the totals)
    const nl = collapsed(scaled), bl = collapsed(wr);
    const newFrames = sum(nl.filter((l) => l.texts.length));
    const baseFrames = sum(bl.filter((l) => l.texts.length)) * sum(nl) / sum(bl);
    const cols = d.map((l) => l.split(' ').slice(-2).map(Number));
    check(cols.every((c) => c.length === 2 && c.every(Number.isInteger)), 'collapsed --base: not 3-column lines');
    check(cols.reduce((s, c) => s + c[1], 0) === newFrames, 'collapsed --base: the new column sums to ' + cols.reduce((s, c) => s + c[1], 0) + ', not ' + newFrames);
    check(Math.abs(cols.reduce((s, c) => s + c[0], 0) - baseFrames) <= cols.length, 'collapsed --base: the base column sums to ' + cols.reduce((s, c) => s + c[0], 0) + ', not ' + baseFrames + ' (per the new total)');
  }
}

// the SVG of each format: it loads, and has frames
for (const [fmt, files] of byFormat) {
  const f = showcase(fmt) || files[0];
  if (!f) continue;
  const svg = path.join(OUT, fmt + '.svg');
  check(pcd(['convert', '--to', 'svg', f, '-o', svg]).rc === 0, fmt + ': convert --to svg failed');
  errors = []; requests = [];
  await page.goto(pathToFileURL(svg).href);
  const n = await page.evaluate(() => document.querySelectorAll('g > title').length);
  check(n > 1, fmt + ': the SVG shows ' + n + ' frames');
  clean(fmt + '.svg');
  if (fmt === 'mojo') await page.screenshot({ path: path.join(OUT, 'readme', 'svg.png') });
}

// a screenshot per format (its largest corpus file when there is a corpus)
for (const fmt of byFormat.keys()) {
  const f = showcase(fmt);
  const html = path.join(OUT, fmt + '.html');
  pcd(['convert', '--to', 'html', f, '-o', html]);
  await open(html);
  clean(fmt + ' showcase');
  await page.screenshot({ path: path.join(OUT, fmt + '.png') });
  if (fmt === 'mojo') {
    fs.copyFileSync(path.join(OUT, fmt + '.png'), path.join(OUT, 'readme', 'flame.png'));
    await clickTab('chart');
    await page.screenshot({ path: path.join(OUT, 'readme', 'order.png') });
    await clickTab('sandwich');
    await page.fill('#search', 'futex|nanosleep');
    await page.screenshot({ path: path.join(OUT, 'readme', 'sandwich.png') });
    await page.fill('#search', '');
    await clickTab('icicle');
    await page.fill('#search', 'Vectorcall|EvalCode');
    await page.screenshot({ path: path.join(OUT, 'readme', 'search.png') });
    clean(fmt + ' showcase views');
  }
}

// ---- the synthetic pages ------------------------------------------------------------------------------

for (const f of fs.readdirSync(SYNTH).filter((x) => x.endsWith('.html')).sort()) {
  const name = f.replace(/\.html$/, '');
  const e = JSON.parse(fs.readFileSync(path.join(SYNTH, name + '.expect.json'), 'utf8'));
  await open(path.join(SYNTH, f));
  clean(name);
  if (e.view === 'diff') {
    const rects = (await drawn()).filter((r) => r.row > 0);
    for (const n of e.grew) check(rects.some((r) => r.name === n && r.delta > 0), name + ': ' + n + ' is not coloured as grown');
    for (const n of e.shrank) check(rects.some((r) => r.name === n && r.delta < 0), name + ': ' + n + ' is not coloured as shrunk');
    for (const n of e.only_new) check(rects.some((r) => r.name === n && r.only === 'new'), name + ': ' + n + ' is not marked as new only');
    for (const n of e.only_base) check(rects.some((r) => r.name === n && r.only === 'base'), name + ': ' + n + ' is not marked as base only');
    await page.screenshot({ path: path.join(OUT, 'readme', 'diff-cross-format.png') });
    continue;
  }
  check(await page.evaluate(() => window.pcdViewer.state.view) === e.view, name + ': opens in the ' + await page.evaluate(() => window.pcdViewer.state.view) + ' view, not ' + e.view);
  const types = await page.evaluate(() => window.pcdViewer.types());
  const def = types.findIndex((t) => t.name === e.default);
  const all = e.first_thread != null ? e.threads[e.first_thread].totals[e.default] : e.threads.reduce((s, t) => s + t.totals[e.default], 0);
  check(close(await total(), all), name + ': total ' + (await total()) + ', built with ' + all);
  for (let i = 0; i < e.threads.length; i++) {
    await page.selectOption('#thread', 't:' + i);
    for (const [m, v] of Object.entries(e.threads[i].totals)) {
      const idx = types.findIndex((t) => t.name === m);
      await page.selectOption('#metric', String(idx));
      check(close(await total(), v), name + ': thread ' + i + ' metric ' + m + ' total ' + (await total()) + ', built with ' + v);
    }
  }
  await page.selectOption('#thread', 'all');
  await page.selectOption('#metric', String(def));
  if (e.types) {
    await clickTab('types');
    for (const [m, per] of Object.entries(e.types)) {
      const sums = Object.entries(per).map(([t, a]) => [t, a.reduce((s, x) => s + x, 0)]).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const title = types.find((t) => t.name === m).title;
      const first = await page.$$eval('#types h2', (hs, t) => {
        const h = hs.find((x) => x.textContent.startsWith('By ' + t + ' ('));
        return h ? [...h.parentElement.querySelectorAll('tbody tr')].map((r) => r.dataset.type) : null;
      }, title);
      check(first && JSON.stringify(first) === JSON.stringify(sums.map((s) => s[0])), name + ': types by ' + m + ' ' + JSON.stringify(first) + ', built with ' + JSON.stringify(sums.map((s) => s[0])));
    }
    const growth = await page.$$eval('#types > table tbody tr', (rs) => rs.map((r) => r.dataset.type));
    if (name === 'synthetic-heap') {
      const per = e.types[e.default];
      const want = Object.entries(per).map(([t, a]) => [t, a[a.length - 1] - a[0]]).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map((x) => x[0]);
      check(JSON.stringify(growth) === JSON.stringify(want), name + ': growth ' + JSON.stringify(growth) + ', built with ' + JSON.stringify(want));
      await page.screenshot({ path: path.join(OUT, 'readme', 'heap-types.png') });
      await clickTab('icicle');
      await page.screenshot({ path: path.join(OUT, 'readme', 'heap-icicle.png') });
      await clickTab('types');
    } else {
      check(growth.length === 0, name + ': a growth table for threads that are not snapshots');
    }
    // a type's sandwich: where it is allocated
    const row = await page.$('#types .tables > div:last-child tbody tr');
    const tname = await row.evaluate((r) => r.dataset.type);
    await row.click();
    check(await page.evaluate(() => window.pcdViewer.state.view) === 'sandwich', name + ': clicking a type does not open its sandwich');
    const callers = await drawn('callers');
    check(callers.length > 1 && callers[0].name === tname, name + ': the sandwich of ' + tname + ' draws ' + JSON.stringify(callers.slice(0, 2)));
    if (name === 'synthetic-alloc') await page.screenshot({ path: path.join(OUT, 'readme', 'alloc-sandwich.png') });
  }
  if (e.timeline) {
    await clickTab('chart');
    const boxes = await drawn('chart');
    const lanes = await page.evaluate(() => document.getElementById('chart-canvas').height > 0);
    check(lanes, name + ': no time order canvas');
    const mainRow0 = boxes.filter((b) => b.name === 'main' && b.row === 0);
    check(mainRow0.length === 1, name + ': main is ' + mainRow0.length + ' boxes in the time order, not one');
    const kids = boxes.filter((b) => b.row === 1 && ['load', 'compute', 'save'].includes(b.name)).map((b) => b.name);
    check(JSON.stringify(kids) === JSON.stringify(['load', 'compute', 'save']), name + ': main\'s children in time order ' + JSON.stringify(kids));
    await page.screenshot({ path: path.join(OUT, 'readme', 'timed.png') });
    // a click zooms into a box
    const c = boxes.find((b) => b.name === 'compute');
    await page.locator('#chart-canvas').click({ position: { x: c.x + c.w / 2, y: c.y + 8 } });
    const z = (await drawn('chart')).find((b) => b.name === 'compute');
    const cw = await page.evaluate(() => document.getElementById('chart-canvas').clientWidth);
    check(z && z.x <= 1 && z.w >= cw - 2, name + ': clicking compute does not zoom the time order to it');
    await page.click('#path .crumb');
    clean(name + ' time order');
  }
}

await context.close();
fs.rmSync(profile, { recursive: true, force: true });
console.log('browser: ' + checks + ' checks, ' + failures.length + ' failures (' + opened + ' tests/data pages)');
process.exit(failures.length ? 1 : 0);
