// tracehound serve's viewer: loads the runs and the chosen run's meta, keeps
// the view (relative ns), the selection, the timing marker and the search,
// draws through Timeline on animation frames and asks TileLoader for the
// tiles the view lacks. window.__viewer is the hook the browser test reads.
import {ApiError, getJson} from './api.js';
import {renderBucket, renderEvent, renderSummary} from './details.js';
import {el} from './dom.js';
import {CounterLayer} from './counters.js';
import {CriticalPathLayer} from './critical_path.js';
import {FindingsLayer} from './findings.js';
import {FlowLayer} from './flows.js';
import {fmtBusyLevel, fmtDur, fmtInt} from './format.js';
import {attachInput} from './input.js';
import {Layout, LANE_H} from './layout.js';
import {RooflinePanel} from './roofline.js';
import {Search} from './search.js';
import {TileCache, TileLoader, tileKey, tileRange, tileStartRel} from './tiles.js';
import {HEADER_H, LABEL_W, Timeline} from './timeline.js';
import {attachShare} from './share.js';
import {formatHash, hashRun, hashWindow, readHash} from './url_state.js';

const $ = (id) => document.getElementById(id);
const MIN_SPAN = 100;                 // ns: the deepest zoom
const TILE_CACHE_COST = 3000000;      // events + buckets held by the LRU (plus the pinned overview)

class Viewer {
  constructor() {
    this.canvas = $('timeline');
    this.timeline = new Timeline(this.canvas, this);
    this.selection = new Map();
    this.tool = 'select';
    this.scrollY = 0;
    this.marker = null;
    this.drag = null;
    this.mouse = null;
    this.search = null;
    this.lastHash = '';
    this.frameMs = 0;
    this.searcher = new Search(this);
    this.flows = new FlowLayer(this);
    this.counters = new CounterLayer(this);
    this.findings = new FindingsLayer(this);
    this.criticalPath = new CriticalPathLayer(this, $('cp-path'));
    this.roofline = new RooflinePanel(this, $('roofline-panel'));
  }

  // Aligned clocks: each rank's lanes drawn shifted by its offset (the server
  // stays on raw clocks; the shift is the viewer's).
  setAligned(on) {
    this.aligned = !!on && !!this.rowOffsets;
    this.requestDraw();
  }
  // Raw minus drawn time of a row's events: 0 on raw clocks.
  shiftOf(row) { return this.aligned ? this.rowOffsets[row] : 0; }

  // Asks each group of rows of one shift for the view moved by that shift.
  requestTiles(q, rows) {
    const groups = new Map();
    for (const r of rows) {
      const s = this.shiftOf(r);
      if (!groups.has(s)) groups.set(s, []);
      groups.get(s).push(r);
    }
    for (const [s, list] of groups) this.loader.request(s ? {...q, t0: q.t0 + s, t1: q.t1 + s} : q, list);
  }

  async start() {
    attachInput(this, this.canvas);
    new ResizeObserver(() => { this.timeline.resize(); this.requestDraw(); }).observe($('timeline-wrap'));
    this.timeline.resize();
    document.querySelectorAll('[data-tool]').forEach((b) => b.addEventListener('click', () => this.setTool(b.dataset.tool)));
    $('search-form').addEventListener('submit', (e) => { e.preventDefault(); this.onSearchEnter(); });
    $('next-hit').addEventListener('click', () => this.guard(this.searcher.step(1)));
    $('prev-hit').addEventListener('click', () => this.guard(this.searcher.step(-1)));
    $('select-hits').addEventListener('click', () => this.guard(this.searcher.selectAll()));
    $('regex').addEventListener('change', () => { this.searchKey = ''; });
    $('flows').addEventListener('change', () => this.flows.toggle($('flows').checked));
    $('align').addEventListener('change', () => this.setAligned($('align').checked));
    $('cp').addEventListener('change', () => this.criticalPath.toggle($('cp').checked));
    $('roofline-button').addEventListener('click', () => this.roofline.toggle());
    $('run').addEventListener('change', () => this.guard(this.openRun(Number($('run').value), null)));
    window.addEventListener('hashchange', () => this.onHashChange());
    this.setTool('select');
    const h = readHash();
    attachShare(this, $('share'), $('details'));
    let runs = (await getJson('runs')).runs;
    // A share link's runs are listed once the server knows their content key.
    for (let i = 0; i < 300 && h.key && !runs.length; i++) {
      $('status').textContent = 'waiting for the shared run…';
      await new Promise((res) => setTimeout(res, 400));
      runs = (await getJson('runs')).runs;
    }
    this.runs = runs;
    $('runs-link').href = 'assets/runs.html' + location.search;
    $('run').replaceChildren(...runs.map((r) => el('option', {value: r.run}, r.run + ': ' + r.name)));
    $('run').hidden = runs.length < 2;
    const run = hashRun(h, runs);
    if (run === null) throw new ApiError('runs: this link shows no run');
    await this.openRun(run, h);
  }

