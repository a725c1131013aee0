/* flame.js: what is shown (the state, the selected threads' totals, the trees drawn), the
 * search, flame graphs and icicles on canvas (FlameView), tooltips, and the main graph with its
 * total and breadcrumbs. Part of the profcodec HTML viewer (see model.js). */

// ---- what is shown --------------------------------------------------------------------------

const state = {
  view: 'flame',                  // flame | icicle | chart | sandwich | types
  sel: 'all',                     // all | p:<pid> | t:<index>
  type: D.type,
  search: null,                   // RegExp or null
  searchError: '',                // why the search text is not a regular expression
  sort: 'name',
  merge: canMerge ? 'function' : 'line',   // frames merged by function, or one per line
  palette: 'kind',                // kind | package
  diffMode: D.base && D.base.raw ? 'raw' : 'norm',
  diffWidth: 'both',
  zoom: 0,                        // a node of the trie in use
  swFn: -1,
  swSort: 'total',                // the sandwich's order: name | file | self | total
  swDesc: true,
};
/* the trie drawn: merged by function or by line */
const curTrie = () => (state.merge === 'function' ? fnTrie() : lineTrie);

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

/* self and total of every node of the trie in use, for threads `list` of a side and metric `type` */
const totalsCache = new Map();
function totalsOf(side, list, type) {
  const tr = curTrie();
  const key = (side === base ? 'b' : 'm') + ':' + state.merge + ':' + type + ':' + list.join(',');
  let r = totalsCache.get(key);
  if (r) return r;
  const self = new Float64Array(tr.n), map = tr.map;
  let samples = 0;
  for (const ti of list) {
    samples += side.threads[ti].t.samples;
    if (!side.threads[ti].t.self.v[type]) continue;
    const s = side.selfOf(ti), v = s.v[type];
    if (map) for (let i = 0; i < s.n; i++) self[map[s.node[i]]] += v[i];
    else for (let i = 0; i < s.n; i++) self[s.node[i]] += v[i];
  }
  const total = self.slice(), par = tr.parent;
  for (let i = tr.n - 1; i > 0; i--) total[par[i]] += total[i];
  r = { self, total, samples };
  if (totalsCache.size > 24) totalsCache.clear();
  totalsCache.set(key, r);
  return r;
}

