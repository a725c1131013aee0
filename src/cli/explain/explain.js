// explain.js: the page of `profcodec explain --to html`: the bytes (hex) beside the records and
// their fields (the tree). A click on a field highlights its bytes; a click on a byte selects the
// field it belongs to; the search finds an offset (decimal or 0x...) or fields by name.
// window.pcdExplain exposes what the tests look at.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($('pcd-explain').textContent);
  const ROW = 18, PER = 16, SLACK = 40;
  const hx = (n) => '0x' + n.toString(16);

  // ---- the data ----------------------------------------------------------------------------
  let file = null;
  const records = [], fields = [], damage = [];
  const byRecord = new Map();
  for (const ln of data.records) {
    if (ln.t === 'file') file = ln;
    else if (ln.t === 'damage') damage.push(Object.assign({ after: records.length }, ln));
    else if (ln.t === 'record') addRecord(ln);
    else if (ln.t === 'region') {
      // where a region of a record shown ended (a zstd frame's size is known only then)
      const r = byRecord.get(ln.record);
      const f = r && r.fields.map((i) => fields[i]).find((x) => x.kind === 'region' && x.name === ln.name && x.start === ln.offset);
      if (f) f.end = ln.offset + ln.size;
    }
  }

  function addRecord(ln) {
    const r = { id: records.length, n: ln.record, type: ln.type, kind: ln.kind, stream: ln.stream, start: ln.offset,
      end: ln.offset + ln.size, failed: !!ln.failed, doc: ln.doc, depth: ln.depth, fields: [], el: null, open: false };
    r.label = 'record ' + ln.record + ' · ' + ln.type + (ln.kind !== ln.type ? ' ' + ln.kind : '');
    records.push(r);
    byRecord.set(ln.record, r);
    const walk = (list, parent, depth, path) => {
      for (const f of list || []) {
        const name = f.name === null ? '[' + f.index + ']' : f.name + (f.index != null ? '[' + f.index + ']' : '');
        const x = { id: fields.length, rec: r.id, parent, depth, name, kind: f.kind, stream: r.stream, start: f.offset,
          end: f.offset + f.size, leaf: !!f.leaf, value: f.value, text: f.text, hex: f.hex, doc: f.doc, failed: !!f.failed,
          // (a union's case adds nothing to the path: the record's kind, or the field, names it)
          path: f.case ? path : path + (f.name === null ? name : '.' + name), color: 0,
          meta: f.kind !== 'field' && f.kind !== 'element' };
        if (f.kind === 'region') x.leaf = !!f.compressed;
        fields.push(x);
        r.fields.push(x.id);
        walk(f.fields, x.id, depth + 1, x.path);
      }
    };
    walk(ln.fields, -1, 0, ln.kind);
  }

  const streams = (data.streams || []).map((s) => {
    const bin = atob(s.bytes);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    return { id: s.stream, name: s.name, lo: s.lo, bytes: u8, offset: s.offset, size: s.size, leaves: [] };
  });
  // the leaves of each stream, by offset (colours in turn)
  let ci = 0;
  for (const f of fields) {
    if (!f.leaf || f.end <= f.start || !streams[f.stream]) continue;
    f.color = ci++ % 6;
    streams[f.stream].leaves.push(f.id);
  }
  for (const s of streams) s.leaves.sort((a, b) => fields[a].start - fields[b].start || fields[b].end - fields[a].end);

  /* The leaf of stream s that holds byte off (the last one starting at or before it). */
  function leafAt(s, off) {
    const L = streams[s] ? streams[s].leaves : [];
    let lo = 0, hi = L.length - 1, best = -1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (fields[L[m]].start <= off) { best = m; lo = m + 1; } else hi = m - 1;
    }
    for (let k = best; k >= 0 && k > best - 8; k--) {
      const f = fields[L[k]];
      if (f.start <= off && off < f.end) return f.id;
    }
    return -1;
  }

  // ---- the head --------------------------------------------------------------------------------
  $('file').textContent = file ? file.file : '';
  $('format').textContent = file ? file.format + ' ' + file.version + ' · ' + file.title : '';
  $('stats').textContent = file ? file.size + ' bytes' + (file.gzip ? ' (gzip; ' + file.stream_size + ' decompressed)' : '') +
    ' · ' + records.length + ' records shown' : '';
  if (damage.length) $('damage').textContent = damage.length + ' damaged place' + (damage.length > 1 ? 's' : '');
  const sel = $('stream');
  for (const s of streams) {
    const o = document.createElement('option');
    o.value = s.id;
    o.textContent = s.id === 0 ? s.name : s.name + ' (decompressed, at ' + hx(s.offset) + ')';
    sel.appendChild(o);
  }

  // ---- the hex ----------------------------------------------------------------------------------
  let cur = 0, selected = -1;
  const hexEl = $('hex'), space = $('hex-space'), rowsEl = $('hex-rows');
  function firstRow(s) { return Math.floor(s.lo / PER); }
  function nRows(s) { return s.bytes.length ? Math.ceil((s.lo + s.bytes.length) / PER) - firstRow(s) : 0; }
  function showStream(id) {
    cur = id;
    sel.value = String(id);
    space.style.height = nRows(streams[id]) * ROW + 'px';
    drawHex();
  }
  function drawHex() {
    const s = streams[cur];
    if (!s) return;
    const top = Math.max(0, Math.floor(hexEl.scrollTop / ROW) - SLACK);
    const bot = Math.min(nRows(s), Math.ceil((hexEl.scrollTop + hexEl.clientHeight) / ROW) + SLACK);
    const f0 = firstRow(s);
    const sf = selected >= 0 ? fields[selected] : null;
    const inSel = (o) => sf && sf.stream === cur && o >= sf.start && o < sf.end;
    const out = [];
    for (let r = top; r < bot; r++) {
      const base = (f0 + r) * PER;
      let line = '<div class="row" style="position:absolute;top:' + r * ROW + 'px"><span class="off">' +
        base.toString(16).padStart(8, '0') + '</span>';
      let asc = '';
      for (let k = 0; k < PER; k++) {
        const o = base + k, i = o - s.lo;
        if (i < 0 || i >= s.bytes.length) { line += '   '; continue; }
        const b = s.bytes[i], f = leafAt(cur, o);
        const cls = 'b' + (f >= 0 ? ' c' + fields[f].color : ' gap') + (inSel(o) ? ' sel' : '');
        line += '<span class="' + cls + '" data-o="' + o + '">' + b.toString(16).padStart(2, '0') + '</span> ';
        asc += b >= 32 && b < 127 ? String.fromCharCode(b).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]) : '.';
      }
      out.push(line + '<span class="asc">' + asc + '</span></div>');
    }
    rowsEl.innerHTML = out.join('');
  }
  hexEl.addEventListener('scroll', () => requestAnimationFrame(drawHex));
  rowsEl.addEventListener('click', (ev) => {
    const t = ev.target.closest('.b');
    if (!t) return;
    const o = Number(t.dataset.o), f = leafAt(cur, o);
    if (f >= 0) select(f, false);
    else detail('No field at offset ' + o + ' (' + hx(o) + ') of ' + streams[cur].name + '.');
  });
  sel.addEventListener('change', () => { hexEl.scrollTop = 0; showStream(Number(sel.value)); });

  // ---- the tree ----------------------------------------------------------------------------------
  const treeEl = $('tree');
  const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  for (const r of records) {
    const d = document.createElement('div');
    d.className = 'rec' + (r.failed ? ' failed' : '');
    d.innerHTML = '<div class="head"><span class="tw">▸</span>' + esc(r.label) + ' <span class="at">@' + r.start +
      (r.stream ? ' (decompressed)' : '') + ' · ' + (r.end - r.start) + ' bytes</span></div>';
    d.firstChild.addEventListener('click', () => toggle(r));
    r.el = d;
    treeEl.appendChild(d);
  }
  for (const dm of damage) {
    // after the record it stopped (the one that failed, shown before it)
    const d = document.createElement('div');
    d.className = 'damage';
    d.textContent = 'damage: ' + dm.message + (dm.found ? '\nbytes found: ' + dm.found.replace(/(..)/g, '$1 ') : '') +
      (dm.resumed != null ? '\nread on at offset ' + dm.resumed : '');
    const before = dm.after < records.length ? records[dm.after].el : null;
    treeEl.insertBefore(d, before);
  }
  function toggle(r, open) {
    r.open = open === undefined ? !r.open : open;
    r.el.firstChild.firstChild.textContent = r.open ? '▾' : '▸';
    if (r.open && r.el.childNodes.length === 1) {
      const frag = document.createDocumentFragment();
      for (const id of r.fields) {
        const f = fields[id];
        const row = document.createElement('div');
        row.className = 'fld' + (f.meta ? ' meta' : '') + (f.failed ? ' failed' : '');
        row.dataset.f = id;
        row.style.paddingLeft = 24 + f.depth * 16 + 'px';
        let v = '';
        if (f.failed) v = '← decoding failed here';
        else if (f.value !== undefined) v = '= ' + JSON.stringify(f.value);
        else if (f.text !== undefined) v = '= ' + JSON.stringify(f.text);
        else if (!f.leaf) v = '(' + (f.end - f.start) + ' bytes)';
        if (v.length > 90) v = v.slice(0, 90) + '…';
        row.innerHTML = (f.leaf ? '<span class="sw c' + f.color + '"></span>' : '<span class="sw"></span>') +
          '<span class="at">' + f.start + '+' + (f.end - f.start) + '</span><span class="name">' + esc(f.name) +
          '</span><span class="val">' + esc(v) + '</span>' + (f.doc ? '<span class="doc">' + esc(f.doc.length > 110 ? f.doc.slice(0, 110) + '…' : f.doc) + '</span>' : '');
        row.addEventListener('click', (ev) => { ev.stopPropagation(); select(id, true); });
        f.el = row;
        frag.appendChild(row);
      }
      r.el.appendChild(frag);
    }
    for (let k = 1; k < r.el.childNodes.length; k++) r.el.childNodes[k].style.display = r.open ? '' : 'none';
  }

  // ---- selection -----------------------------------------------------------------------------------
  function detail(html) { $('detail').innerHTML = html; }
  function select(id, scrollHex) {
    const f = fields[id];
    if (selected >= 0 && fields[selected].el) fields[selected].el.classList.remove('sel');
    selected = id;
    const r = records[f.rec];
    if (!r.open) toggle(r, true);
    f.el.classList.add('sel');
    f.el.scrollIntoView({ block: 'nearest' });
    if (f.stream !== cur && streams[f.stream]) showStream(f.stream);
    if (scrollHex) {
      const row = Math.floor(f.start / PER) - firstRow(streams[cur]);
      const y = row * ROW;
      if (y < hexEl.scrollTop || y > hexEl.scrollTop + hexEl.clientHeight - ROW) hexEl.scrollTop = Math.max(0, y - 3 * ROW);
    }
    drawHex();
    let v = f.failed ? 'decoding failed here' : f.value !== undefined ? JSON.stringify(f.value) : f.text !== undefined ? JSON.stringify(f.text) : '';
    detail('<b>' + esc(f.path) + '</b> · offset <code>' + f.start + '</code> (<code>' + hx(f.start) + '</code>)' +
      (f.stream ? ' of the decompressed ' + esc(streams[f.stream].name) : '') + ' · ' + (f.end - f.start) + ' bytes' +
      (v ? ' · value <code>' + esc(v.length > 200 ? v.slice(0, 200) + '…' : v) + '</code>' : '') +
      (f.hex ? ' · bytes <code>' + esc(f.hex.slice(0, 64).replace(/(..)/g, '$1 ')) + (f.hex.length > 64 ? '…' : '') + '</code>' : '') +
      (f.doc ? '<br>' + esc(f.doc) : ''));
  }

  // ---- search --------------------------------------------------------------------------------------
  let hits = [], hit = -1, lastQuery = '';
  function find(q) {
    q = q.trim();
    if (/^(0x[0-9a-f]+|[0-9]+)$/i.test(q)) {
      // an offset of the file (else of the decompressed data shown, else of any)
      const o = Number(q);
      let f = leafAt(0, o);
      if (f < 0) f = leafAt(cur, o);
      if (f < 0) for (const s of streams) if ((f = leafAt(s.id, o)) >= 0) break;
      hits = f >= 0 ? [f] : [];
      $('found').textContent = f >= 0 ? fields[f].path + ' holds offset ' + o + ' (' + hx(o) + ')' : 'no field at offset ' + o;
    } else {
      const low = q.toLowerCase();
      hits = q ? fields.filter((f) => f.path.toLowerCase().includes(low)).map((f) => f.id) : [];
      $('found').textContent = hits.length + ' field' + (hits.length === 1 ? '' : 's') + ' named like "' + q + '"';
    }
    hit = -1;
    lastQuery = q;
    return hits.slice();
  }
  $('search').addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    const q = $('search').value;
    if (q.trim() !== lastQuery) find(q);
    if (!hits.length) return;
    hit = (hit + 1) % hits.length;
    if (hits.length > 1) $('found').textContent = (hit + 1) + ' of ' + hits.length + ' fields named like "' + lastQuery + '"';
    select(hits[hit], true);
  });

  showStream(0);
  window.pcdExplain = {
    ready: true, records: records.length, fields: fields.length, damage: damage.length,
    select: (id) => select(id, true), find, leafAt, field: (id) => Object.assign({}, fields[id], { el: undefined }),
    fieldNamed: (path) => fields.findIndex((f) => f.path === path),
    highlighted: () => Array.from(document.querySelectorAll('.b.sel')).map((e) => Number(e.dataset.o)),
    selected: () => selected,
  };
})();