  guard(p) { return Promise.resolve(p).catch((e) => this.error(e.message || String(e))); }
  // Shows an error in the status bar for 10 s.
  error(msg) {
    $('error').textContent = msg;
    clearTimeout(this.errorTimer);
    this.errorTimer = setTimeout(() => { $('error').textContent = ''; }, 10000);
  }

  async openRun(run, h) {
    this.ready = false;
    this.totals = null;
    this.run = run;
    $('run').value = String(run);
    $('status').textContent = 'loading run ' + run + '…';
    const meta = await this.waitForMeta(run);
    this.meta = meta;
    this.origin = BigInt(meta.origin_ns);
    this.endNs = Math.max(1, meta.end_ns);
    this.layout = new Layout(meta);
    this.rowOffsets = rowClockOffsets(meta);
    $('align-label').hidden = !this.rowOffsets;
    this.setAligned($('align').checked);
    this.counters.reset([]);
    this.guard(this.loadCounters(run));
    this.findings.reset();
    this.guard(this.findings.load(run));
    this.criticalPath.reset();
    this.roofline.reset();
    this.cache = new TileCache(TILE_CACHE_COST);
    this.loader = new TileLoader(run, this.origin, meta.rows.length, meta.content_key, this.cache, () => this.requestDraw(),
      (m) => this.error(m));
    this.selection.clear();
    this.marker = null;
    this.search = null;
    this.flows.reset();
    this.scrollY = 0;
    this.view = {t0: 0, t1: this.endNs};
    const q = this.timeline.query();
    this.overviewLevel = q.level;
    for (;;) {  // the overview, pinned in the cache; 503: the run still imports
      try {
        await this.loader.loadOverview(q.t0, q.t1, q.width);
        break;
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
        await new Promise((res) => setTimeout(res, 400));
      }
    }
    const w = h && hashWindow(h, this.origin);
    if (w) this.view = w;
    if (h && h.sel.length) await this.selectIds(h.sel, false);
    this.applyPanels(h);
    this.ready = true;
    this.requestDraw();
  }

  // The counter lanes, once the run is ready (503 while it imports).
  async loadCounters(run) {
    for (;;) {
      try {
        const c = (await getJson('runs/' + run + '/counters')).counters;
        if (run !== this.run) return;
        this.counters.reset(c);
        this.layout.setCounters(c);
        this.requestDraw();
        return;
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
        await new Promise((res) => setTimeout(res, 400));
      }
    }
  }

  // The run's meta; while the run imports (503) the status line says so and
  // this asks again. A server may answer meta (and coarse tiles) before the
  // import ends: then the viewer draws what it gets and retries the rest.
  async waitForMeta(run) {
    for (;;) {
      const r = (await getJson('runs')).runs.find((x) => x.run === run);
      if (!r) throw new Error('no run ' + run);
      try {
        return await getJson('runs/' + run + '/meta');
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
      }
      $('status').textContent = 'importing ' + r.name + '…';
      await new Promise((res) => setTimeout(res, 400));
    }
  }

