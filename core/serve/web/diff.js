// tracehound serve's diff view (diff.html): runs A and B stacked on one time
// axis, each shifted so that the chosen step pair's starts (or two chosen
// events) are at 0; W/S/A/D, the wheel and drags move both. Beside them the
// Δ table of GET /api/v1/diff: hovering a row outlines its events on both
// sides, clicking frames its first instance in the chosen step on each side;
// clicking an event selects its row (its matched events outlined on both sides).
// Tabs show the other levels instead of the table: the chosen step pair's
// structural rows (click one: select its name's row) and the attribution;
// parity warnings stay above them.
// The hash holds ids only: #diff=A,B&step=K[&ea=ID&eb=ID]&t0=NS&t1=NS&row=I&level=L.
// window.__diff is the hook the browser test reads.
import {ApiError, getJson} from './api.js';
import {DiffSide} from './diff_side.js';
import {renderAttribution, renderStructure, renderWarnings} from './diff_levels.js';
import {markSelected, renderDiffTable} from './diff_table.js';
import {el} from './dom.js';
import {fmtDur} from './format.js';
import {LABEL_W} from './timeline.js';

const $ = (id) => document.getElementById(id);
const MIN_SPAN = 100;
const ZOOM_IN = 0.8, PAN = 0.15;
const wait = (ms) => new Promise((res) => setTimeout(res, ms));
const LEVELS = ['aggregate', 'structure', 'attribution'];
const LEVEL_TABLE = {aggregate: 'diff-table', structure: 'diff-structure', attribution: 'diff-attribution'};
const int = (s) => (s !== null && /^\d+$/.test(s) ? Number(s) : null);

function readHash() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ''));
  const runs = (p.get('diff') || '').split(',').map(int);
  const num = (k) => (p.has(k) && /^-?\d+$/.test(p.get(k)) ? Number(p.get(k)) : null);
  return {a: runs.length === 2 ? runs[0] : null, b: runs.length === 2 ? runs[1] : null, step: int(p.get('step')),
    ea: int(p.get('ea')), eb: int(p.get('eb')), t0: num('t0'), t1: num('t1'), row: int(p.get('row')),
    level: LEVELS.includes(p.get('level')) ? p.get('level') : 'aggregate'};
}

class DiffView {
  constructor() {
    this.view = {t0: 0, t1: 1};
    this.sides = [new DiffSide('A', $('canvas-a'), this), new DiffSide('B', $('canvas-b'), this)];
    this.step = 0;
    this.anchor = null;   // {ea, eb}: aligned on two events instead of a step
    this.row = null;      // selected table row
    this.hovered = null;
    this.mouse = null;
    this.lastHash = '';
    this.level = 'aggregate';
  }

  async start() {
    const h = readHash();
    if (h.a === null || h.b === null) {
      $('status').textContent = 'no runs to compare: pick two in the run list (compare), or open #diff=A,B';
      return;
    }
    $('runs-link').href = 'runs.html' + location.search;
    const runs = (await getJson('runs')).runs;
    const nameOf = (n) => { const r = runs.find((x) => x.run === n); if (!r) throw new Error('no run ' + n); return r.name; };
    const names = [nameOf(h.a), nameOf(h.b)];
    $('title').textContent = 'A: ' + names[0] + '  vs  B: ' + names[1];
    this.attachInput();
    $('status').textContent = 'loading the runs…';
    await Promise.all(this.sides.map((s, k) => s.open(k ? h.b : h.a, names[k])));
    this.diff = await this.loadDiff(h.a, h.b);
    renderDiffTable($('diff-table'), this.diff.diff.aggregate, (i) => this.hover(i), (i) => this.guard(this.selectRow(i)));
    $('step').replaceChildren(...this.diff.pairs.map((p, k) => el('option', {value: k}, 'step ' + p.a_step + ' ↔ ' + p.b_step)));
    $('step').disabled = !this.diff.pairs.length;
    const d = this.diff.diff;
    renderWarnings($('diff-warnings'), d.warnings);
    renderAttribution($('diff-attribution'), d.attribution);
    this.showLevel(h.level);
    $('summary').textContent = 'step time A ' + fmtDur(d.attribution.a_step_ns) + ', B ' + fmtDur(d.attribution.b_step_ns) +
      ' (Δ ' + fmtDur(d.attribution.delta_ns) + ')';
    this.alignOnStep(h.step !== null && h.step < this.diff.pairs.length ? h.step : 0);
    if (h.ea !== null && h.eb !== null) await this.alignOnEvents(h.ea, h.eb);
    if (h.t0 !== null && h.t1 !== null && h.t1 > h.t0) this.setView(h.t0, h.t1);
    if (h.row !== null && h.row < d.aggregate.length) await this.selectRow(h.row, h.t0 === null);
    this.ready = true;
    this.requestDraw();
  }

