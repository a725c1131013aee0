/* viewer.js: the profcodec HTML viewer, embedded into every `convert --to html` page.
 *
 * Plain JavaScript, no library. It reads the page's data (the JSON in #pcd-data, written by
 * src/outputs/html.c; docs/design.md describes it), builds the node trie's children lists
 * once, sums the self values of the chosen threads and metric up the trie, and draws on
 * canvas: only what is at least half a pixel wide is laid out, so a profile of a million
 * samples and a hundred thousand stacks draws in a few milliseconds once loaded.
 *
 * Views: flame graph and icicle (click to zoom, breadcrumbs back), time order (the runs of
 * the timeline, per thread), sandwich (a function's callers and callees), heap types, and the
 * differential flame graph of a page made with --base. window.pcdViewer is what the tests
 * (tests/pictures) read: what was drawn, and when the first picture was painted. */
(function () {
  'use strict';

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

  // ---- what is shown --------------------------------------------------------------------------

  const state = {
    view: 'flame',                  // flame | icicle | chart | sandwich | types
    sel: 'all',                     // all | p:<pid> | t:<index>
    type: D.type,
    search: null,                   // RegExp or null
    sort: 'name',
    diffMode: D.base && D.base.raw ? 'raw' : 'norm',
    diffWidth: 'both',
    zoom: 0,
    swFn: -1,
  };

  function threadTitle(t) {
    let s = t.name || (t.tid != null ? 'Thread ' + t.tid : 'All samples');
    const extra = [];
    if (t.process) extra.push(t.process);
    if (t.pid != null) extra.push('pid ' + t.pid);
    if (t.iid != null && t.iid >= 0) extra.push('interpreter ' + t.iid);
    if (extra.length) s += ' (' + extra.join(', ') + ')';
    return s;
  }
  function selThreads(side, sel) {
    if (sel === 'all') return side.threads.map((t) => t.i);
    if (sel.startsWith('p:')) return side.threads.filter((t) => String(t.t.pid) === sel.slice(2)).map((t) => t.i);
    return [Number(sel.slice(2))];
  }

  /* self and total of every node, for threads `list` of a side and metric `type` */
  const totalsCache = new Map();
  function totalsOf(side, list, type) {
    const key = (side === base ? 'b' : 'm') + ':' + type + ':' + list.join(',');
    let r = totalsCache.get(key);
    if (r) return r;
    const self = new Float64Array(N);
    let samples = 0;
    for (const ti of list) {
      samples += side.threads[ti].t.samples;
      if (!side.threads[ti].t.self.v[type]) continue;
      const s = side.selfOf(ti), v = s.v[type];
      for (let i = 0; i < s.n; i++) self[s.node[i]] += v[i];
    }
    const total = self.slice();
    for (let i = N - 1; i > 0; i--) total[parent[i]] += total[i];
    r = { self, total, samples };
    if (totalsCache.size > 24) totalsCache.clear();
    totalsCache.set(key, r);
    return r;
  }

  /* A tree to draw: the profile's trie with the chosen totals, or a sandwich's. */
  function mainTree() {
    if (diffPage) {
      const a = totalsOf(main, selThreads(main, 'all'), D.type);
      const b = totalsOf(base, selThreads(base, 'all'), D.base.type);
      const ta = a.total[0], tb = b.total[0];
      const f = state.diffMode === 'raw' ? D.base.scale : (tb ? ta / tb : 0);
      const bt = new Float64Array(N);
      for (let i = 0; i < N; i++) bt[i] = b.total[i] * f;
      let width;
      if (state.diffWidth === 'new') width = a.total;
      else if (state.diffWidth === 'base') width = bt;
      else { width = new Float64Array(N); for (let i = 0; i < N; i++) width[i] = a.total[i] + bt[i]; }
      return { n: N, parent, frame: frameOf, total: width, kidStart, kids, newT: a.total, baseT: bt,
        rootLabel: 'all', unit: D.types[D.type].unit, samples: a.samples, baseSamples: b.samples };
    }
    const t = totalsOf(main, selThreads(main, state.sel), state.type);
    return { n: N, parent, frame: frameOf, total: t.total, self: t.self, kidStart, kids, rootLabel: 'all',
      unit: D.types[state.type].unit, samples: t.samples };
  }

  /* the children of node i of tree t in the order drawn */
  function kidsOf(t, i) {
    if (state.sort === 'value') {
      if (!t.sorted) t.sorted = new Map();
      let k = t.sorted.get(i);
      if (!k) {
        k = Array.from(t.kids.subarray(t.kidStart[i], t.kidStart[i + 1]));
        k.sort((x, y) => t.total[y] - t.total[x] || frameRank[t.frame[x]] - frameRank[t.frame[y]]);
        t.sorted.set(i, k);
      }
      return k;
    }
    return t.kids.subarray(t.kidStart[i], t.kidStart[i + 1]);
  }

  // ---- search ---------------------------------------------------------------------------------

  let frameMatch = null;            // Uint8Array per frame, or null
  function setSearch(text) {
    const box = $('search');
    box.classList.remove('bad');
    state.search = null;
    frameMatch = null;
    if (text) {
      try {
        state.search = new RegExp(text);
      } catch (e) {
        box.classList.add('bad');
      }
    }
    if (state.search) {
      frameMatch = new Uint8Array(NF);
      for (let f = 0; f < NF; f++) frameMatch[f] = state.search.test(frameName(f)) ? 1 : 0;
    }
  }
  /* frames of tree t that match (nodes with a value), and the share of the total they cover
   * (a stack counted once however many of its frames match) */
  function searchStats(t) {
    let count = 0, covered = 0;
    const under = new Uint8Array(t.n);
    for (let i = 1; i < t.n; i++) {
      const p = t.parent[i];
      const m = frameMatch[t.frame[i]];
      under[i] = under[p] || (p > 0 && frameMatch[t.frame[p]]) ? 1 : 0;
      if (!m || !(t.total[i] > 0)) continue;
      count++;
      if (!under[i]) covered += t.total[i];
    }
    return { count, covered };
  }

  // ---- flame graphs on canvas -----------------------------------------------------------------

  const ROW = 18, MIN_W = 0.5, FONT = '11.5px ' + getComputedStyle(document.body).getPropertyValue('--mono');

  /* One canvas that draws a tree: flame (root at the bottom) or icicle (root at the top). */
  function FlameView(pane, canvas, opts) {
    this.pane = pane;
    this.canvas = canvas;
    this.opts = opts;
    this.tree = null;
    this.zoom = 0;
    this.rects = [];
    this.hover = -1;
    canvas.addEventListener('mousemove', (e) => this.onMove(e));
    canvas.addEventListener('mouseleave', () => { this.hover = -1; hideTip(); this.draw(); });
    canvas.addEventListener('click', (e) => {
      const r = this.hit(e);
      if (r >= 0 && this.opts.onClick) this.opts.onClick(this.rects[r].node, this);
    });
  }
  FlameView.prototype.layout = function () {
    const t = this.tree, W = this.width, rects = [];
    if (!t || !(t.total[0] > 0)) { this.rects = rects; this.rows = 1; return; }
    const z = this.zoom, zt = t.total[z];
    // the zoomed node's ancestors, full width
    const path = [];
    for (let a = z; a >= 0; a = t.parent[a]) path.unshift(a);
    let row = 0;
    for (const a of path) {
      if (a !== z) rects.push({ node: a, x: 0, w: W, row: row, faded: true });
      row++;
    }
    const base = path.length - 1;
    let maxRow = base;
    const stack = [[z, 0, base]];
    while (stack.length) {
      const [i, x, r] = stack.pop();
      const w = t.total[i] / zt * W;
      rects.push({ node: i, x, w, row: r });
      if (r > maxRow) maxRow = r;
      const k = kidsOf(t, i);
      let cx = x;
      const next = [];
      for (let j = 0; j < k.length; j++) {
        const c = k[j], cw = t.total[c] / zt * W;
        if (cw >= MIN_W) next.push([c, cx, r + 1]);
        cx += cw;
      }
      for (let j = next.length - 1; j >= 0; j--) stack.push(next[j]);
    }
    this.rects = rects;
    this.rows = maxRow + 1;
  };
  FlameView.prototype.setTree = function (t, zoom) {
    this.tree = t;
    this.zoom = zoom || 0;
    this.hover = -1;
    this.draw(true);
  };
  FlameView.prototype.draw = function (relayout) {
    const pane = this.pane, canvas = this.canvas;
    const W = Math.max(200, pane.clientWidth - (pane.scrollHeight > pane.clientHeight ? 0 : 0));
    if (relayout || W !== this.width) { this.width = W; this.layout(); }
    const inverted = this.opts.inverted();
    const H = Math.max(pane.clientHeight, this.rows * ROW + 8);
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
      canvas.style.width = W + 'px';
      canvas.style.height = H + 'px';
    }
    this.height = H;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    const charW = ctx.measureText('MMMMMMMMMM').width / 10;
    const t = this.tree;
    if (!t) return;
    const maxAbs = t.newT ? this.maxDelta() : 0;
    for (let k = 0; k < this.rects.length; k++) {
      const r = this.rects[k];
      const y = inverted ? r.row * ROW + 2 : H - (r.row + 1) * ROW - 2;
      r.y = y;
      const f = t.frame[r.node];
      const isRoot = r.node === 0 && !t.rootFrame;   // "all" (a sandwich's root is a frame)
      let fill;
      r.match = frameMatch && !isRoot ? frameMatch[f] === 1 : false;
      if (t.newT) {
        r.delta = t.newT[r.node] - t.baseT[r.node];
        r.only = t.baseT[r.node] === 0 ? 'new' : t.newT[r.node] === 0 ? 'base' : '';
        fill = diffColour(r.delta, maxAbs);
        if (frameMatch && !r.match && !isRoot) fill = dim(fill);
        if (r.match) fill = MATCH;
      } else {
        fill = isRoot ? frameColour(-1) : frameColour(f);
        if (frameMatch) fill = r.match ? MATCH : dim(fill);
      }
      if (r.faded) fill = dim(fill);
      ctx.fillStyle = fill;
      const w = r.w > 2 ? r.w - 1 : r.w;
      ctx.fillRect(r.x, y, w, ROW - 1);
      if (t.newT && r.only && r.w >= 2) {
        ctx.fillStyle = hatchPattern(ctx);
        ctx.fillRect(r.x, y, w, ROW - 1);
      }
      if (k === this.hover) {
        ctx.strokeStyle = '#111';
        ctx.lineWidth = 1.5;
        ctx.strokeRect(r.x + 0.75, y + 0.75, Math.max(w - 1.5, 0.5), ROW - 2.5);
      }
      if (r.w >= charW * 3 + 6) {
        let label = isRoot ? t.rootLabel : frameName(f);
        const fit = Math.floor((r.w - 6) / charW);
        if (label.length > fit) label = label.slice(0, Math.max(fit - 2, 1)) + '..';
        ctx.fillStyle = r.match ? '#fff' : '#1a1a1a';
        ctx.fillText(label, r.x + 3, y + ROW / 2);
      }
    }
    if (this.opts.drawn) this.opts.drawn(this);
  };
  FlameView.prototype.maxDelta = function () {
    const t = this.tree;
    let m = 0;
    for (const r of this.rects) {
      const d = Math.abs(t.newT[r.node] - t.baseT[r.node]);
      if (r.node > 0 && d > m) m = d;
    }
    return m;
  };
  FlameView.prototype.hit = function (e) {
    const b = this.canvas.getBoundingClientRect();
    const x = e.clientX - b.left, y = e.clientY - b.top;
    for (let k = 0; k < this.rects.length; k++) {
      const r = this.rects[k];
      if (y >= r.y && y < r.y + ROW && x >= r.x && x < r.x + Math.max(r.w, 1)) return k;
    }
    return -1;
  };
  FlameView.prototype.onMove = function (e) {
    const k = this.hit(e);
    if (k !== this.hover) { this.hover = k; this.draw(); }
    if (k < 0) { hideTip(); return; }
    showTip(e, this.opts.tip(this.tree, this.rects[k].node, this));
  };

  // ---- tooltips -------------------------------------------------------------------------------

  const tip = $('tip');
  function hideTip() { tip.hidden = true; }
  function showTip(e, content) {
    tip.replaceChildren(content);
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let x = e.clientX + 14, y = e.clientY + 16;
    if (x + w > window.innerWidth - 4) x = Math.max(4, e.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, e.clientY - h - 12);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function where(f) {
    const file = S[fFile[f]], line = frameLine(f), mod = S[fModule[f]];
    let s = file ? file + (line != null ? ':' + line : '') : '';
    if (mod && mod !== file) s += (s ? ' in ' : '') + mod;
    return s;
  }
  function nodeSelf(t, i) {
    if (t.self) return t.self[i];
    let s = t.total[i];
    for (let k = t.kidStart[i]; k < t.kidStart[i + 1]; k++) s -= t.total[t.kids[k]];
    return Math.max(s, 0);
  }
  function frameTip(t, node) {
    const f = t.frame[node];
    const box = el('div');
    const name = el('div', { class: 'name' }, node === 0 || f < 0 ? t.rootLabel : frameName(f));
    if (f >= 0 && node !== 0) name.append(el('span', { class: 'kind' }, KIND_NAMES[fKind[f]] || 'frame'));
    box.append(name);
    if (f >= 0 && node !== 0 && where(f)) box.append(el('div', { class: 'where' }, where(f)));
    const rows = el('table');
    const root = t.total[0];
    const row = (label, value, extra) => rows.append(el('tr', null, el('td', null, label), el('td', { class: 'num' }, value), el('td', { class: 'num' }, extra || '')));
    if (t.newT) {
      const a = t.newT[node], b = t.baseT[node], d = a - b;
      const u = t.unit, norm = state.diffMode === 'norm';
      row('New', fmtValue(a, u), pct(a, t.newT[0]));
      row('Base' + (norm ? ' (per total)' : ''), fmtValue(b, u), pct(b, t.baseT[0]));
      const cls = d > 0 ? 'grew' : d < 0 ? 'shrank' : '';
      rows.append(el('tr', { class: cls }, el('td', null, d > 0 ? 'Grew' : d < 0 ? 'Shrank' : 'Change'),
        el('td', { class: 'num' }, (d > 0 ? '+' : '') + fmtValue(d, u)), el('td', { class: 'num' }, b ? (d >= 0 ? '+' : '') + (100 * d / b).toFixed(1) + '%' : '')));
      if (node !== 0 && (a === 0 || b === 0)) box.append(el('div', { class: a === 0 ? 'shrank' : 'grew' }, a === 0 ? 'only in the base (gone)' : 'only in the new profile'));
    } else {
      row('Total', fmtValue(t.total[node], t.unit), pct(t.total[node], root));
      row('Self', fmtValue(nodeSelf(t, node), t.unit), pct(nodeSelf(t, node), root));
    }
    box.append(rows);
    return box;
  }

  // ---- the main graph -------------------------------------------------------------------------

  const graph = new FlameView($('graph'), $('canvas'), {
    inverted: () => state.view === 'icicle',
    tip: frameTip,
    onClick: (node) => { state.zoom = node; showGraph(); },
    drawn: () => api.painted(),
  });

  function setTotal(t) {
    const tot = $('total');
    tot.dataset.value = String(t.total[0]);
    if (t.newT) {
      tot.dataset.value = String(t.newT[0]);
      tot.dataset.base = String(t.baseT[0]);
      tot.textContent = 'New ' + fmtValue(t.newT[0], t.unit) + ' (' + grouped(t.samples) + ' samples) vs base ' +
        fmtValue(t.baseT[0], t.unit) + (state.diffMode === 'norm' ? ' per total' : '') + ' (' + grouped(t.baseSamples) + ' samples)';
      tot.append(el('span', { class: 'legend' }, el('i', { class: 'sw grew-sw' }), 'grew ', el('i', { class: 'sw shrank-sw' }), 'shrank ',
        el('i', { class: 'sw only-sw' }), 'on one side only'));
      return;
    }
    tot.textContent = 'Total ' + fmtValue(t.total[0], t.unit) + ' · ' + grouped(t.samples) + ' samples';
  }
  function setCrumbs(t, zoom, onPick) {
    const path = [];
    for (let a = zoom; a >= 0; a = t.parent[a]) path.unshift(a);
    const box = $('path');
    box.replaceChildren();
    path.forEach((a, i) => {
      if (i) box.append(el('span', { class: 'sep' }, '›'));
      const label = a === 0 ? t.rootLabel : frameName(t.frame[a]);
      const last = i === path.length - 1;
      box.append(el('span', { class: last ? 'crumb cur' : 'crumb', 'data-node': String(a), onclick: last ? null : () => onPick(a) }, label));
    });
    if (zoom !== 0) box.append(el('span', { class: 'sep' }, ' '), el('span', { class: 'crumb', onclick: () => { state.swFn = fnOf[t.frame[zoom]]; setView('sandwich'); } }, '(sandwich)'));
  }
  function setSearchResult(t) {
    const out = $('search-result');
    if (!frameMatch) { out.textContent = ''; out.dataset.count = ''; out.dataset.percent = ''; return; }
    const s = searchStats(t);
    const root = t.newT ? t.newT[0] : t.total[0];
    const p = pct(t.newT ? Math.min(s.covered, root) : s.covered, root);
    out.dataset.count = String(s.count);
    out.dataset.percent = p;
    out.textContent = s.count + (s.count === 1 ? ' frame' : ' frames') + ' · ' + p + ' of the total';
  }
  function showGraph() {
    const t = mainTree();
    if (!(t.total[state.zoom] > 0)) state.zoom = 0;
    setTotal(t);
    setCrumbs(t, state.zoom, (a) => { state.zoom = a; showGraph(); });
    setSearchResult(t);
    const pane = $('graph');
    const atBottom = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 4;
    graph.setTree(t, state.zoom);
    if (state.view === 'flame' && atBottom) pane.scrollTop = pane.scrollHeight;
    if (!(t.total[0] > 0)) showEmpty('Nothing to show: the samples of this selection have no ' + D.types[state.type].title + '.');
    else $('empty').hidden = true;
  }
  function showEmpty(text) {
    const e = $('empty');
    e.textContent = text;
    e.hidden = false;
  }

  // ---- time order (the timeline's runs) -------------------------------------------------------

  const timed = D.timeline === 'time';
  /* Boxes of one thread's runs: consecutive runs that share a node at a depth make one box.
   * The open boxes are the path of the last run; each run walks up only to where its path
   * meets that one. */
  const onPath = new Int32Array(N);   // node -> its depth + 1 while on the open path
  function laneBoxes(ti, type) {
    const r = main.runsOf(ti);
    // boxes in typed arrays that double as they fill
    let cap = 1024, n = 0;
    let bs = new Float64Array(cap), be = new Float64Array(cap), bn = new Uint32Array(cap), bd = new Uint32Array(cap);
    const out = { n: 0, start: bs, end: be, node: bn, depth: bd, maxDepth: 0, x0: Infinity, x1: -Infinity };
    if (!r) return out;
    const v = r.v[type];
    if (!timed && !v) return out;
    const grow = () => {
      cap *= 2;
      const s2 = new Float64Array(cap), e2 = new Float64Array(cap), n2 = new Uint32Array(cap), d2 = new Uint32Array(cap);
      s2.set(bs); e2.set(be); n2.set(bn); d2.set(bd);
      bs = s2; be = e2; bn = n2; bd = d2;
    };
    const open = [], openStart = [], fresh = [];
    let x = 0;
    const close = (from, at) => {
      for (let d = open.length - 1; d >= from; d--) {
        if (n === cap) grow();
        bs[n] = openStart[d]; be[n] = at; bn[n] = open[d]; bd[n] = d; n++;
        if (d > out.maxDepth) out.maxDepth = d;
        onPath[open[d]] = 0;
      }
      open.length = openStart.length = from;
    };
    let last = 0;
    for (let i = 0; i < r.n; i++) {
      let s, e;
      if (timed) { s = r.t[i]; e = i + 1 < r.n ? r.t[i + 1] : r.end; } else {
        if (!v[i]) continue;
        s = x; e = x + v[i]; x = e;
      }
      if (s < out.x0) out.x0 = s;
      if (e > out.x1) out.x1 = e;
      fresh.length = 0;
      let a = r.node[i];
      while (a > 0 && !onPath[a]) { fresh.push(a); a = parent[a]; }
      close(a > 0 ? onPath[a] : 0, s);
      for (let k = fresh.length - 1; k >= 0; k--) {
        open.push(fresh[k]); openStart.push(s);
        onPath[fresh[k]] = open.length;
      }
      last = e;
    }
    close(0, last);
    out.n = n; out.start = bs; out.end = be; out.node = bn; out.depth = bd;
    return out;
  }

  const chart = {
    pane: $('chart'), canvas: $('chart-canvas'), lanes: [], x0: 0, x1: 1, v0: 0, v1: 1, rects: [], hover: -1, key: '',
    history: [],
  };
  const LANE_HEAD = 20, RULER = 22;
  function chartLanes() {
    const key = state.sel + ':' + state.type;
    if (chart.key === key) return;
    chart.key = key;
    chart.lanes = [];
    chart.x0 = Infinity; chart.x1 = -Infinity;
    for (const ti of selThreads(main, state.sel)) {
      const b = laneBoxes(ti, state.type);
      if (!b.n) continue;
      b.title = threadTitle(main.threads[ti].t);
      chart.lanes.push(b);
      if (b.x0 < chart.x0) chart.x0 = b.x0;
      if (b.x1 > chart.x1) chart.x1 = b.x1;
    }
    if (!chart.lanes.length) { chart.x0 = 0; chart.x1 = 1; }
    chart.v0 = chart.x0; chart.v1 = chart.x1;
    chart.history = [];
  }
  function chartLabel(v) {
    if (timed) return fmtTime(v - chart.x0);
    return fmtValue(v - chart.x0, D.types[state.type].unit);
  }
  function drawChart() {
    const pane = chart.pane, canvas = chart.canvas;
    const W = Math.max(200, pane.clientWidth);
    let H = RULER;
    for (const l of chart.lanes) H += LANE_HEAD + (l.maxDepth + 1) * ROW + 6;
    H = Math.max(H, pane.clientHeight);
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
      canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
      canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    const charW = ctx.measureText('MMMMMMMMMM').width / 10;
    const span = chart.v1 - chart.v0 || 1, k = W / span;
    // the ruler
    ctx.fillStyle = '#f3f2ec';
    ctx.fillRect(0, 0, W, RULER);
    ctx.fillStyle = '#55534c';
    ctx.strokeStyle = '#d6d4cb';
    const step = niceStep(span / 8);
    for (let v = Math.ceil(chart.v0 / step) * step; v <= chart.v1; v += step) {
      const x = (v - chart.v0) * k;
      ctx.beginPath(); ctx.moveTo(x + 0.5, RULER - 6); ctx.lineTo(x + 0.5, H); ctx.stroke();
      ctx.fillText(chartLabel(v), x + 3, RULER / 2);
    }
    const rects = [];
    let y = RULER;
    const drawBox = (l, b, x0, x1, by, match, f) => {
      const i = rects.length;
      rects.push({ lane: l, b, x: x0, w: x1 - x0, y: by, node: l.node[b] });
      if (i === chart.hover) {
        ctx.strokeStyle = '#111'; ctx.lineWidth = 1.5;
        ctx.strokeRect(x0 + 0.75, by + 0.75, Math.max(x1 - x0 - 1.5, 0.5), ROW - 2.5);
      }
      if (x1 - x0 >= charW * 3 + 6) {
        let label = frameName(f);
        const fit = Math.floor((x1 - x0 - 6) / charW);
        if (label.length > fit) label = label.slice(0, Math.max(fit - 2, 1)) + '..';
        ctx.fillStyle = match ? '#fff' : '#1a1a1a';
        ctx.fillText(label, x0 + 3, by + ROW / 2);
      }
    };
    const colourOf = (f) => {
      const match = frameMatch ? frameMatch[f] === 1 : false;
      return [frameMatch ? (match ? MATCH : dim(frameColour(f))) : frameColour(f), match];
    };
    for (const l of chart.lanes) {
      ctx.fillStyle = '#3c3a35';
      ctx.fillText(l.title, 4, y + LANE_HEAD / 2 + 1);
      y += LANE_HEAD;
      // boxes narrower than a pixel: the first one in each pixel of each row stands for them
      const px = new Int32Array(W * (l.maxDepth + 1)).fill(-1);
      for (let b = 0; b < l.n; b++) {
        const x = (l.start[b] - chart.v0) * k, w = (l.end[b] - l.start[b]) * k;
        if (x + w < 0 || x > W) continue;
        if (w < 1) {
          const p = Math.max(0, Math.min(W - 1, Math.floor(x)));
          const at = l.depth[b] * W + p;
          if (px[at] < 0) px[at] = b;
          continue;
        }
        const by = y + l.depth[b] * ROW;
        const f = frameOf[l.node[b]];
        const [fill, match] = colourOf(f);
        ctx.fillStyle = fill;
        const x0 = Math.max(x, 0), x1 = Math.min(x + w, W);
        ctx.fillRect(x0, by, Math.max(x1 - x0 - (w > 2 ? 1 : 0), 0.3), ROW - 1);
        drawBox(l, b, x0, x1, by, match, f);
      }
      for (let d = 0; d <= l.maxDepth; d++) {
        const by = y + d * ROW;
        for (let p = 0; p < W; p++) {
          const b = px[d * W + p];
          if (b < 0) continue;
          const f = frameOf[l.node[b]];
          const [fill, match] = colourOf(f);
          ctx.fillStyle = fill;
          ctx.fillRect(p, by, 1, ROW - 1);
          drawBox(l, b, p, p + 1, by, match, f);
        }
      }
      y += (l.maxDepth + 1) * ROW + 6;
    }
    chart.rects = rects;
    api.painted();
  }
  function niceStep(x) {
    const p = Math.pow(10, Math.floor(Math.log10(x || 1)));
    const m = x / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function chartHit(e) {
    const b = chart.canvas.getBoundingClientRect();
    const x = e.clientX - b.left, y = e.clientY - b.top;
    for (let i = 0; i < chart.rects.length; i++) {
      const r = chart.rects[i];
      if (y >= r.y && y < r.y + ROW && x >= r.x && x < r.x + Math.max(r.w, 1)) return i;
    }
    return -1;
  }
  function chartTip(r) {
    const l = r.lane, f = frameOf[r.node];
    const box = el('div');
    box.append(el('div', { class: 'name' }, frameName(f), el('span', { class: 'kind' }, KIND_NAMES[fKind[f]])));
    if (where(f)) box.append(el('div', { class: 'where' }, where(f)));
    const d = l.end[r.b] - l.start[r.b];
    box.append(el('table', null,
      el('tr', null, el('td', null, timed ? 'Duration' : D.types[state.type].title), el('td', { class: 'num' }, timed ? fmtTime(d) : fmtValue(d, D.types[state.type].unit))),
      el('tr', null, el('td', null, 'From'), el('td', { class: 'num' }, chartLabel(l.start[r.b]))),
      el('tr', null, el('td', null, 'Thread'), el('td', null, l.title))));
    return box;
  }
  let drag = null;
  chart.canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, v0: chart.v0, v1: chart.v1, moved: false }; });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
  chart.canvas.addEventListener('mousemove', (e) => {
    if (drag && e.buttons) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const dv = dx / chart.canvas.clientWidth * (drag.v1 - drag.v0);
        chart.v0 = drag.v0 - dv; chart.v1 = drag.v1 - dv;
        hideTip(); drawChart(); return;
      }
    }
    const i = chartHit(e);
    if (i !== chart.hover) { chart.hover = i; drawChart(); }
    if (i < 0) hideTip(); else showTip(e, chartTip(chart.rects[i]));
  });
  chart.canvas.addEventListener('mouseleave', () => { chart.hover = -1; hideTip(); drawChart(); });
  chart.canvas.addEventListener('click', (e) => {
    if (drag && drag.moved) return;
    const i = chartHit(e);
    if (i < 0) return;
    const r = chart.rects[i];
    chart.history.push([chart.v0, chart.v1]);
    chart.v0 = r.lane.start[r.b]; chart.v1 = r.lane.end[r.b];
    showChart();
  });
  chart.canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const b = chart.canvas.getBoundingClientRect();
    const at = chart.v0 + (e.clientX - b.left) / b.width * (chart.v1 - chart.v0);
    const f = Math.exp(e.deltaY * 0.002);
    chart.v0 = at - (at - chart.v0) * f; chart.v1 = at + (chart.v1 - at) * f;
    drawChart();
  }, { passive: false });
  function showChart() {
    chartLanes();
    const t = mainTree();
    setTotal(t);
    setSearchResult(t);
    const box = $('path');
    box.replaceChildren(el('span', { class: chart.history.length ? 'crumb' : 'crumb cur', onclick: () => { chart.v0 = chart.x0; chart.v1 = chart.x1; chart.history = []; showChart(); } }, 'whole ' + (timed ? 'run' : 'profile')));
    if (chart.history.length) box.append(el('span', { class: 'sep' }, '›'), el('span', { class: 'crumb cur' }, chartLabel(chart.v0) + ' – ' + chartLabel(chart.v1)));
    if (!chart.lanes.length) showEmpty('No timeline for this selection and metric.');
    else $('empty').hidden = true;
    drawChart();
  }

  // ---- sandwich: a function's callers and callees ---------------------------------------------

  // functions: frames merged by name and file
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
  /* self and total per function (a recursive function's total counted once) */
  function fnTotals(t) {
    const self = new Float64Array(NFN), total = new Float64Array(NFN), onPath = new Int32Array(NFN);
    const outer = new Uint8Array(t.n);
    const stack = [0];
    while (stack.length) {
      const i = stack.pop();
      if (i < 0) { const j = ~i; if (j > 0) onPath[fnOf[t.frame[j]]]--; continue; }
      if (i > 0) {
        const fn = fnOf[t.frame[i]];
        self[fn] += nodeSelf(t, i);
        if (!onPath[fn]) { total[fn] += t.total[i]; outer[i] = 1; }
        onPath[fn]++;
      }
      stack.push(~i);
      for (let k = t.kidStart[i + 1]; k-- > t.kidStart[i];) if (t.total[t.kids[k]] > 0) stack.push(t.kids[k]);
    }
    return { self, total, outer };
  }
  function miniTree(root) {
    return { n: 1, parent: [-1], frame: [root], total: [0], kidsArr: [[]], map: new Map() };
  }
  function miniKid(m, p, f) {
    const key = p * NF + f;
    let c = m.map.get(key);
    if (c === undefined) {
      c = m.n++;
      m.parent.push(p); m.frame.push(f); m.total.push(0); m.kidsArr.push([]);
      m.kidsArr[p].push(c);
      m.map.set(key, c);
    }
    return c;
  }
  function finishMini(m, label) {
    const kidStartM = new Uint32Array(m.n + 1), kidsM = new Uint32Array(Math.max(m.n - 1, 0));
    let k = 0;
    for (let i = 0; i < m.n; i++) {
      kidStartM[i] = k;
      const list = m.kidsArr[i].sort((x, y) => frameRank[m.frame[x]] - frameRank[m.frame[y]]);
      for (const c of list) kidsM[k++] = c;
    }
    kidStartM[m.n] = k;
    return { n: m.n, parent: Int32Array.from(m.parent), frame: Int32Array.from(m.frame), total: Float64Array.from(m.total),
      kidStart: kidStartM, kids: kidsM, rootLabel: label, unit: D.types[state.type].unit, rootFrame: true };
  }
  function sandwichTrees(t, fn, outer) {
    const f0 = fnFrame[fn];
    const callers = miniTree(f0), callees = miniTree(f0);
    for (let i = 1; i < t.n; i++) {
      if (!outer[i] || fnOf[t.frame[i]] !== fn || !(t.total[i] > 0)) continue;
      const v = t.total[i];
      callers.total[0] += v;
      let m = 0;
      for (let a = t.parent[i]; a > 0; a = t.parent[a]) { m = miniKid(callers, m, t.frame[a]); callers.total[m] += v; }
      callees.total[0] += v;
      const stack = [[i, 0]];
      while (stack.length) {
        const [n, mn] = stack.pop();
        for (let k = t.kidStart[n]; k < t.kidStart[n + 1]; k++) {
          const c = t.kids[k];
          if (!(t.total[c] > 0)) continue;
          const mc = miniKid(callees, mn, t.frame[c]);
          callees.total[mc] += t.total[c];
          stack.push([c, mc]);
        }
      }
    }
    const label = frameName(f0);
    return { callers: finishMini(callers, label), callees: finishMini(callees, label) };
  }
  const swCallers = new FlameView($('sw-callers'), $('sw-callers-canvas'), { inverted: () => false, tip: miniTip, onClick: null });
  const swCallees = new FlameView($('sw-callees'), $('sw-callees-canvas'), { inverted: () => true, tip: miniTip, onClick: null });
  function miniTip(t, node) {
    const f = t.frame[node];
    const box = el('div');
    box.append(el('div', { class: 'name' }, frameName(f), el('span', { class: 'kind' }, KIND_NAMES[fKind[f]])));
    if (where(f)) box.append(el('div', { class: 'where' }, where(f)));
    box.append(el('table', null, el('tr', null, el('td', null, 'Total'), el('td', { class: 'num' }, fmtValue(t.total[node], t.unit)),
      el('td', { class: 'num' }, pct(t.total[node], mainTree().total[0])))));
    return box;
  }
  function showSandwich() {
    const t = mainTree();
    setTotal(t);
    setSearchResult(t);
    $('path').replaceChildren(el('span', { class: 'crumb cur' }, 'Functions by total; pick one for its callers and callees'));
    const ft = fnTotals(t);
    const order = [];
    for (let fn = 0; fn < NFN; fn++) if (ft.total[fn] > 0 && (!frameMatch || frameMatch[fnFrame[fn]])) order.push(fn);
    order.sort((a, b) => ft.total[b] - ft.total[a] || frameRank[fnFrame[a]] - frameRank[fnFrame[b]]);
    if (state.swFn < 0 || !(ft.total[state.swFn] > 0) || (frameMatch && !order.includes(state.swFn))) state.swFn = order.length ? order[0] : -1;
    const body = el('tbody');
    const root = t.total[0];
    for (const fn of order.slice(0, 400)) {
      const f = fnFrame[fn];
      body.append(el('tr', { class: fn === state.swFn ? 'sel' : '', 'data-fn': String(fn), onclick: () => { state.swFn = fn; showSandwich(); } },
        el('td', { class: 'fn', title: where(f) }, frameName(f)),
        el('td', { class: 'num' }, ft.self[fn] > 0 ? fmtValue(ft.self[fn], t.unit) + ' · ' + pct(ft.self[fn], root) : '–'),
        el('td', { class: 'num' }, fmtValue(ft.total[fn], t.unit) + ' · ' + pct(ft.total[fn], root))));
    }
    $('sw-table').tBodies[0].replaceWith(body);
    if (state.swFn < 0) {
      $('sw-title').textContent = '';
      swCallers.setTree(null); swCallees.setTree(null);
      return;
    }
    const f = fnFrame[state.swFn];
    $('sw-title').replaceChildren(frameName(f), el('span', { class: 'kind' }, KIND_NAMES[fKind[f]]),
      el('span', { class: 'where' }, '  ' + (S[fFile[f]] || '') + '  total ' + fmtValue(ft.total[state.swFn], t.unit) + ' (' + pct(ft.total[state.swFn], root) + ')'));
    const tr = sandwichTrees(t, state.swFn, ft.outer);
    swCallers.setTree(tr.callers);
    swCallees.setTree(tr.callees);
    $('sw-callers').scrollTop = $('sw-callers').scrollHeight;
    api.painted();
  }

  // ---- heap types -----------------------------------------------------------------------------

  /* value per type name (frames of kind "heap type" merged by name) for threads `list` */
  function typeValues(list, type) {
    const m = new Map();
    for (const ti of list) {
      if (!main.threads[ti].t.self.v[type]) continue;
      const s = main.selfOf(ti), v = s.v[type];
      for (let i = 0; i < s.n; i++) {
        const node = s.node[i];
        if (node === 0) continue;
        const f = frameOf[node];
        if (fKind[f] !== K_TYPE) continue;
        const name = frameName(f);
        m.set(name, (m.get(name) || 0) + v[i]);
      }
    }
    return m;
  }
  function table(head, rows) {
    return el('table', { class: 'list' }, el('thead', null, el('tr', null, ...head.map((h, i) => el('th', { class: i ? 'num' : '' }, h)))),
      el('tbody', null, ...rows));
  }
  function showTypes() {
    const t = mainTree();
    setTotal(t);
    setSearchResult(t);
    $('path').replaceChildren(el('span', { class: 'crumb cur' }, 'Heap types: values of the frames of kind "heap type", merged by name'));
    const box = $('types');
    box.replaceChildren();
    const list = selThreads(main, state.sel);
    const metrics = D.types.map((ty, i) => i).filter((i) => main.typeTotal(i) > 0);
    box.append(el('h2', null, 'Top types (' + ($('thread').selectedOptions[0] || { textContent: '' }).textContent + ')'));
    box.append(el('p', { class: 'note' }, 'Click a type for its sandwich: where it is allocated or what retains it.'));
    const tables = el('div', { class: 'tables' });
    for (const m of metrics) {
      const vals = typeValues(list, m);
      const rows = [...vals.entries()].filter((e) => !frameMatch || state.search.test(e[0])).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50);
      const total = [...vals.values()].reduce((a, b) => a + b, 0);
      const top = rows.length ? rows[0][1] : 1;
      tables.append(el('div', null, el('h2', null, 'By ' + D.types[m].title),
        table(['Type', D.types[m].title, 'share'], rows.map(([name, v]) => el('tr', { 'data-type': name, onclick: () => pickType(name) },
          el('td', { class: 'fn' }, el('span', { class: 'bar', style: 'width:' + Math.round(60 * v / top) + 'px' }), name),
          el('td', { class: 'num' }, fmtValue(v, D.types[m].unit)), el('td', { class: 'num' }, pct(v, total)))))));
    }
    box.append(tables);
    // growth across snapshots
    if (snapshots) {
      const m = state.type;
      const per = main.threads.map((th) => typeValues([th.i], m));
      const names = new Set();
      per.forEach((mm) => mm.forEach((_, k) => names.add(k)));
      const first = per[0], last = per[per.length - 1];
      const rows = [...names].filter((n) => !frameMatch || state.search.test(n))
        .map((n) => [n, (last.get(n) || 0) - (first.get(n) || 0)])
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50);
      box.append(el('h2', null, 'Growth from the first to the last snapshot (' + D.types[m].title + ')'));
      box.append(table(['Type', ...main.threads.map((th) => threadTitle(th.t)), 'change'], rows.map(([n, d]) =>
        el('tr', { 'data-type': n, onclick: () => pickType(n) }, el('td', { class: 'fn' }, n),
          ...per.map((mm) => el('td', { class: 'num' }, fmtValue(mm.get(n) || 0, D.types[m].unit))),
          el('td', { class: 'num ' + (d > 0 ? 'grew' : d < 0 ? 'shrank' : '') }, (d > 0 ? '+' : '') + fmtValue(d, D.types[m].unit))))));
    }
    $('empty').hidden = true;
    api.painted();
  }
  function pickType(name) {
    for (let fn = 0; fn < NFN; fn++) if (frameName(fnFrame[fn]) === name && fKind[fnFrame[fn]] === K_TYPE) { state.swFn = fn; break; }
    setView('sandwich');
  }

  // ---- the page -------------------------------------------------------------------------------

  const VIEWS = [['flame', 'Flame graph'], ['icicle', 'Icicle'], ['chart', timed ? 'Time order' : 'Sample order'], ['sandwich', 'Sandwich'], ['types', 'Heap types']];
  function viewAvailable(v) {
    if (v === 'chart') return !!D.timeline && !diffPage;
    if (v === 'sandwich') return !diffPage;
    if (v === 'types') return hasTypes && !diffPage;
    return true;
  }
  function setView(v) {
    state.view = v;
    hideTip();
    for (const b of $('tabs').children) b.setAttribute('aria-selected', String(b.dataset.view === v));
    $('graph').hidden = !(v === 'flame' || v === 'icicle');
    $('chart').hidden = v !== 'chart';
    $('sandwich').hidden = v !== 'sandwich';
    $('types').hidden = v !== 'types';
    $('sort-box').hidden = !(v === 'flame' || v === 'icicle' || v === 'sandwich');
    refresh();
  }
  function refresh() {
    if (state.view === 'chart') showChart();
    else if (state.view === 'sandwich') showSandwich();
    else if (state.view === 'types') showTypes();
    else showGraph();
  }

  function header() {
    const srcName = D.name + (diffPage ? '  vs  ' + D.base.name : '');
    $('file').textContent = srcName;
    $('file').title = D.source + (diffPage ? ' vs ' + D.base.source : '');
    $('format').textContent = D.formatTitle + ' ' + D.version + (diffPage && (D.base.format !== D.format || D.base.version !== D.version) ? ' vs ' + D.base.formatTitle + ' ' + D.base.version : '');
    let samples = 0;
    for (const th of main.threads) samples += th.t.samples;
    const stats = [grouped(samples) + ' samples'];
    if (main.threads.length > 1 || main.threads.some((th) => th.t.tid != null)) stats.push(main.threads.length + ' ' + threadWord + (main.threads.length === 1 ? '' : 's'));
    const pids = new Set(main.threads.map((th) => th.t.pid).filter((p) => p != null));
    if (pids.size > 1) stats.push(pids.size + ' processes');
    let dur = D.duration;
    if (dur == null && timed) {
      let a = Infinity, b = -Infinity;
      for (const th of main.threads) if (th.t.runs) { const r = main.runsOf(th.i); if (r.n) { a = Math.min(a, r.t[0]); b = Math.max(b, r.end); } }
      if (b > a) dur = b - a;
    }
    if (dur != null) stats.push('duration ' + fmtTime(dur));
    if (diffPage) stats.push('base: ' + grouped(base.threads.reduce((s, th) => s + th.t.samples, 0)) + ' samples');
    $('stats').textContent = stats.join(' · ');
    const meta = D.meta.concat(diffPage ? D.base.meta.map(([k, v]) => ['base ' + k, v]) : []);
    $('meta-summary').textContent = 'Metadata (' + meta.length + ')';
    $('meta').hidden = !meta.length;
    $('meta-list').replaceChildren(...meta.map(([k, v]) => el('span', null, el('b', null, k), ' = ' + v)));
  }

  function controls() {
    const tabs = $('tabs');
    for (const [v, label] of VIEWS) {
      if (!viewAvailable(v)) continue;
      tabs.append(el('button', { class: 'tab', role: 'tab', 'data-view': v, onclick: () => setView(v) }, diffPage && v === 'flame' ? 'Differential flame graph' : label));
    }
    // threads and processes
    const ts = $('thread');
    if (diffPage || main.threads.length < 2) {
      $('thread-box').hidden = true;
    } else {
      ts.append(el('option', { value: 'all' }, 'All ' + threadWord + 's (' + main.threads.length + ')'));
      if (snapshots) $('thread-box').firstChild.textContent = 'Snapshot ';
      const pids = [];
      for (const th of main.threads) if (th.t.pid != null && !pids.includes(th.t.pid)) pids.push(th.t.pid);
      if (pids.length > 1) for (const p of pids) {
        const n = main.threads.filter((th) => th.t.pid === p).length;
        const name = (main.threads.find((th) => th.t.pid === p && th.t.process) || { t: {} }).t.process;
        ts.append(el('option', { value: 'p:' + p }, 'Process ' + p + (name ? ' ' + name : '') + ' (' + n + (n === 1 ? ' thread)' : ' threads)')));
      }
      for (const th of main.threads) ts.append(el('option', { value: 't:' + th.i }, threadTitle(th.t)));
      ts.value = state.sel;
      ts.addEventListener('change', () => { state.sel = ts.value; state.zoom = 0; refresh(); });
    }
    // metrics: every type with a value (the secondary ones after the others)
    const ms = $('metric');
    const shown = D.types.map((t, i) => i).filter((i) => main.typeTotal(i) > 0 || i === D.type);
    shown.sort((a, b) => (D.types[a].secondary - D.types[b].secondary) || a - b);
    for (const i of shown) ms.append(el('option', { value: String(i) }, D.types[i].title + (D.types[i].unit && D.types[i].unit !== 'count' ? ' (' + D.types[i].unit + ')' : '')));
    ms.value = String(state.type);
    if (diffPage) {
      ms.replaceChildren(el('option', null, D.types[D.type].title + ' vs ' + D.base.types[D.base.type].title));
      ms.disabled = true;
    } else if (shown.length < 2) ms.disabled = true;
    ms.addEventListener('change', () => { state.type = Number(ms.value); state.zoom = 0; refresh(); });
    $('diff-box').hidden = !diffPage;
    $('diff-mode').value = state.diffMode;
    $('diff-mode').addEventListener('change', () => { state.diffMode = $('diff-mode').value; refresh(); });
    $('diff-width').addEventListener('change', () => { state.diffWidth = $('diff-width').value; refresh(); });
    $('sort').addEventListener('change', () => { state.sort = $('sort').value; refresh(); });
    const search = $('search');
    search.addEventListener('input', () => { setSearch(search.value); refresh(); });
    window.addEventListener('keydown', (e) => {
      if (e.key === '/' && document.activeElement !== search) { e.preventDefault(); search.focus(); return; }
      if (e.key !== 'Escape') return;
      if (document.activeElement === search && search.value) { search.value = ''; setSearch(''); refresh(); return; }
      if (state.view === 'chart' && chart.history.length) { [chart.v0, chart.v1] = chart.history.pop(); showChart(); return; }
      if ((state.view === 'flame' || state.view === 'icicle') && state.zoom) { state.zoom = Math.max(parent[state.zoom], 0); showGraph(); }
    });
    let pending = 0;
    window.addEventListener('resize', () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => {
        if (state.view === 'chart') drawChart();
        else if (state.view === 'sandwich') { swCallers.draw(); swCallees.draw(); }
        else if (state.view !== 'types') graph.draw();
      });
    });
  }

  // ---- what the tests read --------------------------------------------------------------------

  const api = {
    ready: false,
    firstPaint: null,
    painted() {
      if (this.firstPaint == null) this.firstPaint = performance.now();
    },
    state,
    /* the frames drawn on the main canvas (or the time order's, or a sandwich pane's) */
    drawn(which) {
      if (which === 'chart') return chart.rects.map((r) => ({ x: r.x, y: r.y, w: r.w, row: r.lane.depth[r.b], name: frameName(frameOf[r.node]), node: r.node }));
      const v = which === 'callers' ? swCallers : which === 'callees' ? swCallees : graph;
      return v.rects.map((r) => ({
        x: r.x, y: r.y, w: r.w, row: r.row, node: r.node, faded: !!r.faded,
        name: r.node === 0 ? v.tree.rootLabel : frameName(v.tree.frame[r.node]),
        match: !!r.match, delta: r.delta === undefined ? null : r.delta, only: r.only || '',
      }));
    },
    threads: () => main.threads.map((th) => th.t),
    types: () => D.types,
  };
  window.pcdViewer = api;

  // heap snapshots open on the last one
  if (snapshots && !diffPage) state.sel = 't:' + (main.threads.length - 1);
  header();
  controls();
  setView(hasRoots && !D.timeline && !diffPage ? 'icicle' : 'flame');
  api.ready = true;
})();
