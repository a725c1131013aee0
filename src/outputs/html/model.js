/* model.js: the page's data read back (varint columns, frames, the node trie and its
 * children lists, the input and base sides with their threads), numbers as the page writes them,
 * colours. Part of the profcodec HTML viewer: cmake/embed_viewer.lua puts the parts of
 * src/outputs/html in one script, in one function's scope, in the order CMakeLists.txt names them. */

// ---- the data -------------------------------------------------------------------------------

const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIG = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) DIG[DIGITS.charCodeAt(i)] = i;

/* A column of n varints (5 bits a digit, least significant first, 32 set on all but the
 * last digit of a number); "" is n zeros. */
function decode(s, n, Arr) {
  const out = new (Arr || Float64Array)(n);
  if (!s) return out;
  let k = 0, v = 0, mul = 1;
  for (let i = 0, len = s.length; i < len; i++) {
    const d = DIG[s.charCodeAt(i)];
    if (d >= 32) { v += (d - 32) * mul; mul *= 32; } else { out[k++] = v + d * mul; v = 0; mul = 1; }
  }
  if (k !== n) throw new Error('a column of the data holds ' + k + ' values, not ' + n);
  return out;
}
const unzigzag = (v) => (v % 2 ? -(v + 1) / 2 : v / 2);

const D = JSON.parse(document.getElementById('pcd-data').textContent);
const S = D.strings;
const KIND_NAMES = ['code', 'native', 'kernel', 'GC', 'idle', 'invalid', 'label', 'heap type', 'heap root'];
const K_CODE = 0, K_NATIVE = 1, K_KERNEL = 2, K_GC = 3, K_IDLE = 4, K_INVALID = 5, K_LABEL = 6, K_TYPE = 7, K_ROOT = 8;

const NF = D.frames.n;
const fName = decode(D.frames.name, NF, Uint32Array);
const fFile = decode(D.frames.file, NF, Uint32Array);
const fLineRaw = decode(D.frames.line, NF);
const fKind = decode(D.frames.kind, NF, Uint8Array);
const fModule = decode(D.frames.module, NF, Uint32Array);
const frameName = (f) => S[fName[f]];
const frameLine = (f) => (fLineRaw[f] ? unzigzag(fLineRaw[f] - 1) : null);

const N = D.nodes.n;
const parent = new Int32Array(N);
const frameOf = new Int32Array(N);
const depthOf = new Uint32Array(N);
{
  const pd = decode(D.nodes.parent, N - 1, Uint32Array), fr = decode(D.nodes.frame, N - 1, Uint32Array);
  parent[0] = -1;
  frameOf[0] = -1;
  for (let i = 1; i < N; i++) {
    parent[i] = i - pd[i - 1];
    frameOf[i] = fr[i - 1];
    depthOf[i] = depthOf[parent[i]] + 1;
  }
}

// frames ranked by name (then file, line): children are drawn in this order by default
const frameRank = new Uint32Array(NF);
{
  const order = Array.from({ length: NF }, (_, i) => i);
  const key = (f) => frameName(f);
  order.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x !== y) return x < y ? -1 : 1;
    const fa = S[fFile[a]], fb = S[fFile[b]];
    if (fa !== fb) return fa < fb ? -1 : 1;
    return fLineRaw[a] - fLineRaw[b] || fKind[a] - fKind[b] || a - b;
  });
  order.forEach((f, r) => { frameRank[f] = r; });
}

// children of every node (CSR), by frame rank
const kidStart = new Uint32Array(N + 1);
const kids = new Uint32Array(Math.max(N - 1, 0));
{
  for (let i = 1; i < N; i++) kidStart[parent[i] + 1]++;
  for (let i = 0; i < N; i++) kidStart[i + 1] += kidStart[i];
  const fill = kidStart.slice(0, N);
  for (let i = 1; i < N; i++) kids[fill[parent[i]]++] = i;
  for (let i = 0; i < N; i++) {
    const a = kidStart[i], b = kidStart[i + 1];
    if (b - a > 1) {
      const part = kids.subarray(a, b);
      part.sort((x, y) => frameRank[frameOf[x]] - frameRank[frameOf[y]]);
    }
  }
}

