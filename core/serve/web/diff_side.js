// One side (A or B) of the diff view: a run drawn by Timeline on a canvas of
// its own, shifted so that its alignment point (the chosen step's start, or
// a chosen event's) is at 0 on the axis both sides share. It plays the
// viewer's part for Timeline: the shared view, its layout, tiles and
// selection, and the names the Δ table highlights (outlined in orange).
import {ApiError, getJson} from './api.js';
import {Layout} from './layout.js';
import {TileCache, TileLoader} from './tiles.js';
import {HEADER_H, LABEL_W, Timeline} from './timeline.js';

const TILE_CACHE_COST = 1500000;  // events + buckets per side
const NO_LANE = {drawLane() {}, hit() { return null; }};
const wait = (ms) => new Promise((res) => setTimeout(res, ms));

// Timeline on a run whose every lane is shifted by the side's offset.
class AlignedTimeline extends Timeline {
  draw() {
    this.v.highlightDrawn = 0;
    super.draw();
  }
  drawSteps(lines) {
    this.shift = this.v.offset;
    super.drawSteps(lines);
    this.shift = 0;
  }
  drawOverlays() {
    this.shift = this.v.offset;
    super.drawOverlays();
    this.shift = 0;
  }
  drawHeader(q) {
    super.drawHeader(q);
    const ctx = this.ctx;
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillStyle = this.v.label === 'A' ? '#0b57d0' : '#8e24aa';
    ctx.fillText(this.v.label + ' · ' + this.v.name, 6, HEADER_H - 6);
  }
  // The drawn events, then an outline on those the table highlights.
  drawTile(t, level, start, y, h) {
    super.drawTile(t, level, start, y, h);
    const names = this.v.highlight;
    if (!names || !names.size) return;
    const ctx = this.ctx;
    ctx.save();
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#e8590c';
    for (let i = 0; i < t.n; i++) {
      if (!names.has(t.names[i])) continue;
      const x0 = this.xOf(t.start[i]), x1 = Math.max(x0 + 3, this.xOf(t.start[i] + t.dur[i]));
      if (x1 < LABEL_W || x0 > this.w) continue;
      ctx.strokeRect(x0, y + 1, x1 - x0, h - 2);
      this.v.highlightDrawn++;
    }
    ctx.restore();
  }
}

export class DiffSide {
  // shared: {view, requestDraw(), error(msg)}.
  constructor(label, canvas, shared) {
    this.label = label;
    this.canvas = canvas;
    this.shared = shared;
    this.timeline = new AlignedTimeline(canvas, this);
    this.name = '';
    this.offset = 0;        // ns on the run's relative clock drawn at 0
    this.scrollY = 0;
    this.selection = new Map();
    this.highlight = null;  // Set of raw names
    this.highlightDrawn = 0;
    this.search = null; this.marker = null; this.drag = null;
    this.findings = NO_LANE;
    this.ready = false;
  }

  get view() { return this.shared.view; }
  shiftOf() { return this.offset; }

  // Loads the run's meta (waiting while it imports) and its pinned overview.
  async open(run, name) {
    this.run = run;
    this.name = name;
    for (;;) {
      try {
        this.meta = await getJson('runs/' + run + '/meta');
        break;
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
        await wait(400);
      }
    }
    this.origin = BigInt(this.meta.origin_ns);
    this.endNs = Math.max(1, this.meta.end_ns);
    this.layout = new Layout(this.meta);
    this.layout.setFindingsHeight(1);
    this.cache = new TileCache(TILE_CACHE_COST);
    this.loader = new TileLoader(run, this.origin, this.meta.rows.length, this.meta.content_key, this.cache,
      () => this.shared.requestDraw(), (m) => this.shared.error(m));
    this.timeline.resize();
    for (;;) {
      try {
        await this.loader.loadOverview(0, this.endNs, this.timeline.plotW);
        break;
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 503) throw e;
        await wait(400);
      }
    }
    this.ready = true;
  }

  // Draws and asks for the tiles the lanes on screen (and half a screen around) lack.
  draw() {
    if (!this.ready) return;
    this.timeline.draw();
    const q = this.timeline.query(), h = this.timeline.lanesH;
    const rows = this.layout.rowsBetween(this.scrollY - h / 2, this.scrollY + 1.5 * h);
    this.loader.request({...q, t0: q.t0 + this.offset, t1: q.t1 + this.offset}, rows);
  }
  get idle() { return this.ready && !this.loader.busy; }

  scrollTo(y) {
    this.scrollY = Math.max(0, Math.min(y, this.layout.height - this.timeline.lanesH / 2));
    this.shared.requestDraw();
  }
  // Scrolls row's lane into view (a third from the top) when it is not.
  reveal(row) {
    this.layout.reveal(row);
    const lane = this.layout.laneOfRow.get(row);
    if (lane && (lane.y < this.scrollY || lane.y + lane.h > this.scrollY + this.timeline.lanesH)) {
      this.scrollTo(lane.y - this.timeline.lanesH / 3);
    }
  }
  // Selects event `id` (fetched for its lane) and reveals it; returns it.
  async selectId(id) {
    const d = await getJson('runs/' + this.run + '/events/' + id);
    const e = {id: d.id, row: d.row, start: d.start_ns, dur: d.dur_ns, name: d.name};
    this.selection = new Map([[e.id, e]]);
    this.reveal(e.row);
    return e;
  }
  // Page coordinates of relative time t (the run's clock) on row's lane, or null.
  pagePoint(t, row) {
    const l = this.layout.laneOfRow.get(row), r = this.canvas.getBoundingClientRect();
    this.timeline.shift = this.offset;
    const x = this.timeline.xOf(t);
    this.timeline.shift = 0;
    return l ? {x: r.left + x, y: r.top + HEADER_H + l.y - this.scrollY + l.h / 2} : null;
  }
}