  // --- the view ---------------------------------------------------------
  setView(t0, t1) {
    let span = Math.max(MIN_SPAN, Math.min(t1 - t0, 4 * this.endNs));
    const mid = (t0 + t1) / 2;
    t0 = mid - span / 2;
    const lo = -this.endNs, hi = 2 * this.endNs;
    t0 = Math.max(lo, Math.min(t0, hi - span));
    this.view = {t0, t1: t0 + span};
    this.requestDraw();
  }
  zoom(f, at) { this.setView(at - (at - this.view.t0) * f, at + (this.view.t1 - at) * f); }
  pan(frac) { const d = (this.view.t1 - this.view.t0) * frac; this.setView(this.view.t0 + d, this.view.t1 + d); }
  scrollTo(y) {
    this.scrollY = Math.max(0, Math.min(y, this.layout.height - this.timeline.lanesH + LANE_H));
    this.requestDraw();
  }
  setTool(tool) {
    this.tool = tool;
    document.querySelectorAll('[data-tool]').forEach((b) => b.classList.toggle('active', b.dataset.tool === tool));
    this.canvas.className = 'tool-' + tool;
  }
  // Frames [lo, hi) with a margin and scrolls `row`'s lane into view.
  frame(lo, hi, row) {
    const pad = Math.max((hi - lo) * 0.15, 200);
    this.setView(lo - pad, hi + pad);
    if (row !== undefined && row !== null) {
      this.layout.reveal(row);
      const lane = this.layout.laneOfRow.get(row);
      if (lane && (lane.y < this.scrollY || lane.y + lane.h > this.scrollY + this.timeline.lanesH)) {
        this.scrollTo(lane.y - this.timeline.lanesH / 3);
      }
    }
  }