/* heap roots: a dominator tree (heap snapshots), drawn as an icicle first */
const hasRoots = (() => { for (let f = 0; f < NF; f++) if (fKind[f] === K_ROOT) return true; return false; })();
const hasTypes = (() => { for (let f = 0; f < NF; f++) if (fKind[f] === K_TYPE) return true; return false; })();

/* A side of the data: the input (0) or the base (1) of a differential page. */
function Side(src, nTypes) {
  this.src = src;
  this.types = src.types;
  this.threads = src.threads.map((t, i) => ({ i, t, self: null, runs: null }));
  this.nTypes = nTypes;
}
Side.prototype.selfOf = function (ti) {
  const th = this.threads[ti];
  if (!th.self) {
    const s = th.t.self;
    const node = decode(s.node, s.n, Uint32Array);
    for (let i = 1; i < s.n; i++) node[i] += node[i - 1];
    th.self = { n: s.n, node, v: s.v.map((col) => (col ? decode(col, s.n) : null)) };
  }
  return th.self;
};
Side.prototype.runsOf = function (ti) {
  const th = this.threads[ti];
  if (!th.runs && th.t.runs) {
    const r = th.t.runs;
    const t = r.t ? decode(r.t, r.n) : null;
    if (t) {
      let acc = 0;
      for (let i = 0; i < r.n; i++) { acc += unzigzag(t[i]); t[i] = acc; }
    }
    th.runs = { n: r.n, node: decode(r.node, r.n, Uint32Array), v: r.v.map((col) => (col ? decode(col, r.n) : null)), t, end: r.end };
  }
  return th.runs;
};
/* The total of metric `type` over every thread. */
Side.prototype.typeTotal = function (type) {
  let sum = 0;
  for (const th of this.threads) {
    const col = th.t.self.v[type];
    if (!col) continue;
    const s = this.selfOf(th.i);
    const v = s.v[type];
    for (let i = 0; i < s.n; i++) sum += v[i];
  }
  return sum;
};

const main = new Side(D, D.types.length);
/* heap snapshots handed on as threads (their names say so): called snapshots */
const snapshots = main.threads.length > 1 && main.threads.every((th) => th.t.name && /^(heap )?snapshot\b/i.test(th.t.name));
const threadWord = snapshots ? 'snapshot' : 'thread';
const base = D.base ? new Side(D.base, D.base.types.length) : null;
const diffPage = !!base;

// ---- numbers --------------------------------------------------------------------------------

function sig3(x) {
  const a = Math.abs(x);
  if (a >= 100 || a === 0) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}
/* what the samples of a profile are, as the header counts them (D.noun): samples the profiler
 * took, distinct stacks with their sums (Mono's call tree, a heap), or pprof's sample records */
function countWord(noun) {
  return noun === 'stacks' ? 'distinct stacks' : noun === 'records' ? 'sample records' : 'samples';
}

