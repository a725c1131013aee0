/* page.js: the page: tabs, header, selectors, keys, what the tests read (window.pcdViewer),
 * and the start. Part of the profcodec HTML viewer (see model.js). */

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
  $('sort-box').hidden = !(v === 'flame' || v === 'icicle');
  $('palette-box').hidden = diffPage || v === 'types';
  $('merge-box').hidden = !canMerge || v === 'types';
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
  const stats = [grouped(samples) + ' ' + countWord(D.noun)];
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
  if (diffPage) stats.push('base: ' + grouped(base.threads.reduce((s, th) => s + th.t.samples, 0)) + ' ' + countWord(D.base.noun));
  $('stats').textContent = stats.join(' · ');
  const meta = D.meta.concat(diffPage ? D.base.meta.map(([k, v]) => ['base ' + k, v]) : []);
  $('meta-summary').textContent = 'Metadata (' + meta.length + ')';
  $('meta').hidden = !meta.length;
  $('meta-list').replaceChildren(...meta.map(([k, v]) => {
    const shown = fmtMeta(v);
    return el('span', shown !== v ? { title: k + ' = ' + v } : null, el('b', null, k), ' = ' + shown);
  }));
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
  // frames merged by function or by line: the zoomed node is the same one merged, or the root
  const merge = $('merge');
  merge.value = state.merge;
  merge.addEventListener('change', () => {
    const z = state.zoom;
    state.merge = merge.value;
    state.zoom = state.merge === 'function' && z ? fnTrie().map[z] : 0;
    refresh();
  });
  // palettes: by kind, or by package (when frames have two packages or more: found after the
  // first picture, which does not need them)
  const pal = $('palette');
  pal.value = state.palette;
  setTimeout(() => {
    packages();
    if (pkgNames.length < 3) pal.querySelector('option[value="package"]').remove();
    pal.disabled = pal.options.length < 2;
  }, 0);
  pal.addEventListener('change', () => {
    state.palette = pal.value;
    if (state.palette === 'package') rankPackages();
    refresh();
  });
  const search = $('search');
  search.addEventListener('input', () => { setSearch(search.value); refresh(); });
  window.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== search) { e.preventDefault(); search.focus(); return; }
    // Esc: in the search box, clears it; elsewhere zooms all the way out (one press)
    if (e.key !== 'Escape') return;
    if (document.activeElement === search && search.value) { search.value = ''; setSearch(''); refresh(); return; }
    if (state.view === 'chart' && (chart.v0 !== chart.x0 || chart.v1 !== chart.x1)) { chart.v0 = chart.x0; chart.v1 = chart.x1; chart.history = []; showChart(); return; }
    if ((state.view === 'flame' || state.view === 'icicle') && state.zoom) { state.zoom = 0; showGraph(); }
  });
  // the panes' size (the window's, the metadata opened or closed): drawn again to fit, a flame
  // graph that showed its root still showing it
  let pending = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      if (state.view === 'chart') drawChart();
      else if (state.view === 'sandwich') { swCallers.draw(); swCallees.draw(); }
      else if (state.view !== 'types') {
        const bottom = graph.atBottom;
        graph.draw();
        if (state.view === 'flame' && bottom) graph.scrollTo($('graph').scrollHeight);
      }
    });
  }).observe($('main'));
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
    if (which === 'chart') return chart.rects.map((r) => ({ x: r.x, y: r.y, w: r.w, row: r.lane.depth[r.b], name: frameName(curTrie().frame[r.node]), node: r.node }));
    const v = which === 'callers' ? swCallers : which === 'callees' ? swCallees : graph;
    return v.rects.map((r) => ({
      x: r.x, y: r.y, w: r.w, row: r.row, node: r.node, parent: r.node === 0 ? -1 : v.tree.parent[r.node], faded: !!r.faded,
      name: r.node === 0 ? v.tree.rootLabel : frameName(v.tree.frame[r.node]),
      match: !!r.match, delta: r.delta === undefined ? null : r.delta, only: r.only || '', fill: r.fill,
      file: r.node === 0 && !v.tree.rootFrame ? '' : S[fFile[v.tree.frame[r.node]]], line: r.node === 0 && !v.tree.rootFrame ? null : frameLine(v.tree.frame[r.node]),
      package: r.node === 0 && !v.tree.rootFrame ? '' : pkgNames[packages()[v.tree.frame[r.node]]],
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