  // --- drawing ------------------------------------------------------------
  requestDraw() {
    if (this.pending || !this.layout) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.drawNow(); });
  }
  drawNow() {
    const t = performance.now();
    this.timeline.draw();
    this.criticalPath.draw(this.timeline);
    this.flows.draw(this.timeline);
    this.frameMs = performance.now() - t;
    // Tiles for the lanes on screen and half a screen around (scrolling
    // shows the pinned overview until they come); the status line counts
    // the lanes on screen.
    const h = this.timeline.lanesH;
    this.requestTiles(this.timeline.query(), this.layout.rowsBetween(this.scrollY - h / 2, this.scrollY + 1.5 * h));
    this.flows.request(this.timeline.query());
    this.counters.request(this.timeline.query(), this.layout.countersBetween(this.scrollY - h / 2, this.scrollY + 1.5 * h));
    this.updateStatus();
    this.writeHash();
  }
  updateStatus() {
    const s = this.timeline.totals(this.rowsOnScreen());
    this.totals = s;
    $('status').textContent = fmtInt(s.inView) + ' events in view, ' + fmtInt(s.drawn) + ' drawn' +
      (s.complete ? '' : ' (loading…)') + ' · ' + fmtDur(this.view.t1 - this.view.t0) + ' shown · lanes on screen: ' +
      s.rows + ' of ' + this.meta.rows.length + this.flows.label() + this.criticalPath.label();
    $('marker').textContent = this.marker ? 'marked ' + fmtDur(this.marker.t1 - this.marker.t0) : '';
  }
  rowsOnScreen() { return this.layout.rowsBetween(this.scrollY, this.scrollY + this.timeline.lanesH); }
  writeHash() {
    const h = formatHash(this.run, this.view, [...this.selection.keys()],
      {cp: this.criticalPath.hashKey(), roof: this.roofline.open});
    if (h === this.lastHash) return;
    this.lastHash = h;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => history.replaceState(null, '', location.pathname + location.search + h), 150);
  }
  // The hash of the view now, without the delay.
  writeHashNow() {
    this.writeHash();
    clearTimeout(this.hashTimer);
    history.replaceState(null, '', location.pathname + location.search + this.lastHash);
  }
  onHashChange() {
    if (location.hash === this.lastHash) return;
    const h = readHash();
    if (h.run !== null && h.run !== this.run) { this.guard(this.openRun(h.run, h)); return; }
    const w = hashWindow(h, this.origin);
    if (w) this.setView(w.t0, w.t1);
    this.guard(this.selectIds(h.sel, false));
    this.applyPanels(h);
  }
  // The critical path highlight and the roofline panel as a hash names them.
  applyPanels(h) {
    const cp = h ? h.cp : null;
    if (!!cp !== this.criticalPath.enabled || (cp && cp !== 'on' && cp !== this.criticalPath.hashKey())) {
      $('cp').checked = !!cp;
      this.criticalPath.toggle(!!cp, cp && cp !== 'on' ? cp : null);
      if (cp && cp !== 'on' && this.criticalPath.state === 'ready') this.criticalPath.choose(cp);
    }
    if (!!(h && h.roof) !== this.roofline.open) this.roofline.toggle(!!(h && h.roof));
  }
  toggleCriticalPath() { $('cp').checked = !this.criticalPath.enabled; this.criticalPath.toggle($('cp').checked); }
  hover(p) {
    const tip = $('tooltip');
    const hit = p && this.layout ? this.timeline.hit(p.x, p.y) : null;
    let text = '';
    if (hit && hit.finding) text = hit.finding.severity + ' · ' + hit.finding.title + ' (' + fmtDur(hit.finding.end_ns - hit.finding.start_ns) + ')';
    else if (hit && hit.counter) text = this.counters.valueAt(hit.counter.counter, hit.t).text;
    else if (hit && hit.event) text = hit.event.name + ' · ' + fmtDur(hit.event.dur);
    else if (hit && hit.bucket) text = fmtInt(hit.bucket.count) + ' merged events, busy ' + fmtBusyLevel(hit.bucket.busyLevel);
    else if (hit && hit.lane) text = this.layout.trackName(hit.lane.row) + ' (depth ' + hit.lane.depth + ')';
    tip.hidden = !text;
    if (text) {
      tip.textContent = text;
      tip.style.left = Math.min(p.x + 12, this.timeline.w - 320) + 'px';
      tip.style.top = (p.y + 14) + 'px';
    }
  }

  // --- selection and details ---------------------------------------------
  click(x, y, additive) {
    const hit = this.timeline.hit(x, y);
    if (hit && hit.section) { this.layout.toggle(hit.section.key); this.scrollTo(this.scrollY); return; }
    if (hit && hit.finding) {
      this.selection.clear();
      this.findings.select(hit.finding);
      return;
    }
    this.findings.selected = null;
    if (hit && hit.event) {
      const e = hit.event;
      if (additive) {
        if (this.selection.has(e.id)) this.selection.delete(e.id);
        else this.selection.set(e.id, e);
      } else {
        this.selection = new Map([[e.id, e]]);
      }
      this.showSelection();
    } else if (hit && hit.bucket) {
      this.showBucket(hit.bucket);
    } else if (!additive) {
      this.clearSelection();
    }
    this.requestDraw();
  }
  // A bucket's details: at once from its tile, then exact from /bucket.
  showBucket(b) {
    const trackName = (r) => this.layout.trackName(r);
    renderBucket($('details'), b, trackName);
    this.shownBucket = b;
    this.guard(getJson('runs/' + this.run + '/bucket', {row: b.row, level: b.level, tile: b.tile.toString(), bucket: b.index})
      .then((exact) => { if (this.shownBucket === b) renderBucket($('details'), b, trackName, exact); }));
  }
  clearSelection() {
    this.selection.clear();
    this.findings.selected = null;
    this.marker = null;
    $('details').replaceChildren(el('p', {class: 'muted'}, 'Nothing selected.'));
    this.requestDraw();
  }
  showSelection(note) {
    const ev = [...this.selection.values()];
    if (ev.length === 1) this.guard(this.showDetails(ev[0].id));
    else if (ev.length > 1) renderSummary($('details'), ev, note);
    this.requestDraw();
  }
  async showDetails(id) {
    const d = await getJson('runs/' + this.run + '/events/' + id);
    this.details = d;
    renderEvent($('details'), d, (r) => this.layout.trackName(r), (target) => this.guard(this.jumpTo(target)));
  }
  // Selects event `id` (fetched for its place), frames it and shows its details.
  async jumpTo(id) {
    const d = await getJson('runs/' + this.run + '/events/' + id);
    const e = {id: d.id, row: d.row, start: d.start_ns, dur: d.dur_ns, name: d.name};
    this.selection = new Map([[e.id, e]]);
    this.frame(e.start, e.start + e.dur, e.row);
    this.details = d;
    renderEvent($('details'), d, (r) => this.layout.trackName(r), (target) => this.guard(this.jumpTo(target)));
  }
  async selectIds(ids, frameThem) {
    const got = await Promise.all(ids.map((id) => getJson('runs/' + this.run + '/events/' + id).catch(() => null)));
    this.selection = new Map(got.filter(Boolean).map((d) => [d.id, {id: d.id, row: d.row, start: d.start_ns, dur: d.dur_ns, name: d.name}]));
    if (frameThem) this.frameSelection();
    this.showSelection();
  }
  selectionSpan() {
    let lo = Infinity, hi = -Infinity, row = null;
    for (const e of this.selection.values()) {
      if (e.start < lo) { lo = e.start; row = e.row; }
      hi = Math.max(hi, e.start + e.dur);
    }
    return this.selection.size ? {lo, hi, row} : null;
  }
  // Frames the selected events, or else the selected finding's window.
  frameSelection() {
    const s = this.selectionSpan();
    if (s) this.frame(s.lo, s.hi, s.row);
    else this.findings.frame();
  }
  markSelection() { const s = this.selectionSpan(); if (s) this.setMarker(s.lo, s.hi); }
  setMarker(t0, t1) { this.marker = {t0, t1}; this.requestDraw(); }

  // --- search -------------------------------------------------------------
  onSearchEnter() {
    const q = $('search').value, mode = $('regex').checked ? 'regex' : 'substring';
    const key = mode + ':' + q;
    if (key === this.searchKey && this.search) { this.guard(this.searcher.step(1)); return; }
    this.searchKey = key;
    $('search-status').textContent = q ? 'searching…' : '';
    this.guard(this.searcher.run(q, mode).then(() => { if (this.search && this.search.total) return this.searcher.step(1); }));
  }
  setSearchState(s) {
    this.search = s;
    $('search-status').textContent = this.searcher.label();
    this.requestDraw();
  }
  showHit(h) {
    const e = {id: h.id, row: h.row, start: h.start_ns, dur: h.dur_ns, name: h.name};
    this.selection = new Map([[e.id, e]]);
    this.frame(e.start, e.start + e.dur, e.row);
    this.showSelection();
  }
  selectHits(hits, note) {
    this.selection = new Map(hits.map((h) => [h.id, {id: h.id, row: h.row, start: h.start_ns, dur: h.dur_ns, name: h.name}]));
    this.showSelection(note);
  }

  // --- the test hook ------------------------------------------------------
  hook() {
    const v = this;
    return {
      state: () => ({run: v.run, t0: v.view && v.view.t0, t1: v.view && v.view.t1, level: v.layout && v.timeline.query().level,
        tool: v.tool, scrollY: v.scrollY, selection: [...v.selection.keys()], marker: v.marker,
        totals: v.totals, ready: !!v.ready, idle: !!v.ready && !v.loader.busy && !!v.totals && v.totals.complete,
        tiles: v.cache ? v.cache.size : 0, tileMb: v.cache ? v.cache.bytes() / 1048576 : 0, requests: v.loader ? v.loader.requests : 0, frameMs: v.frameMs,
        search: v.search && {total: v.search.total, index: v.search.index}}),
      // Canvas coordinates of the middle of a drawn event of `row` (or null).
      xOf: (t) => v.timeline.xOf(t),
      // Page coordinates of time t on row's lane (for synthetic mouse events).
      pagePoint: (t, row) => {
        const l = v.layout.laneOfRow.get(row), r = v.canvas.getBoundingClientRect();
        return l ? {x: r.left + v.timeline.xOf(t), y: r.top + HEADER_H + l.y - v.scrollY + l.h / 2} : null;
      },
      scrollToRow: (row) => {
        v.layout.reveal(row);
        const l = v.layout.laneOfRow.get(row);
        if (l) v.scrollTo(l.y - v.timeline.lanesH / 3);
      },
      query: () => v.timeline.query(),
      rowsOnScreen: () => v.rowsOnScreen(),
      // A merged bucket on screen that a click selects: {row, t, bucket} (or null).
      bucketOnScreen: () => {
        const q = v.timeline.query(), bw = 2 ** q.level;
        const {first, last} = tileRange(v.origin, q.level, q.t0, q.t1);
        for (const row of v.rowsOnScreen()) {
          const lane = v.layout.laneOfRow.get(row);
          for (let k = first; lane && k <= last; k++) {
            const tile = v.cache.get(tileKey(row, q.level, k));
            const s0 = tileStartRel(v.origin, q.level, k);
            for (let i = 0; tile && i < tile.nb; i++) {
              const t = s0 + (tile.bucket[i] + 0.5) * bw, x = v.timeline.xOf(t);
              if (x < LABEL_W + 5 || x > v.timeline.w - 5) continue;
              const hit = v.timeline.hitLane(lane, x);
              if (hit && hit.bucket) return {row, t, bucket: {...hit.bucket, tile: hit.bucket.tile.toString()}};
            }
          }
        }
        return null;
      },
      // Mean ms of n redraws, each flushed to pixels (a 1-pixel read forces the raster).
      drawMs: (n) => {
        const t = performance.now();
        for (let i = 0; i < n; i++) { v.timeline.draw(); v.timeline.ctx.getImageData(0, 0, 1, 1); }
        return (performance.now() - t) / n;
      },
      meta: () => v.meta,
      // Flow arrows drawn in the last frame, and the flows answer they come from.
      flowsDrawn: () => v.flows.drawn,
      flows: () => v.flows.answer,
      // Counter lanes laid out: {track, name, unavailable, drawnBuckets, y} (y in lane coordinates).
      counterLanes: () => v.layout.counterItems.map((it) => ({track: it.counter, name: v.counters.tracks[it.counter].name,
        unavailable: v.counters.tracks[it.counter].unavailable, drawnBuckets: it.drawnBuckets || 0, y: it.y})),
      counterValueAt: (track, t) => v.counters.valueAt(track, t),
      scrollToY: (y) => v.scrollTo(y),
      frameWhole: () => v.setView(0, v.endNs),
      setView: (t0, t1) => v.setView(t0, t1),
      // The findings lane: its state, the findings, the marks drawn (page coordinates), the one selected.
      findings: () => ({state: v.findings.state, message: v.findings.message, list: v.findings.list,
        marks: v.findings.markPoints(), selected: v.findings.selected && v.findings.selected.index}),
      // Clock alignment: set it, and the shift (ns) a row is drawn with.
      setAligned: (on) => { $('align').checked = on; v.setAligned(on); },
      rowShift: (row) => v.shiftOf(row),
      rowX: (row, t) => { v.timeline.shift = v.shiftOf(row); const x = v.timeline.xOf(t); v.timeline.shift = 0; return x; },
      toggleFlows: (on) => { $('flows').checked = on === undefined ? !v.flows.enabled : on; v.flows.toggle($('flows').checked); },
      details: () => v.details || null,
      // The critical path: on or off (and which path, "STEP:RANK"), its state, the path shown and the
      // ids of the events highlighted, with how many were drawn in the last frame.
      setCriticalPath: (on, key) => { $('cp').checked = on; v.criticalPath.toggle(on, key); },
      criticalPath: () => ({enabled: v.criticalPath.enabled, state: v.criticalPath.state, drawn: v.criticalPath.drawn,
        path: v.criticalPath.path && {step: v.criticalPath.path.step, rank: v.criticalPath.path.rank, path_ns: v.criticalPath.path.path_ns},
        ids: v.criticalPath.enabled && v.criticalPath.path ? v.criticalPath.path.events.map((e) => e.id) : [],
        options: [...$('cp-path').options].map((o) => o.value)}),
      // The roofline panel: open, state, op rows, dots drawn, and the text shown for dot `i` when hovered.
      roofline: () => ({open: v.roofline.open, state: v.roofline.state, ops: v.roofline.answer ? v.roofline.answer.ops.length : 0,
        roofs: v.roofline.answer ? v.roofline.answer.roofs.length : 0, dots: v.roofline.dots,
        svgDots: document.querySelectorAll('#roofline-panel circle.op-dot').length,
        svgRoofs: document.querySelectorAll('#roofline-panel polyline.roof').length}),
      toggleRoofline: (on) => v.roofline.toggle(on),
    };
  }
}

// Per row, the clock offset of its rank (meta.clock_offsets, ns: the rank's
// clock minus the job's), or null when the run has none.
function rowClockOffsets(meta) {
  if (!meta.ranks || !meta.clock_offsets || !meta.clock_offsets.length) return null;
  const byRank = new Map(meta.clock_offsets.map((o) => [o.rank, o.offset_ns]));
  const trackOffset = (track) => {
    for (const r of meta.ranks) if (track >= r.first_track && track < r.first_track + r.tracks) return byRank.get(r.rank) || 0;
    return 0;
  };
  return meta.rows.map((r) => trackOffset(r.track));
}

const viewer = new Viewer();
window.__viewer = viewer.hook();
viewer.start().catch((e) => { $('error').textContent = 'could not load: ' + (e.message || e); });