function grouped(v) {
  const neg = v < 0;
  let s = Math.round(Math.abs(v)).toString();
  let out = '';
  while (s.length > 3) { out = ',' + s.slice(-3) + out; s = s.slice(0, -3); }
  return (neg ? '-' : '') + s + out;
}
function fmtTime(ns) {
  const a = Math.abs(ns);
  if (a === 0) return '0 s';
  if (a >= 1e9) return (a >= 1e12 ? grouped(ns / 1e9) : sig3(ns / 1e9)) + ' s';
  if (a >= 1e6) return sig3(ns / 1e6) + ' ms';
  if (a >= 1e3) return sig3(ns / 1e3) + ' µs';
  return sig3(ns) + ' ns';
}
function fmtBytes(b) {
  const a = Math.abs(b);
  if (a >= 1 << 30) return sig3(b / (1 << 30)) + ' GiB';
  if (a >= 1 << 20) return sig3(b / (1 << 20)) + ' MiB';
  if (a >= 1 << 10) return sig3(b / (1 << 10)) + ' KiB';
  return (Number.isInteger(b) ? grouped(b) : sig3(b)) + ' B';
}
const TIME_NS = { nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9 };
function fmtValue(v, unit) {
  if (TIME_NS[unit]) return fmtTime(v * TIME_NS[unit]);
  if (unit === 'bytes') return fmtBytes(v);
  const n = Number.isInteger(v) ? grouped(v) : sig3(v);
  return unit && unit !== 'count' ? n + ' ' + unit : n;
}
const pct = (v, total) => (total > 0 ? (100 * v / total).toFixed(2) : '0.00') + '%';

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) for (const k in attrs) {
    if (k === 'class') e.className = attrs[k];
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}
const $ = (id) => document.getElementById(id);

// ---- colours --------------------------------------------------------------------------------

function hashStr(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
const colourCache = new Map();
/* flamegraph.pl's palettes: "hot" for code, yellow native, orange kernel, ... */
function frameColour(f) {
  if (f < 0) return 'rgb(232,106,60)';
  let c = colourCache.get(f);
  if (c) return c;
  const h = hashStr(frameName(f));
  const v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
  let r, g, b;
  switch (fKind[f]) {
    case K_NATIVE: r = 190 + 50 * v2; g = 185 + 50 * v2; b = 60 + 30 * v3; break;
    case K_KERNEL: r = 215 + 40 * v1; g = 130 + 50 * v1; b = 40; break;
    case K_GC: r = 110 + 40 * v1; g = 160 + 40 * v1; b = 230; break;
    case K_IDLE: r = g = b = 200 + 25 * v1; break;
    case K_INVALID: r = 225; g = 150 + 30 * v1; b = 150 + 30 * v1; break;
    case K_LABEL: r = 195 + 40 * v1; g = 150 + 40 * v2; b = 230; break;
    case K_TYPE: r = 90 + 60 * v1; g = 190 + 45 * v1; b = 190 + 45 * v1; break;
    case K_ROOT: r = 110 + 40 * v1; g = 200 + 35 * v1; b = 110; break;
    default: r = 215 + 40 * v3; g = 75 + 160 * v1; b = 20 + 55 * v2;
  }
  c = 'rgb(' + (r | 0) + ',' + (g | 0) + ',' + (b | 0) + ')';
  colourCache.set(f, c);
  return c;
}
function dim(rgb) {
  const m = /rgb\((\d+),(\d+),(\d+)\)/.exec(rgb);
  const k = (x) => Math.round(225 + (Number(x) - 225) * 0.25);
  return 'rgb(' + k(m[1]) + ',' + k(m[2]) + ',' + k(m[3]) + ')';
}
const MATCH = 'rgb(214,38,214)';
function diffColour(delta, maxAbs) {
  if (!delta || !maxAbs) return 'rgb(228,228,222)';
  const k = 0.18 + 0.82 * Math.min(1, Math.abs(delta) / maxAbs);
  const fade = Math.round(255 - k * 190);
  return delta > 0 ? 'rgb(255,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + fade + ',255)';
}
let hatch = null;
function hatchPattern(ctx) {
  if (hatch) return hatch;
  const c = document.createElement('canvas');
  c.width = c.height = 6;
  const g = c.getContext('2d');
  g.strokeStyle = 'rgba(40,40,40,0.45)';
  g.lineWidth = 1.2;
  g.beginPath();
  g.moveTo(0, 6); g.lineTo(6, 0);
  g.moveTo(-3, 3); g.lineTo(3, -3);
  g.moveTo(3, 9); g.lineTo(9, 3);
  g.stroke();
  hatch = ctx.createPattern(c, 'repeat');
  return hatch;
}