/* A tree to draw: the profile's trie with the chosen totals, or a sandwich's. */
function mainTree() {
  const tr = curTrie(), N = tr.n;
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
    return { n: N, parent: tr.parent, frame: tr.frame, total: width, kidStart: tr.kidStart, kids: tr.kids, newT: a.total, baseT: bt,
      rootLabel: 'all', unit: D.types[D.type].unit, samples: a.samples, baseSamples: b.samples };
  }
  const t = totalsOf(main, selThreads(main, state.sel), state.type);
  return { n: N, parent: tr.parent, frame: tr.frame, total: t.total, self: t.self, kidStart: tr.kidStart, kids: tr.kids, rootLabel: 'all',
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
  box.removeAttribute('aria-invalid');
  state.search = null;
  state.searchError = '';
  frameMatch = null;
  if (text) {
    try {
      state.search = new RegExp(text);
    } catch (e) {
      box.classList.add('bad');
      box.setAttribute('aria-invalid', 'true');
      // "Invalid regular expression: /(/: Unterminated group": what is wrong, in words
      state.searchError = 'Not a regular expression: ' + String(e.message).replace(/^.*: /, '').toLowerCase() + ' (nothing searched)';
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
  this.atBottom = true;
  this.ownScroll = -1;
  pane.addEventListener('scroll', () => this.onScroll());
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
  const W = Math.max(200, pane.clientWidth);
  if (relayout || W !== this.width) { this.width = W; this.layout(); }
  const inverted = this.opts.inverted();
  // as tall as the frames (a shallow graph is not pushed under blank space); a sandwich's
  // callers fill their pane, their root next to the callees below
  const H = this.opts.fill ? Math.max(pane.clientHeight, this.rows * ROW + 8) : this.rows * ROW + 8;
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    canvas.style.width = W + 'px';
    canvas.style.height = H + 'px';
    // a scroll bar that came with the height takes width: lay out again in what is left
    if (pane.clientWidth < W && pane.clientWidth >= 200) return this.draw(true);
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
    r.fill = fill;
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
/* scrolls the pane; whether it shows its bottom is kept (the user's scrolling changes it), so
 * that a flame graph drawn again to a new size still shows its root */
FlameView.prototype.scrollTo = function (y) {
  const pane = this.pane;
  pane.scrollTop = y;
  this.ownScroll = pane.scrollTop;
  this.atBottom = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 4;
};
FlameView.prototype.onScroll = function () {
  const pane = this.pane;
  if (pane.scrollTop === this.ownScroll) return;   // (the event of scrollTo)
  this.ownScroll = -1;
  this.atBottom = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 4;
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
/* file:line (merged by function: the function's lines) and module of frame f */
function where(f) {
  const file = S[fFile[f]], mod = S[fModule[f]];
  let line = frameLine(f);
  if (state.merge === 'function' && line != null) {
    const r = fnLines(fnOf[f]);
    if (r[0] !== r[1]) line = r[0] + '–' + r[1];
  }
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
    tot.textContent = 'New ' + fmtValue(t.newT[0], t.unit) + ' (' + grouped(t.samples) + ' ' + countWord(D.noun) + ') vs base ' +
      fmtValue(t.baseT[0], t.unit) + (state.diffMode === 'norm' ? ' per total' : '') + ' (' + grouped(t.baseSamples) + ' ' +
      countWord(D.base.noun) + ')';
    tot.append(el('span', { class: 'legend' }, el('i', { class: 'sw grew-sw' }), 'grew ', el('i', { class: 'sw shrank-sw' }), 'shrank ',
      el('i', { class: 'sw only-sw' }), 'on one side only'));
    return;
  }
  tot.textContent = 'Total ' + fmtValue(t.total[0], t.unit) + ' · ' + grouped(t.samples) + ' ' + countWord(D.noun);
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
  out.classList.toggle('bad', !!state.searchError);
  if (!frameMatch) { out.textContent = state.searchError; out.dataset.count = ''; out.dataset.percent = ''; return; }
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
  // a flame graph taller than its pane shows its root (at the bottom) when it opens, zooms or
  // was showing it; an icicle its top when it opens or zooms
  const moved = graph.shown !== state.view + ':' + state.zoom + ':' + state.merge;
  const atBottom = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 4;
  graph.shown = state.view + ':' + state.zoom + ':' + state.merge;
  setLegend(t);
  graph.setTree(t, state.zoom);
  if (state.view === 'flame' && (moved || atBottom)) graph.scrollTo(pane.scrollHeight);
  else if (moved) graph.scrollTo(0);
  if (!(t.total[0] > 0)) showEmpty('Nothing to show: the samples of this selection have no ' + D.types[state.type].title + '.');
  else $('empty').hidden = true;
}

// ---- the legend of the colours ----------------------------------------------------------------

/* self and total per group (function, package: id[frame] of n groups) of tree t, a recursive
 * group's total counted once; outer[node]: the node is its group's outermost on its path */
function groupTotals(t, id, n) {
  const self = new Float64Array(n), total = new Float64Array(n), onPath = new Int32Array(n);
  const outer = new Uint8Array(t.n);
  const stack = [0];
  while (stack.length) {
    const i = stack.pop();
    if (i < 0) { const j = ~i; if (j > 0) onPath[id[t.frame[j]]]--; continue; }
    if (i > 0) {
      const g = id[t.frame[i]];
      self[g] += nodeSelf(t, i);
      if (!onPath[g]) { total[g] += t.total[i]; outer[i] = 1; }
      onPath[g]++;
    }
    stack.push(~i);
    for (let k = t.kidStart[i + 1]; k-- > t.kidStart[i];) if (t.total[t.kids[k]] > 0) stack.push(t.kids[k]);
  }
  return { self, total, outer };
}
/* packages by their total in the whole profile (every thread, the metric the page opens on):
 * the first ones get the palette's colours, in this order, whatever is selected later */
let pkgOrder = null;
function rankPackages() {
  if (pkgOrder) return pkgOrder;
  const tr = lineTrie, id = packages();
  const t = { n: tr.n, parent: tr.parent, frame: tr.frame, kidStart: tr.kidStart, kids: tr.kids };
  const keep = state.merge;
  state.merge = 'line';
  t.total = totalsOf(main, selThreads(main, 'all'), D.type).total;
  state.merge = keep;
  const g = groupTotals(t, id, pkgNames.length);
  pkgOrder = pkgNames.map((_, i) => i).filter((i) => i > 0 && g.total[i] > 0).sort((a, b) => g.total[b] - g.total[a] || (pkgNames[a] < pkgNames[b] ? -1 : 1));
  pkgRank = new Int32Array(pkgNames.length).fill(-1);
  pkgOrder.forEach((p, r) => { pkgRank[p] = r; });
  colourCache.clear();
  return pkgOrder;
}
const KIND_SWATCH = { 0: 'linear-gradient(90deg,rgb(230,90,40),rgb(240,200,50))' };
/* what the colours of tree t mean: the kinds it has, or its packages (the first ones named) */
function setLegend(t) {
  const box = $('legend-items');
  $('legend').hidden = diffPage || !(t.total[0] > 0);
  if ($('legend').hidden) return;
  const items = [];
  if (state.palette === 'package') {
    const order = rankPackages(), id = packages();
    const here = new Float64Array(pkgNames.length);
    for (let i = 1; i < t.n; i++) if (t.total[i] > 0) here[id[t.frame[i]]] = 1;
    const shown = order.filter((p) => here[p]);
    for (const p of shown.slice(0, PKG_COLOURS.length)) if (pkgRank[p] < PKG_COLOURS.length) items.push([rgb(PKG_COLOURS[pkgRank[p]]), pkgNames[p]]);
    const rest = shown.filter((p) => pkgRank[p] >= PKG_COLOURS.length).length;
    if (rest) items.push(['rgb(196,196,190)', rest + ' more package' + (rest === 1 ? '' : 's')]);
    if (here[0]) items.push(['', 'no package: by kind']);
    box.replaceChildren();
  } else {
    const kinds = new Uint8Array(KIND_NAMES.length);
    for (let i = 1; i < t.n; i++) if (t.total[i] > 0) kinds[fKind[t.frame[i]]] = 1;
    kinds.forEach((on, k) => { if (on) items.push([KIND_SWATCH[k] || rgb(kindRGB(k, 0x808080)), KIND_NAMES[k]]); });
    box.replaceChildren();
  }
  for (const [c, label] of items) {
    const sw = el('i', { class: 'sw' });
    if (c) sw.style.background = c; else sw.classList.add('sw-none');
    box.append(el('span', { class: 'legend-item', 'data-label': label }, sw, label));
  }
  if (frameMatch) {
    const sw = el('i', { class: 'sw' });
    sw.style.background = MATCH;
    box.append(el('span', { class: 'legend-item' }, sw, 'matches the search'));
  }
}
function showEmpty(text) {
  const e = $('empty');
  e.textContent = text;
  e.hidden = false;
}
