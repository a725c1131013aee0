// test_explain_browser.mjs: the page of `profcodec explain --to html` in a real browser (Debian's
// chromium, headless, driven by playwright-core from tests/web; no browser is downloaded), on a
// file of each kind of layout (MOJO 4's events; a Tachyon profile whose samples are zstd; a
// Heph trace with a damaged packet, explained with --all; a pprof profile, protobuf):
//   - no console or page error, no request leaves the page;
//   - clicking a field in the tree highlights exactly its bytes in the hex (the bytes the JSON
//     output gives it), in its stream (a compressed region's decompressed data);
//   - clicking a byte selects the field that holds it (the JSON's leaf at that offset);
//   - searching an offset (decimal and 0x...) selects the field that holds it; searching a field
//     name finds the fields whose path has it;
// and a screenshot of each page goes to OUT (docs/images/explain.png is the MOJO one).
//
// usage: node test_explain_browser.mjs PROFCODEC TESTDATA OUT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [PROFCODEC, DATA, OUT] = process.argv.slice(2);
const CHROMIUM = process.env.PCD_CHROMIUM || '/usr/bin/chromium';
let pw;
try {
  pw = await import(pathToFileURL(path.join(here, '../web/node_modules/playwright-core/index.mjs')).href);
} catch (e) {
  console.log('explain browser: playwright-core is not installed (run scripts/setup-deps.sh): ' + e.message);
  process.exit(1);
}
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

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

/* The JSON output's leaves: [{stream, start, end, path}], an independent account of the page's. */
function leavesOf(file, extra) {
  const r = pcd(['explain', '--to', 'json', ...extra, file]);
  const out = [];
  for (const ln of r.out.toString().split('\n').filter((l) => l)) {
    const o = JSON.parse(ln);
    if (o.t !== 'record') continue;
    const walk = (fs2, p) => {
      for (const f of fs2 || []) {
        const name = f.name === null ? '[' + f.index + ']' : f.name + (f.index != null ? '[' + f.index + ']' : '');
        const pp = f.case ? p : p + (f.name === null ? name : '.' + name);
        if (f.leaf && f.size > 0 && f.kind !== 'region') out.push({ stream: o.stream, start: f.offset, end: f.offset + f.size, path: pp, rec: o.record });
        walk(f.fields, pp);
      }
    };
    walk(o.fields, o.kind);
  }
  return out;
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pcd-chromium-'));
const context = await pw.chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 800 }, deviceScaleFactor: 1,
});
const page = context.pages()[0] || await context.newPage();
let errors = [], requests = [];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.type() + ': ' + m.text()); });
page.on('pageerror', (e) => errors.push('page error: ' + e.message));
page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && r.url() !== 'about:blank') requests.push(r.url()); });

const X = (fn, arg) => page.evaluate(fn, arg);
const highlighted = () => X(() => window.pcdExplain.highlighted());
const selected = () => X(() => { const i = window.pcdExplain.selected(); return i < 0 ? null : window.pcdExplain.field(i); });

