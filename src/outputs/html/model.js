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

/* A trie to draw: n nodes (0 the root, a parent before its children), each one's parent and
 * frame, the children lists (CSR) in frame rank order, and map: the data's node -> its node
 * here (null: the data's nodes themselves). */
function makeTrie(n, par, fr, map) {
  const kidStart = new Uint32Array(n + 1), kids = new Uint32Array(Math.max(n - 1, 0));
  for (let i = 1; i < n; i++) kidStart[par[i] + 1]++;
  for (let i = 0; i < n; i++) kidStart[i + 1] += kidStart[i];
  const fill = kidStart.slice(0, n);
  for (let i = 1; i < n; i++) kids[fill[par[i]]++] = i;
  for (let i = 0; i < n; i++) {
    const a = kidStart[i], b = kidStart[i + 1];
    if (b - a < 2) continue;
    let k = a + 1;
    while (k < b && frameRank[fr[kids[k - 1]]] <= frameRank[fr[kids[k]]]) k++;
    if (k < b) kids.subarray(a, b).sort((x, y) => frameRank[fr[x]] - frameRank[fr[y]]);
  }
  return { n, parent: par, frame: fr, kidStart, kids, map };
}
/* the data's trie: a node per frame, and so per line */
const lineTrie = makeTrie(N, parent, frameOf, null);

// functions: frames merged by name and file (a function's identity; lines and columns apart)
const fnOf = new Int32Array(NF);
const fnFrame = [];               // a frame of each function (its first)
{
  const ids = new Map();
  for (let f = 0; f < NF; f++) {
    const key = fName[f] + ':' + fFile[f];
    let id = ids.get(key);
    if (id === undefined) { id = fnFrame.length; ids.set(key, id); fnFrame.push(f); }
    fnOf[f] = id;
  }
}
const NFN = fnFrame.length;
/* the lines of each function: [first, last] (null: none known) */
let fnLineCache = null;
function fnLines(fn) {
  if (!fnLineCache) {
    fnLineCache = new Array(NFN).fill(null);
    for (let f = 0; f < NF; f++) {
      const l = frameLine(f);
      if (l == null) continue;
      const r = fnLineCache[fnOf[f]];
      if (!r) fnLineCache[fnOf[f]] = [l, l];
      else { if (l < r[0]) r[0] = l; if (l > r[1]) r[1] = l; }
    }
  }
  return fnLineCache[fn];
}
/* Whether merging by function changes anything: some node has two children of one function
 * (a function's frames have adjacent ranks, so they are next to each other in its children
 * list). Otherwise every function node is one of the data's, and the toggle is not offered. */
const canMerge = (() => {
  const lk = lineTrie.kids, lks = lineTrie.kidStart;
  for (let p = 0; p < N; p++)
    for (let i = lks[p] + 1; i < lks[p + 1]; i++) if (fnOf[frameOf[lk[i]]] === fnOf[frameOf[lk[i - 1]]]) return true;
  return false;
})();
/* The trie merged by function: siblings of one function are one node (pprof's -functions,
 * speedscope's frames by name and file). Built when first asked for, in the data's order
 * (parents first), from each data node's children in runs of one function (a run: the child for
 * that function of the parent's function node). A function node made of one data node makes
 * its children straight from its runs; under one made of several, a child may already exist,
 * found in a hash table of (node, function) in one typed array (a Map of number keys costs ten
 * times more on a million nodes), whose slots follow the nodes (two a node) for locality. */
