// The engines' tables (issue 27): `--to table` and `--to ndjson` of every sample-bearing file of
// tests/data, read by DuckDB (its Node.js API, pinned in tests/web's lock file) with the queries
// of docs/tables.md exactly as written there, against `profcodec top --json`:
//   - per profile and function (name, file): flat and cum of the normalised tables' recursive
//     query and of the wide form's query equal top's;
//   - the totals query: per profile the shown type's total equals top's total, and the rows and
//     counts equal profile.ndjson's samples;
//   - every id the samples, stacks and threads name has its row (no dangling reference);
//   - merge: one directory of two inputs keeps each input's totals under its source;
//   - a damaged file: the tables hold the samples before the damage and say damaged;
//   - the output directory is written whole or not at all, never into a directory with files.
// usage: node test_tables.mjs PROFCODEC TESTDATA DOCS_TABLES_MD WORKDIR
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [, , exe, data, docs, work] = process.argv;
const here = path.dirname(fileURLToPath(import.meta.url));
let duck;
try {
  duck = await import(pathToFileURL(path.join(here, '../web/node_modules/@duckdb/node-api/lib/index.js')).href);
} catch (e) {
  console.log('tables: @duckdb/node-api is not installed (run scripts/setup-deps.sh): ' + e.message);
  process.exit(1);
}

let failures = 0;
const fail = (msg) => { failures++; console.log('FAIL ' + msg); };

// ---- the queries of docs/tables.md: each ```sql block that starts with "-- query: NAME" ----
const md = fs.readFileSync(docs, 'utf8');
const queries = {};
for (const m of md.matchAll(/```sql\n-- query: (\w+)\n([\s\S]*?)```/g)) queries[m[1]] = m[2];
for (const q of ['load', 'functions', 'functions_wide', 'totals', 'per_second'])
  if (!queries[q]) fail(`docs/tables.md has no query '${q}'`);
const on = (q, tables, wide) => queries[q].replaceAll("'tables/", `'${tables}/`).replaceAll("'wide/", `'${wide}/`);

