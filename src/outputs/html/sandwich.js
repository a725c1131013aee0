/* sandwich.js: the sandwich view (functions by total; a function's callers and callees) and
 * the heap types view (top types per metric, growth across snapshots). Part of the profcodec
 * HTML viewer (see model.js). */

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
