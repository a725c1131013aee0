/* timeline.js: the time order (or sample order) view: the timeline's runs merged into boxes
 * per thread, drawn on canvas, zoomed by click and wheel, panned by dragging. Part of the
 * profcodec HTML viewer (see model.js). */

// ---- time order (the timeline's runs) -------------------------------------------------------

const timed = D.timeline === 'time';
/* Boxes of one thread's runs: consecutive runs that share a node at a depth make one box.
 * The open boxes are the path of the last run; each run walks up only to where its path
 * meets that one. */
let onPath = null;                // node of the trie -> its depth + 1 while on the open path
function laneBoxes(ti, type) {
  const r = main.runsOf(ti), tr = curTrie(), map = tr.map, par = tr.parent;
  if (!onPath || onPath.length < tr.n) onPath = new Int32Array(tr.n);
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
    let a = map ? map[r.node[i]] : r.node[i];
    while (a > 0 && !onPath[a]) { fresh.push(a); a = par[a]; }
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
  const key = state.sel + ':' + state.type + ':' + state.merge;
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
  const frame = curTrie().frame;
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
      const f = frame[l.node[b]];
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
        const f = frame[l.node[b]];
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
  const l = r.lane, f = curTrie().frame[r.node];
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
  setLegend(t);
  if (!chart.lanes.length) showEmpty('No timeline for this selection and metric.');
  else $('empty').hidden = true;
  drawChart();
}