// ---- the inputs: every file of tests/data that top reads with exit 0 ----
function walk(d) {
  return fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
}
fs.rmSync(work, { recursive: true, force: true });
const T = path.join(work, 'tables'), W = path.join(work, 'wide');
fs.mkdirSync(T, { recursive: true });
fs.mkdirSync(W, { recursive: true });
const run = (args) => spawnSync(exe, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
const tops = new Map(); // profile name -> top --json
let n = 0;
for (const f of walk(data)) {
  if (/\.(md|cs|sh|go|py|tsv|sha256|gz)$|PROVENANCE|EXPECTED/.test(f)) continue;
  const top = run(['top', f, '--json']);
  if (top.status !== 0) continue; // not a profile, damaged, or no samples (heph: spans only)
  const id = String(n++).padStart(3, '0');
  const t = run(['convert', f, '--to', 'table', '-o', path.join(T, id)]);
  const w = run(['convert', f, '--to', 'ndjson', '-o', path.join(W, id + '.ndjson')]);
  if (t.status !== 0 || w.status !== 0) { fail(`${f}: table ${t.status} ${t.stderr} ndjson ${w.status} ${w.stderr}`); continue; }
  tops.set(f, JSON.parse(top.stdout));
}
if (n < 35) fail(`only ${n} sample-bearing inputs in ${data}`);

const db = await (await duck.DuckDBInstance.create(':memory:')).connect();
const rows = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const num = (v) => BigInt(v ?? 0);
// top's JSON holds numbers at 2^53-1 (what JavaScript reads exactly); the tables' are exact
const CLAMP = 9007199254740991n;
const same = (mine, top) => (top >= CLAMP ? mine >= top : top <= -CLAMP ? mine <= top : mine === top);
const t0 = performance.now();
for (const stmt of on('load', T, W).split(/;\s*\n/).filter((x) => x.trim())) await db.run(stmt);
console.log(`load: ${(performance.now() - t0).toFixed(0)} ms`);

// ---- per function: both queries against top (flat summed per (name, file); cum where the
// (name, file) is one row of top: nameless frames are one "" row in a query, several in top;
// top lists no function whose flat and cum are 0, as a heap's roots with no size) ----
async function checkFunctions(q, tag) {
  const got = new Map();
  for (const r of await rows(q)) {
    if (!got.has(r.profile)) got.set(r.profile, new Map());
    got.get(r.profile).set(`${r.function}\u0000${r.file}`, [num(r.flat), num(r.cum)]);
  }
  let compared = 0;
  for (const [f, top] of tops) {
    const mine = got.get(f) || new Map();
    const want = new Map(), dup = new Set();
    for (const r of top.rows) {
      const k = `${r.name}\u0000${r.file}`;
      if (want.has(k)) { dup.add(k); want.get(k)[0] += num(r.flat); } else want.set(k, [num(r.flat), num(r.cum)]);
    }
    for (const [k, [flat, cum]] of want) {
      const m = mine.get(k);
      if (!m) { fail(`${tag} ${f}: no row for ${k.replace('\u0000', ' @ ')}`); continue; }
      if (!same(m[0], flat)) fail(`${tag} ${f}: ${k.replace('\u0000', ' @ ')} flat ${m[0]} != top's ${flat}`);
      if (!dup.has(k) && !same(m[1], cum)) fail(`${tag} ${f}: ${k.replace('\u0000', ' @ ')} cum ${m[1]} != top's ${cum}`);
      compared++;
    }
    for (const [k, v] of mine) if (!want.has(k) && (v[0] || v[1])) fail(`${tag} ${f}: a row top has not: ${k.replace('\u0000', ' @ ')}`);
  }
  console.log(`${tag}: ${compared} functions of ${tops.size} profiles equal top's`);
}
for (const q of ['functions', 'functions_wide']) {
  const t1 = performance.now();
  await checkFunctions(on(q, T, W), q);
  console.log(`${q}: ${(performance.now() - t1).toFixed(0)} ms`);
}

// ---- totals and counts ----
{
  const shown = new Map();
  for (const r of await rows(`SELECT profile, name FROM read_ndjson_auto('${T}/*/types.ndjson') WHERE shown`)) shown.set(r.profile, r.name);
  const prof = new Map();
  for (const r of await rows(`SELECT * FROM read_ndjson_auto('${T}/*/profile.ndjson')`)) prof.set(r.profile, r);
  const rowsPer = new Map();
  for (const r of await rows(`SELECT profile, count(*) AS n FROM read_ndjson_auto('${T}/*/samples.ndjson') GROUP BY ALL`)) rowsPer.set(r.profile, num(r.n));
  const totals = await rows(on('totals', T, W));
  for (const [f, top] of tops) {
    if (shown.get(f) !== top.metric) fail(`${f}: the shown type is ${shown.get(f)}, top's metric ${top.metric}`);
    const t = totals.find((r) => r.profile === f && r.name === top.metric);
    if (!t || !same(num(t.total), num(top.total))) fail(`${f}: total ${t && t.total} != top's ${top.total}`);
    const p = prof.get(f);
    if (!p || num(p.samples) !== rowsPer.get(f)) fail(`${f}: ${rowsPer.get(f)} sample rows, profile.ndjson says ${p && p.samples}`);
  }
  const timed = await rows(on('per_second', T, W));
  if (!timed.length) fail('per_second: no timed samples in tests/data?');
  console.log(`totals: ${tops.size} profiles; per_second: ${timed.length} rows`);
}

// ---- no dangling ids ----
for (const [what, sql] of [
  ['sample stacks', `SELECT count(*) AS n FROM read_ndjson_auto('${T}/*/samples.ndjson') s WHERE s.stack <> 0 AND NOT EXISTS
     (SELECT 1 FROM read_ndjson_auto('${T}/*/stacks.ndjson') st WHERE st.profile = s.profile AND st.id = s.stack)`],
  ['sample threads', `SELECT count(*) AS n FROM read_ndjson_auto('${T}/*/samples.ndjson') s WHERE NOT EXISTS
     (SELECT 1 FROM read_ndjson_auto('${T}/*/threads.ndjson') t WHERE t.profile = s.profile AND t.id = s.thread)`],
  ['stack frames', `SELECT count(*) AS n FROM read_ndjson_auto('${T}/*/stacks.ndjson') s WHERE NOT EXISTS
     (SELECT 1 FROM read_ndjson_auto('${T}/*/frames.ndjson') f WHERE f.profile = s.profile AND f.id = s.frame)`],
  ['stack parents', `SELECT count(*) AS n FROM read_ndjson_auto('${T}/*/stacks.ndjson') s WHERE s.parent IS NOT NULL AND NOT EXISTS
     (SELECT 1 FROM read_ndjson_auto('${T}/*/stacks.ndjson') p WHERE p.profile = s.profile AND p.id = s.parent AND p.depth = s.depth - 1)`],
]) {
  const [r] = await rows(sql);
  if (num(r.n) !== 0n) fail(`${r.n} ${what} without their row`);
}

// ---- merge: two inputs in one directory, each input's total under its source ----
{
  const a = path.join(data, 'pprof/labels.cpu.pprof'), b = path.join(data, 'pprof/merged.cpu.pprof');
  const dir = path.join(work, 'merged');
  const m = run(['merge', a, b, '--to', 'table', '-o', dir]);
  if (m.status !== 0) fail(`merge: ${m.status} ${m.stderr}`);
  const per = await rows(`SELECT source, sum(value) AS v FROM read_ndjson_auto('${dir}/samples.ndjson') GROUP BY ALL`);
  for (const f of [a, b]) {
    const r = per.find((x) => x.source === f);
    if (!r || !same(num(r.v), num(tops.get(f).total))) fail(`merge: source ${f} total ${r && r.v} != ${tops.get(f).total}`);
  }
}

// ---- --compression gzip: the same rows, read by DuckDB from .ndjson.gz ----
{
  const f = path.join(data, 'pprof/labels.cpu.pprof');
  const dir = path.join(work, 'gz');
  const g = run(['convert', f, '--to', 'table', '--compression', 'gzip', '-o', dir]);
  if (g.status !== 0 || !fs.existsSync(path.join(dir, 'samples.ndjson.gz'))) fail(`gzip: exit ${g.status} ${g.stderr}`);
  else {
    const [a] = await rows(`SELECT count(*) AS n, sum(value) AS v FROM read_ndjson_auto('${dir}/samples.ndjson.gz')`);
    const [b] = await rows(`SELECT count(*) AS n, sum(value) AS v FROM samples WHERE profile = '${f}'`);
    if (a.n !== b.n || a.v !== b.v) fail(`gzip: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  }
}

// ---- damage: what came before, and the profile row says so ----
{
  const src = fs.readFileSync(path.join(data, 'mojo/v3_full.mojo'));
  const cut = path.join(work, 'cut.mojo');
  fs.writeFileSync(cut, src.subarray(0, src.length - 3));
  const dir = path.join(work, 'cut');
  const r = run(['convert', cut, '--to', 'table', '-o', dir]);
  const before = run(['convert', cut, '--to', 'collapsed']);
  if (r.status !== 1 || !fs.existsSync(path.join(dir, 'samples.ndjson'))) fail(`damaged: exit ${r.status}, ${r.stderr}`);
  else {
    const [p] = await rows(`SELECT damaged, samples FROM read_ndjson_auto('${dir}/profile.ndjson')`);
    const lines = before.stdout.trim().split('\n').filter(Boolean).length;
    if (!p.damaged || num(p.samples) < 1n || lines < 1) fail(`damaged: profile row ${JSON.stringify(p)}, collapsed ${lines} lines`);
  }
}

// ---- the directory: never into one with files; an empty one is taken; no temporary left ----
{
  const full = path.join(work, 'full');
  fs.mkdirSync(full);
  fs.writeFileSync(path.join(full, 'mine.txt'), 'keep');
  const f = path.join(data, 'pprof/labels.cpu.pprof');
  const r = run(['convert', f, '--to', 'table', '-o', full]);
  if (r.status !== 2 || fs.readdirSync(full).join() !== 'mine.txt' || !/not an empty directory/.test(r.stderr))
    fail(`a directory with files: exit ${r.status}, ${fs.readdirSync(full)}, ${r.stderr}`);
  const empty = path.join(work, 'empty');
  fs.mkdirSync(empty);
  const e = run(['convert', f, '--to', 'table', '-o', empty + '/']);
  if (e.status !== 0 || !fs.existsSync(path.join(empty, 'samples.ndjson'))) fail(`an empty directory: exit ${e.status} ${e.stderr}`);
  const s = run(['convert', f, '--to', 'table']);
  if (s.status !== 2 || !/-o DIR/.test(s.stderr)) fail(`no -o: exit ${s.status} ${s.stderr}`);
  const none = run(['convert', path.join(data, 'mono/aot.mlpd'), '--to', 'table', '-o', path.join(work, 'none')]);
  if (none.status !== 1 || fs.existsSync(path.join(work, 'none'))) fail(`nothing to show: exit ${none.status}, a directory left`);
  const left = fs.readdirSync(work).filter((x) => x.includes('.tmp.'));
  if (left.length) fail(`temporary directories left: ${left}`);
}

console.log(failures ? `${failures} failures` : `tables: all checks passed (${tops.size} profiles)`);
process.exit(failures ? 1 : 0);