async function checkFile(file, name, extra, pick) {
  const html = path.join(OUT, name + '.html');
  const r = pcd(['explain', '--to', 'html', ...extra, file, '-o', html]);
  check(r.rc === 0 || (extra.includes('--all') && r.rc === 1), name + ': explain --to html exit ' + r.rc + ': ' + r.err);
  const leaves = leavesOf(file, extra);
  check(leaves.length > 0, name + ': the JSON output has leaves');
  errors = []; requests = [];
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(() => window.pcdExplain && window.pcdExplain.ready, null, { timeout: 20000 });

  // 1. a field clicked in the tree: its bytes highlighted, exactly
  const want = pick(leaves);
  const id = await X((p) => window.pcdExplain.fieldNamed(p), want.path);
  check(id >= 0, name + ': the page has the field ' + want.path);
  if (id >= 0) {
    const f = await X((i) => window.pcdExplain.field(i), id);
    await page.click('.rec:nth-child(' + (f.rec + 1) + ') > .head');     // open its record
    await page.click('.fld[data-f="' + id + '"]');                          // then the field
    const hl = await highlighted();
    const range = []; for (let o = want.start; o < want.end; o++) range.push(o);
    check(JSON.stringify(hl) === JSON.stringify(range), name + ': clicking ' + want.path + ' highlights ' + JSON.stringify(hl) +
      ', its bytes are ' + want.start + '..' + want.end);
    check(await page.$eval('.fld[data-f="' + id + '"]', (e) => e.classList.contains('sel')), name + ': the clicked field is selected');
    const stream = await page.$eval('#stream', (e) => Number(e.value));
    check(stream === want.stream, name + ': the hex shows stream ' + stream + ', the field is in ' + want.stream);
    // 2. a byte clicked in the hex: the field that holds it
    const other = leaves.find((l) => l.stream === want.stream && l.start > want.end && l.rec === want.rec) ||
      leaves.find((l) => l.stream === want.stream && l.start !== want.start);
    if (other) {
      await page.evaluate((o) => { const e = document.querySelector('.b[data-o="' + o + '"]'); if (e) e.scrollIntoView({ block: 'center' }); }, other.start);
      await page.waitForTimeout(100); // (the rows are drawn again after a scroll)
      const byte = await page.$('.b[data-o="' + other.start + '"]');
      check(byte != null, name + ': byte ' + other.start + ' is drawn');
      if (byte) {
        await page.click('.b[data-o="' + other.start + '"]');
        const s = await selected();
        check(s && s.path === other.path, name + ': clicking byte ' + other.start + ' selects ' + (s && s.path) + ', it is ' + other.path);
        const hl2 = await highlighted();
        check(hl2.includes(other.start) && !hl2.includes(want.start), name + ': the byte\'s field is highlighted, the old one is not');
      }
    }
  }
  // 3. search an offset, in decimal and in hex
  const target = leaves.filter((l) => l.stream === 0 && l.end - l.start > 1)[3] || leaves[0];
  for (const q of [String(target.start + 1), '0x' + (target.start + 1).toString(16)]) {
    await page.fill('#search', q);
    await page.press('#search', 'Enter');
    const s = await selected();
    check(s && s.start <= target.start + 1 && target.start + 1 < s.end && s.path === target.path,
      name + ': searching ' + q + ' selects ' + (s && s.path) + ' [' + (s && s.start) + ', ' + (s && s.end) + '), want ' + target.path);
    check((await highlighted()).includes(target.start + 1), name + ': searching ' + q + ' highlights that byte');
    check((await page.textContent('#found')).includes('holds offset'), name + ': the search says what holds the offset');
  }
  // 4. search a field name
  const last = want.path.split('.').pop().replace(/\[\d+\]$/, '');
  await page.fill('#search', last);
  await page.press('#search', 'Enter');
  const n = leaves.filter((l) => l.path.toLowerCase().includes(last.toLowerCase())).length;
  const found = await page.textContent('#found');
  const s = await selected();
  check(s && s.path.toLowerCase().includes(last.toLowerCase()), name + ': searching "' + last + '" selects ' + (s && s.path));
  check(/\d+/.test(found) && Number(found.match(/(\d+) (of|field)/)?.[1] ?? 0) >= 1, name + ': the search counts its matches: ' + found);
  check(n > 0, name + ': the JSON output has fields named like ' + last);
  await page.screenshot({ path: path.join(OUT, name + '.png') });
  check(errors.length === 0, name + ': console or page errors: ' + errors.join(' | '));
  check(requests.length === 0, name + ': requests left the page: ' + requests.join(' '));
}

await checkFile(path.join(DATA, 'mojo/v4_repeat.mojo'), 'mojo-v4', [],
  (L) => L.find((l) => l.path === 'stack.tid' && l.rec === 5) || L[10]);
await checkFile(path.join(DATA, 'tachyon/deep_zstd.bin'), 'tachyon-zstd', ['--records', '200'],
  (L) => L.find((l) => l.stream > 0 && l.path.endsWith('thread_id')) || L[5]);
await checkFile(path.join(DATA, 'heph/nested_array_quirk.bin.log'), 'heph-damaged', ['--all'],
  (L) => L.find((l) => l.path.endsWith('description')) || L[1]);
await checkFile(path.join(DATA, 'pprof/labels.cpu.pprof'), 'pprof', ['--records', '300'],
  (L) => L.find((l) => l.path.includes('location_id')) || L[3]);

await context.close();
fs.rmSync(profile, { recursive: true, force: true });
console.log('explain browser: ' + checks + ' checks, ' + failures.length + ' failures; screenshots in ' + OUT);
process.exit(failures.length ? 1 : 0);