  // GET /api/v1/diff; 503 while the server computes it (the status line says so).
  async loadDiff(a, b) {
    for (;;) {
      try {
        return await getJson('diff', {a, b});
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
        $('status').textContent = 'computing the diff…';
        await wait(400);
      }
    }
  }

  // Shows one level's table (the structure of the chosen step pair).
  showLevel(level) {
    this.level = level;
    for (const b of document.querySelectorAll('#diff-levels button')) b.classList.toggle('active', b.dataset.level === level);
    for (const l of LEVELS) $(LEVEL_TABLE[l]).hidden = l !== level;
    this.writeHash();
  }
  renderStructure() {
    const p = this.pair();
    const entry = p && this.diff.diff.structure.find((s) => s.a_step === p.a_step && s.b_step === p.b_step);
    renderStructure($('diff-structure'), entry, (key, name) => this.matchRow(key, name));
  }

  guard(p) { return Promise.resolve(p).catch((e) => this.error(e.message || String(e))); }
  error(msg) {
    $('error').textContent = msg;
    clearTimeout(this.errorTimer);
    this.errorTimer = setTimeout(() => { $('error').textContent = ''; }, 10000);
  }

  // --- alignment ------------------------------------------------------------
  pair() { return this.diff.pairs[this.step]; }
  // Step pair k at 0 on both sides; the view spans the longer step.
  alignOnStep(k) {
    this.step = k;
    this.anchor = null;
    $('step').value = String(k);
    this.renderStructure();
    const p = this.pair();
    this.sides[0].offset = p ? p.a_start_ns : 0;
    this.sides[1].offset = p ? p.b_start_ns : 0;
    const span = p ? Math.max(p.a_end_ns - p.a_start_ns, p.b_end_ns - p.b_start_ns) : Math.max(this.sides[0].endNs, this.sides[1].endNs);
    this.setView(-0.02 * span, 1.02 * span);
  }
  // Events ea (on A) and eb (on B) start at 0.
  async alignOnEvents(ea, eb) {
    const [a, b] = await Promise.all([this.sides[0].selectId(ea), this.sides[1].selectId(eb)]);
    this.anchor = {ea, eb};
    this.sides[0].offset = a.start;
    this.sides[1].offset = b.start;
    const span = Math.max(a.dur, b.dur, 1000);
    this.setView(-span, 3 * span);
  }
  // "align on selected": each side's one selected event.
  alignOnSelected() {
    const one = this.sides.map((s) => (s.selection.size === 1 ? [...s.selection.keys()][0] : null));
    if (one.includes(null)) { this.error('select one event on each side (click it), then align on them'); return; }
    this.guard(this.alignOnEvents(one[0], one[1]));
  }

  // --- the shared view ------------------------------------------------------
  setView(t0, t1) {
    const lo = Math.min(...this.sides.map((s) => -s.offset)), hi = Math.max(...this.sides.map((s) => s.endNs - s.offset));
    const whole = Math.max(1, hi - lo);
    const span = Math.max(MIN_SPAN, Math.min(t1 - t0, 4 * whole));
    let a = (t0 + t1) / 2 - span / 2;
    a = Math.max(lo - whole, Math.min(a, hi + whole - span));
    this.view = {t0: a, t1: a + span};
    this.requestDraw();
  }
  zoom(f, at) { this.setView(at - (at - this.view.t0) * f, at + (this.view.t1 - at) * f); }
  pan(frac) { const d = (this.view.t1 - this.view.t0) * frac; this.setView(this.view.t0 + d, this.view.t1 + d); }

  requestDraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      for (const s of this.sides) s.draw();
      this.updateStatus();
      this.writeHash();
    });
  }
  updateStatus() {
    if (!this.diff) return;
    const sel = this.row === null ? '' : ' · row: ' + this.diff.diff.aggregate[this.row].name;
    $('status').textContent = (this.anchor ? 'aligned on two events' : 'aligned on step ' + this.pair().a_step + ' ↔ ' + this.pair().b_step) +
      ' · ' + fmtDur(this.view.t1 - this.view.t0) + ' shown' + sel;
  }
  writeHash() {
    if (!this.diff) return;
    const p = new URLSearchParams();
    p.set('diff', this.sides[0].run + ',' + this.sides[1].run);
    p.set('step', String(this.step));  // also when aligned on events: a row frames its instance in this step
    if (this.anchor) { p.set('ea', String(this.anchor.ea)); p.set('eb', String(this.anchor.eb)); }
    p.set('t0', String(Math.floor(this.view.t0)));
    p.set('t1', String(Math.ceil(this.view.t1)));
    if (this.row !== null) p.set('row', String(this.row));
    if (this.level !== 'aggregate') p.set('level', this.level);
    const h = '#' + p.toString().replace(/%2C/g, ',');
    if (h === this.lastHash) return;
    this.lastHash = h;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => history.replaceState(null, '', location.pathname + location.search + h), 150);
  }

  // --- the table ------------------------------------------------------------
  // Outlines row i's events on both sides (null: the selected row's).
  hover(i) {
    this.hovered = i;
    this.highlightRow(i !== null ? i : this.row);
  }
  highlightRow(i) {
    const r = i === null ? null : this.diff.rows[i];
    this.sides[0].highlight = r ? new Set(r.a_names) : null;
    this.sides[1].highlight = r ? new Set(r.b_names) : null;
    this.requestDraw();
  }
  // Selects row i; with `frame`, frames its first instance in the chosen
  // step on each side (selected, lanes revealed).
  async selectRow(i, frame = true) {
    this.row = i;
    markSelected($('diff-table'), i);
    this.highlightRow(this.hovered !== null ? this.hovered : i);
    if (!frame) return;
    const r = this.diff.rows[i], k = this.step;
    const first = [r.a_first[k], r.b_first[k]];
    let lo = Infinity, hi = -Infinity;
    first.forEach((f, s) => {
      if (!f) { this.sides[s].selection.clear(); return; }
      lo = Math.min(lo, f[0] - this.sides[s].offset);
      hi = Math.max(hi, f[1] - this.sides[s].offset);
    });
    if (lo === Infinity) { this.error('this row has no event in the chosen step on either side'); return; }
    const pad = Math.max((hi - lo) * 0.15, 200);
    this.setView(lo - pad, hi + pad);
    await Promise.all(first.map((f, s) => (f ? this.sides[s].selectId(f[2]) : null)));
    this.requestDraw();
  }

  // Selects (without framing) the table row an event's raw name belongs to,
  // so its matched events are outlined on both sides; scrolls the row into view.
  matchRow(key, name) {
    const i = this.diff.rows.findIndex((r) => r[key].includes(name));
    if (i < 0) return;
    this.guard(this.selectRow(i, false));
    const tr = document.querySelector('#diff-table tr[data-index="' + i + '"]');
    if (tr) tr.scrollIntoView({block: 'nearest'});
  }

  // --- input ----------------------------------------------------------------
  attachInput() {
    $('step').addEventListener('change', () => this.alignOnStep(Number($('step').value)));
    $('align-events').addEventListener('click', () => this.alignOnSelected());
    for (const b of document.querySelectorAll('#diff-levels button')) b.addEventListener('click', () => this.showLevel(b.dataset.level));
    window.addEventListener('keydown', (e) => {
      const t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT') || e.altKey || e.ctrlKey || e.metaKey) return;
      const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const at = this.mouse ? this.mouse.t : (this.view.t0 + this.view.t1) / 2;
      if (k === 'w') this.zoom(ZOOM_IN, at);
      else if (k === 's') this.zoom(1 / ZOOM_IN, at);
      else if (k === 'a') this.pan(-PAN);
      else if (k === 'd') this.pan(PAN);
      else if (k === 'f' && this.row !== null) this.guard(this.selectRow(this.row));
      else if (k === 'Escape') { for (const s of this.sides) s.selection.clear(); this.requestDraw(); }
      else return;
      e.preventDefault();
    });
    window.addEventListener('mouseup', (e) => this.endDrag(e));
    window.addEventListener('mousemove', (e) => this.moveDrag(e));
    for (const side of this.sides) {
      const c = side.canvas;
      const pos = (e) => { const r = c.getBoundingClientRect(); return {x: e.clientX - r.left, y: e.clientY - r.top}; };
      new ResizeObserver(() => { side.timeline.resize(); this.requestDraw(); }).observe(c.parentElement);
      c.addEventListener('mousedown', (e) => {
        if (e.button !== 0) return;
        const p = pos(e);
        this.drag = {side, x: p.x, y: p.y, view: {...this.view}, scrollY: side.scrollY, moved: false, pos};
      });
      c.addEventListener('mousemove', (e) => { const p = pos(e); this.mouse = {t: p.x > LABEL_W ? side.timeline.tOf(p.x) - side.offset : null}; if (this.mouse.t === null) this.mouse = null; });
      c.addEventListener('mouseleave', () => { this.mouse = null; });
      c.addEventListener('wheel', (e) => {
        e.preventDefault();
        const p = pos(e);
        if (e.ctrlKey || e.metaKey) this.zoom(e.deltaY < 0 ? ZOOM_IN : 1 / ZOOM_IN, side.timeline.tOf(Math.max(LABEL_W, p.x)) - side.offset);
        else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.pan((e.deltaX || e.deltaY) / side.timeline.plotW);
        else side.scrollTo(side.scrollY + e.deltaY);
      }, {passive: false});
    }
  }
  // A drag pans both sides in time and its own side's lanes.
  moveDrag(e) {
    const d = this.drag;
    if (!d) return;
    const p = d.pos(e);
    if (Math.abs(p.x - d.x) + Math.abs(p.y - d.y) > 3) d.moved = true;
    if (!d.moved) return;
    const dt = (p.x - d.x) * (d.view.t1 - d.view.t0) / d.side.timeline.plotW;
    this.setView(d.view.t0 - dt, d.view.t1 - dt);
    d.side.scrollTo(d.scrollY - (p.y - d.y));
  }
  // A click without a drag selects the event under it on that side.
  endDrag(e) {
    const d = this.drag;
    this.drag = null;
    if (!d || d.moved) return;
    const p = d.pos(e);
    const hit = d.side.timeline.hit(p.x, p.y);
    if (hit && hit.section) { d.side.layout.toggle(hit.section.key); d.side.scrollTo(d.side.scrollY); return; }
    d.side.selection = hit && hit.event ? new Map([[hit.event.id, hit.event]]) : new Map();
    if (hit && hit.event) this.matchRow(d.side === this.sides[0] ? 'a_names' : 'b_names', hit.event.name);
    $('picked').textContent = this.sides.map((s) => s.label + ': ' + ([...s.selection.values()][0] || {name: '—'}).name).join(' · ');
    this.requestDraw();
  }

  // --- the test hook ----------------------------------------------------------
  hook() {
    const v = this;
    const side = (s) => ({run: s.run, offset: s.offset, t0: v.view.t0 + s.offset, t1: v.view.t1 + s.offset,
      selection: [...s.selection.values()].map((e) => ({id: e.id, row: e.row, start: e.start, dur: e.dur, name: e.name})),
      scrollY: s.scrollY, highlight: s.highlight ? [...s.highlight] : [], highlightDrawn: s.highlightDrawn,
      level: s.ready ? s.timeline.query().level : null});
    return {
      state: () => ({ready: !!v.ready, idle: !!v.ready && v.sides.every((s) => s.idle), step: v.step, anchor: v.anchor,
        view: {...v.view}, row: v.row, level: v.level, a: side(v.sides[0]), b: side(v.sides[1])}),
      diff: () => v.diff,
      // Page coordinates of relative time t on a row's lane of side 0 (A) or 1 (B).
      pagePoint: (s, t, row) => v.sides[s].pagePoint(t, row),
      setView: (t0, t1) => v.setView(t0, t1),
    };
  }
}

const view = new DiffView();
window.__diff = view.hook();
view.start().catch((e) => { $('error').textContent = 'could not load: ' + (e.message || e); });
