/* sandwich.js: the sandwich view (functions by total; a function's callers and callees) and
 * the heap types view (top types per metric, growth across snapshots). Part of the profcodec
 * HTML viewer (see model.js). */

// ---- sandwich: a function's callers and callees ---------------------------------------------

/* self and total per function (a recursive function's total counted once) */
const fnTotals = (t) => groupTotals(t, fnOf, NFN);
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
const swCallers = new FlameView($('sw-callers'), $('sw-callers-canvas'), { inverted: () => false, tip: miniTip, onClick: null, fill: true });
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
/* a file as the sandwich's column shows it: its name, with its directory when another file of
 * the profile has that name too (the whole path in the tooltip) */
let sameName = null;
function shortFile(file) {
  if (!sameName) {
    sameName = new Map();
    for (let f = 0; f < NF; f++) for (const x of [S[fFile[f]], S[fModule[f]]]) {
      if (!x) continue;
      const b = x.slice(x.lastIndexOf('/') + 1);
      if (!sameName.has(b)) sameName.set(b, new Set());
      sameName.get(b).add(x);
    }
  }
  const parts = file.split('/'), b = parts[parts.length - 1];
  return sameName.get(b).size > 1 && parts.length > 1 ? (parts.length > 2 ? '…/' : '') + parts.slice(-2).join('/') : b;
}
const SW_COLUMNS = [['name', 'Function'], ['file', 'File'], ['self', 'Self'], ['total', 'Total']];
function swHead() {
  const row = el('tr');
  for (const [key, label] of SW_COLUMNS) {
    const on = state.swSort === key;
    row.append(el('th', { class: (key === 'self' || key === 'total' ? 'num ' : '') + 'sortable' + (on ? ' sorted' : ''), 'data-sort': key,
      title: 'Sort by ' + label.toLowerCase() + (on ? ' (again: the other way)' : ''),
      'aria-sort': on ? (state.swDesc ? 'descending' : 'ascending') : 'none',
      onclick: () => {
        if (state.swSort === key) state.swDesc = !state.swDesc;
        else { state.swSort = key; state.swDesc = key === 'self' || key === 'total'; }
        showSandwich();
      } }, label, on ? el('span', { class: 'arrow' }, state.swDesc ? ' ▾' : ' ▴') : null));
  }
  $('sw-table').tHead.replaceChildren(row);
}
function showSandwich() {
  const t = mainTree();
  setTotal(t);
  setSearchResult(t);
  setLegend(t);
  $('path').replaceChildren(el('span', { class: 'crumb cur' }, 'Functions (name and file); pick one for its callers and callees'));
  const ft = fnTotals(t);
  const order = [];
  for (let fn = 0; fn < NFN; fn++) if (ft.total[fn] > 0 && (!frameMatch || frameMatch[fnFrame[fn]])) order.push(fn);
  const byName = (a, b) => frameRank[fnFrame[a]] - frameRank[fnFrame[b]];
  const fileOf = (fn) => S[fFile[fnFrame[fn]]] || '';
  const cmp = {
    name: byName,
    file: (a, b) => (fileOf(a) < fileOf(b) ? -1 : fileOf(a) > fileOf(b) ? 1 : byName(a, b)),
    self: (a, b) => ft.self[a] - ft.self[b] || ft.total[a] - ft.total[b] || byName(b, a),
    total: (a, b) => ft.total[a] - ft.total[b] || ft.self[a] - ft.self[b] || byName(b, a),
  }[state.swSort];
  order.sort(state.swDesc ? (a, b) => cmp(b, a) : cmp);
  if (state.swFn < 0 || !(ft.total[state.swFn] > 0) || (frameMatch && !order.includes(state.swFn))) state.swFn = order.length ? order[0] : -1;
  swHead();
  const body = el('tbody');
  const root = t.total[0];
  for (const fn of order.slice(0, 400)) {
    const f = fnFrame[fn], file = S[fFile[f]], mod = S[fModule[f]];
    body.append(el('tr', { class: fn === state.swFn ? 'sel' : '', 'data-fn': String(fn), onclick: () => { state.swFn = fn; showSandwich(); } },
      el('td', { class: 'fn', title: where(f) }, frameName(f)),
      el('td', { class: 'file', title: file || mod || '' }, file ? shortFile(file) : mod ? shortFile(mod) : '–'),
      el('td', { class: 'num', 'data-value': String(ft.self[fn]) }, ft.self[fn] > 0 ? fmtValue(ft.self[fn], t.unit) + ' · ' + pct(ft.self[fn], root) : '–'),
      el('td', { class: 'num', 'data-value': String(ft.total[fn]) }, fmtValue(ft.total[fn], t.unit) + ' · ' + pct(ft.total[fn], root))));
  }
  if (order.length > 400) body.append(el('tr', { class: 'more' }, el('td', { colspan: '4' }, (order.length - 400) + ' more functions: search to find one')));
  $('sw-table').tBodies[0].replaceWith(body);
  if (state.swFn < 0) {
    $('sw-title').textContent = '';
    swCallers.setTree(null); swCallees.setTree(null);
    return;
  }
  const f = fnFrame[state.swFn];
  const fn = state.swFn;
  $('sw-title').replaceChildren(frameName(f), el('span', { class: 'kind' }, KIND_NAMES[fKind[f]]),
    el('span', { class: 'where' }, '  ' + (S[fFile[f]] || '') + '  self ' + fmtValue(ft.self[fn], t.unit) + ' (' + pct(ft.self[fn], root) + '), total ' +
      fmtValue(ft.total[fn], t.unit) + ' (' + pct(ft.total[fn], root) + ')'));
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
  $('legend').hidden = true;
  $('path').replaceChildren(el('span', { class: 'crumb cur' }, 'Heap types: the values of the frames of kind "heap type", merged by name'));
  const box = $('types');
  box.replaceChildren();
  const list = selThreads(main, state.sel);
  const sel = $('thread-box').hidden ? '' : ($('thread').selectedOptions[0] || { textContent: '' }).textContent;
  // a table per metric that has values on heap types here; rows with a value only
  const tables = el('div', { class: 'tables' });
  const none = [];
  for (let m = 0; m < D.types.length; m++) {
    if (!(main.typeTotal(m) > 0)) continue;
    const vals = typeValues(list, m);
    const total = [...vals.values()].reduce((a, b) => a + b, 0);
    if (!(total > 0)) { none.push(D.types[m].title); continue; }
    const rows = [...vals.entries()].filter((e) => e[1] > 0 && (!frameMatch || state.search.test(e[0])))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = rows.length ? rows[0][1] : 1;
    const shown = rows.slice(0, 50);
    const part = el('div', { 'data-metric': D.types[m].name }, el('h2', null, 'By ' + D.types[m].title + ' (' + rows.length + (rows.length === 1 ? ' type' : ' types') + ')'));
    if (!rows.length) part.append(el('p', { class: 'note' }, 'No type matches the search.'));
    else part.append(table(['Type', D.types[m].title, 'share'], shown.map(([name, v]) => el('tr', { 'data-type': name, onclick: () => pickType(name) },
      el('td', { class: 'fn' }, el('span', { class: 'bar', style: 'width:' + Math.round(60 * v / top) + 'px' }), name),
      el('td', { class: 'num' }, fmtValue(v, D.types[m].unit)), el('td', { class: 'num' }, pct(v, total))))));
    if (rows.length > shown.length) part.append(el('p', { class: 'note' }, (rows.length - shown.length) + ' more types: search to find one'));
    tables.append(part);
  }
  box.append(el('h2', null, 'Top types' + (sel ? ' in ' + sel : '')));
  if (!tables.children.length) {
    box.append(el('p', { class: 'note empty-types' }, 'No heap type has a value ' + (sel ? 'in ' + sel : 'in this file') +
      ': its heap-type frames carry none of ' + D.types.map((ty) => ty.title).join(', ') + '.'));
  } else {
    box.append(el('p', { class: 'note' }, 'Click a type for its sandwich: where it is allocated or what retains it.' +
      (none.length ? ' ' + none.join(', ') + ': no values on heap types, no table.' : '')));
    box.append(tables);
  }
  // growth across snapshots (the types with a value in some snapshot)
  if (snapshots) {
    const m = state.type;
    const per = main.threads.map((th) => typeValues([th.i], m));
    const names = new Set();
    per.forEach((mm) => mm.forEach((v, k) => { if (v) names.add(k); }));
    const first = per[0], last = per[per.length - 1];
    const rows = [...names].filter((n) => !frameMatch || state.search.test(n))
      .map((n) => [n, (last.get(n) || 0) - (first.get(n) || 0)])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50);
    box.append(el('h2', null, 'Growth from the first to the last snapshot (' + D.types[m].title + ')'));
    if (!rows.length) box.append(el('p', { class: 'note' }, names.size ? 'No type matches the search.' : 'No heap type has a ' + D.types[m].title + ' in any snapshot.'));
    else box.append(table(['Type', ...main.threads.map((th) => threadTitle(th.t)), 'change'], rows.map(([n, d]) =>
      el('tr', { 'data-type': n, onclick: () => pickType(n) }, el('td', { class: 'fn' }, n),
        ...per.map((mm) => el('td', { class: 'num' }, mm.get(n) ? fmtValue(mm.get(n), D.types[m].unit) : '–')),
        el('td', { class: 'num ' + (d > 0 ? 'grew' : d < 0 ? 'shrank' : '') }, (d > 0 ? '+' : '') + fmtValue(d, D.types[m].unit))))));
  }
  $('empty').hidden = true;
  api.painted();
}
function pickType(name) {
  for (let fn = 0; fn < NFN; fn++) if (frameName(fnFrame[fn]) === name && fKind[fnFrame[fn]] === K_TYPE) { state.swFn = fn; break; }
  setView('sandwich');
}