let fnTrieCache = null;
function fnTrie() {
  if (fnTrieCache) return fnTrieCache;
  const lk = lineTrie.kids, lks = lineTrie.kidStart;
  const map = new Uint32Array(N), par = new Int32Array(N), fr = new Int32Array(N), one = new Uint8Array(N);
  let table = null, mask = 0;
  par[0] = -1; fr[0] = -1; one[0] = 1;
  let n = 1;
  for (let p = 0; p < N; p++) {
    const m = map[p];
    for (let i = lks[p], end = lks[p + 1]; i < end;) {
      const fn = fnOf[frameOf[lk[i]]], from = i;
      while (i < end && fnOf[frameOf[lk[i]]] === fn) i++;
      let c;
      if (one[m]) {
        c = n++;
        par[c] = m; fr[c] = fnFrame[fn]; one[c] = i - from === 1 ? 1 : 0;
      } else {
        if (!table) { mask = (1 << Math.ceil(Math.log2(2 * N + 2))) - 1; table = new Int32Array(3 * (mask + 1)).fill(-1); }
        // (slots by the node first: nodes made one after the other are probed near each other)
        let h = (2 * m + (Math.imul(fn, 0x9e3779b1) >>> 31)) & mask;
        while (table[3 * h] !== -1 && (table[3 * h] !== m || table[3 * h + 1] !== fn)) h = (h + 1) & mask;
        if (table[3 * h] === -1) { table[3 * h] = m; table[3 * h + 1] = fn; table[3 * h + 2] = n; par[n] = m; fr[n] = fnFrame[fn]; n++; }
        c = table[3 * h + 2];
      }
      for (let k = from; k < i; k++) map[lk[k]] = c;
    }
  }
  return (fnTrieCache = makeTrie(n, par.subarray(0, n), fr.subarray(0, n), map));
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
/* A metadata value as shown: a decimal of many digits (a float written exactly, 1.5220000099999993)
 * to 6 significant digits, whatever trails them dropped (1.522); anything else as it is. */
function fmtMeta(v) {
  if (!/^-?\d+\.\d{6,}(e[-+]?\d+)?$/i.test(v)) return v;
  const x = Number(v);
  return Number.isFinite(x) ? String(Number(x.toPrecision(6))) : v;
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
/* flamegraph.pl's palettes, by kind: "hot" for code, yellow native, orange kernel, ... */
function kindRGB(kind, h) {
  const v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
  switch (kind) {
    case K_NATIVE: return [190 + 50 * v2, 185 + 50 * v2, 60 + 30 * v3];
    case K_KERNEL: return [215 + 40 * v1, 130 + 50 * v1, 40];
    case K_GC: return [110 + 40 * v1, 160 + 40 * v1, 230];
    case K_IDLE: return [200 + 25 * v1, 200 + 25 * v1, 200 + 25 * v1];
    case K_INVALID: return [225, 150 + 30 * v1, 150 + 30 * v1];
    case K_LABEL: return [195 + 40 * v1, 150 + 40 * v2, 230];
    case K_TYPE: return [90 + 60 * v1, 190 + 45 * v1, 190 + 45 * v1];
    case K_ROOT: return [110 + 40 * v1, 200 + 35 * v1, 110];
    default: return [215 + 40 * v3, 75 + 160 * v1, 20 + 55 * v2];
  }
}
const rgb = (c) => 'rgb(' + (c[0] | 0) + ',' + (c[1] | 0) + ',' + (c[2] | 0) + ')';

/* Packages (modules): what a frame's code belongs to, from its name's syntax, else its file,
 * else its module; '' for none (markers, labels, heap roots):
 *   "crypto/sha256.(*digest).Write"  Go (a '/' before the '.', or a .go/.s file): crypto/sha256;
 *                                    a symbol without a '.' (assembly): its file's directory
 *   "std::vector<int>::push_back"    C++, Rust, Raku: the outermost namespace, std
 *   "System.IO.File:Open (string)"   .NET (Mono): the class's namespace, System.IO (a class
 *                                    without one: the class); "(wrapper ...) " prefixes dropped
 *   a Python file                    the module: site- or dist-packages/NAME/..., the standard
 *                                    library's lib/pythonX.Y/NAME..., else the file's name
 *                                    without its extension; "<frozen runpy>": runpy
 *   a heap type "System.Int32[]"     its namespace, System */
function packageName(f) {
  const kind = fKind[f];
  if (kind !== K_CODE && kind !== K_NATIVE && kind !== K_KERNEL && kind !== K_TYPE) return '';
  const n = frameName(f).replace(/^\(wrapper [^)]*\) /, ''), file = S[fFile[f]];
  const cc = n.indexOf('::');
  if (cc > 0) return n.slice(0, cc);
  const colon = n.indexOf(':');
  if (colon > 0 && /^[\w.`<>,[\]]+$/.test(n.slice(0, colon))) {
    const cls = n.slice(0, colon), d = cls.lastIndexOf('.');
    return d > 0 ? cls.slice(0, d) : cls;
  }
  const slash = n.lastIndexOf('/');
  if (slash > 0 || /\.(go|s)$/.test(file)) {
    const dot = n.indexOf('.', slash + 1);
    if (dot > 0) return n.slice(0, dot);
    if (file.lastIndexOf('/') > 0) return file.slice(0, file.lastIndexOf('/'));   // assembly: its directory
  }
  if (file) {
    const fz = /^<frozen ([^>]+)>$/.exec(file);
    if (fz) return fz[1].split('.')[0];
    const m = /(?:site|dist)-packages\/([^/]+)/.exec(file) || /\/lib\/python[\d.]+\/([^/]+)/.exec(file);
    const b = m ? m[1] : file.slice(file.lastIndexOf('/') + 1);
    return b.replace(/\.(py|pyc|pyx|so|dll)$/, '') || file;
  }
  const mod = S[fModule[f]];
  if (mod) return mod.slice(mod.lastIndexOf('/') + 1);
  if (kind === K_TYPE) {
    const base = n.split(/[<[ ]/)[0], d = base.lastIndexOf('.');
    return d > 0 ? base.slice(0, d) : '';
  }
  return '';
}
const pkgNames = [''];            // package ids: 0 is none
let pkgOf = null;                 // per frame
function packages() {
  if (pkgOf) return pkgOf;
  pkgOf = new Uint32Array(NF);
  const ids = new Map([['', 0]]);
  for (let f = 0; f < NF; f++) {
    const p = packageName(f);
    let id = ids.get(p);
    if (id === undefined) { id = pkgNames.length; ids.set(p, id); pkgNames.push(p); }
    pkgOf[f] = id;
  }
  return pkgOf;
}
/* colours of the packages ranked first by value; the others are grey */
const PKG_COLOURS = [[232, 160, 92], [122, 174, 222], [140, 204, 122], [228, 136, 136], [180, 150, 218],
  [214, 190, 84], [104, 196, 190], [228, 150, 198], [172, 166, 118], [150, 172, 196]];
let pkgRank = null;               // package id -> its rank by value (set by the legend)

const colourCache = new Map();
/* the fill of frame f in the palette chosen (state.palette: 'kind' or 'package') */
function frameColour(f) {
  if (f < 0) return 'rgb(232,106,60)';
  const key = f * 2 + (state.palette === 'package' ? 1 : 0);
  let c = colourCache.get(key);
  if (c) return c;
  const h = hashStr(frameName(f));
  if (state.palette === 'package' && packages()[f]) {
    const r = pkgRank ? pkgRank[pkgOf[f]] : -1;
    const k = 0.9 + 0.2 * ((h & 255) / 255);   // shades of one hue, per function
    const base = r >= 0 && r < PKG_COLOURS.length ? PKG_COLOURS[r] : [196, 196, 190];
    c = rgb(base.map((x) => Math.min(250, x * k)));
  } else {
    c = rgb(kindRGB(fKind[f], h));
  }
  colourCache.set(key, c);
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
