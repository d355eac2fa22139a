// The canvas renderer: time axis, step markers, search density strip, the
// label gutter with sections, and per lane the tiles of the view's level —
// drawn events as boxes (names when wide enough), merged buckets as busy
// shading with their count. A tile not loaded yet is drawn from a coarser
// (or finer) cached level, so a frame is never blank. Also hit testing and
// the status line's totals over the cached tiles.
import {busyShare} from './api.js';
import {fmtDur, fmtInt, fmtTick, nameColor, tickStep} from './format.js';
import {LANE_H} from './layout.js';
import {tileKey, tileRange, tileStartRel, viewLevel} from './tiles.js';

export const LABEL_W = 260;
export const HEADER_H = 50;
const AXIS_H = 22, STEPS_H = 14;
const SHADES = [0.18, 0.32, 0.46, 0.6, 0.74].map((a) => 'rgba(60,72,96,' + a + ')');

export class Timeline {
  constructor(canvas, viewer) {
    this.canvas = canvas;
    this.v = viewer;
    this.ctx = canvas.getContext('2d', {alpha: false});
    this.w = 0; this.h = 0;
    this.shift = 0;
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const r = this.canvas.getBoundingClientRect();
    this.w = Math.max(LABEL_W + 100, Math.floor(r.width));
    this.h = Math.max(HEADER_H + 40, Math.floor(r.height));
    this.canvas.width = this.w * dpr;
    this.canvas.height = this.h * dpr;
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  get plotW() { return this.w - LABEL_W; }
  get lanesH() { return this.h - HEADER_H; }
  // `shift` (raw minus drawn ns) is the lane's while it is drawn or hit-tested, else 0.
  xOf(t) { const {t0, t1} = this.v.view; return LABEL_W + (t - this.shift - t0) * this.plotW / (t1 - t0); }
  tOf(x) { const {t0, t1} = this.v.view; return t0 + this.shift + (x - LABEL_W) * (t1 - t0) / this.plotW; }

  // The query the current view asks of the server (integer ns, level).
  query() {
    const t0 = Math.floor(this.v.view.t0), t1 = Math.max(t0 + 1, Math.ceil(this.v.view.t1));
    const width = this.plotW;
    return {t0, t1, width, level: viewLevel(t1 - t0, width)};
  }

  draw() {
    const ctx = this.ctx;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.w, this.h);
    const q = this.query();
    const {first, last} = tileRange(this.v.origin, q.level, q.t0, q.t1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, HEADER_H, this.w, this.lanesH);
    ctx.clip();
    const top = this.v.scrollY, bottom = top + this.lanesH;
    for (const it of this.v.layout.items) {
      if (it.y + it.h < top || it.y > bottom) continue;
      const y = HEADER_H + it.y - top;
      if (it.kind === 'section') this.drawSection(it, y);
      else if (it.kind === 'counter') this.drawCounter(it, y);
      else if (it.kind === 'findings') this.v.findings.drawLane(this, it, y);
      else this.drawShiftedLane(it, y, q);
    }
    this.drawSteps(true);
    this.drawOverlays();
    ctx.restore();
    this.drawHeader(q);
  }

  drawSection(it, y) {
    const ctx = this.ctx;
    ctx.fillStyle = '#e9edf3';
    ctx.fillRect(0, y, this.w, it.h);
    ctx.fillStyle = '#1d2330';
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillText((it.collapsed ? '▸ ' : '▾ ') + it.label, 6 + it.indent * 12, y + 14);
  }

  drawCounter(it, y) {
    const ctx = this.ctx;
    ctx.fillStyle = '#f3f6f1';
    ctx.fillRect(0, y, LABEL_W, it.h);
    ctx.fillStyle = '#2a3140';
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillText(clipText(it.label, LABEL_W - 16 - it.indent * 12), 6 + it.indent * 12, y + 13);
    this.v.counters.drawLane(this, it, y);
  }

  // A lane on its rank's clock: tiles of [t0 + shift, t1 + shift) drawn shifted.
  drawShiftedLane(it, y, q) {
    this.shift = this.v.shiftOf(it.row);
    const {first, last} = tileRange(this.v.origin, q.level, q.t0 + this.shift, q.t1 + this.shift);
    this.drawLane(it, y, q.level, first, last);
    this.shift = 0;
  }

  drawLane(it, y, level, first, last) {
    const ctx = this.ctx;
    ctx.fillStyle = '#fafbfc';
    ctx.fillRect(0, y, LABEL_W, it.h);
    ctx.fillStyle = '#2a3140';
    ctx.font = '11px system-ui, sans-serif';
    if (it.label) ctx.fillText(clipText(it.label, LABEL_W - 16 - it.indent * 12 - 40), 6 + it.indent * 12, y + 12);
    const hits = this.v.search && this.v.search.perRow.get(it.row);
    if (hits) {
      const s = fmtInt(hits);
      ctx.fillStyle = '#b35c00';
      ctx.fillRect(LABEL_W - 8 - s.length * 6.5, y + 2, s.length * 6.5 + 4, it.h - 4);
      ctx.fillStyle = '#fff';
      ctx.fillText(s, LABEL_W - 6 - s.length * 6.5, y + 12);
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, y, this.plotW, it.h);
    ctx.clip();
    const cache = this.v.cache, origin = this.v.origin;
    const doneCoarse = new Set();
    this.run = {x: -1, end: -1, count: 0};
    for (let k = first; k <= last; k++) {
      const t = cache.get(tileKey(it.row, level, k));
      if (t !== undefined) {
        if (t) this.drawTile(t, level, tileStartRel(origin, level, k), y, it.h);
        continue;
      }
      this.drawFallback(it.row, level, k, y, it.h, doneCoarse);
    }
    this.flushRun(y, it.h);
    ctx.restore();
  }

  // A missing tile: the closest coarser cached level, else the two finer halves.
  drawFallback(row, level, k, y, h, doneCoarse) {
    const cache = this.v.cache, origin = this.v.origin;
    for (let d = 1; d <= 16 && level + d <= 62; d++) {
      const kk = k >> BigInt(d);
      const key = tileKey(row, level + d, kk);
      const t = cache.get(key);
      if (t === undefined) continue;
      if (t && !doneCoarse.has(key)) this.drawTile(t, level + d, tileStartRel(origin, level + d, kk), y, h);
      doneCoarse.add(key);
      return;
    }
    if (level === 0) return;
    for (const kk of [k * 2n, k * 2n + 1n]) {
      const t = cache.get(tileKey(row, level - 1, kk));
      if (t) this.drawTile(t, level - 1, tileStartRel(origin, level - 1, kk), y, h);
    }
  }

  drawTile(t, level, start, y, h) {
    const ctx = this.ctx;
    const bw = 2 ** level, scale = this.plotW / (this.v.view.t1 - this.v.view.t0);
    const right = this.w;
    if (this.xOf(start) > right || this.xOf(start + 256 * bw) < LABEL_W && t.n === 0) return;
    // Merged narrow events: shading by busy fraction; runs of buckets are
    // labelled with their count (a run may span tiles: see flushRun).
    // Adjacent buckets of one shade are filled as one rectangle.
    const run = this.run;
    let style = '', rx0 = 0, rx1 = -1;
    const fill = () => { if (rx1 > rx0) ctx.fillRect(rx0, y + 1, rx1 - rx0, h - 2); };
    for (let i = 0; i < t.nb; i++) {
      const x = this.xOf(start + t.bucket[i] * bw);
      const w = Math.max(1, bw * scale);
      if (x > right || x + w < LABEL_W) continue;
      const s = SHADES[Math.min(4, Math.floor(busyShare(t.busyLevel[i]) * 5))];
      if (run.x >= 0 && x - run.end > 1.5) {  // a gap: label the run before it
        fill(); rx1 = -1;
        this.flushRun(y, h);
        style = '';
      }
      if (s !== style || x > rx1 + 0.01) {
        fill();
        if (s !== style) { ctx.fillStyle = s; style = s; }
        rx0 = x;
      }
      rx1 = x + w;
      if (run.x < 0) run.x = x;
      run.end = x + w; run.count += t.count[i];
    }
    fill();
    ctx.font = '11px system-ui, sans-serif';
    for (let i = 0; i < t.n; i++) {
      let x0 = this.xOf(t.start[i]), x1 = this.xOf(t.start[i] + t.dur[i]);
      if (x1 < LABEL_W || x0 > right) continue;
      x0 = Math.max(x0, LABEL_W - 1); x1 = Math.min(x1, right + 1);
      const w = Math.max(1, x1 - x0);
      ctx.fillStyle = nameColor(t.names[i]);
      ctx.fillRect(x0, y + 1, w, h - 2);
      if (w > 28) {
        ctx.fillStyle = '#111';
        ctx.fillText(clipText(t.names[i], w - 6), x0 + 3, y + 12);
      }
    }
  }

  // Labels the current run of merged buckets with its event count.
  flushRun(y, h) {
    const run = this.run, ctx = this.ctx;
    if (run.x >= 0 && run.end - run.x >= 30 && run.count > 0) {
      ctx.fillStyle = '#fff';
      ctx.font = '10px system-ui, sans-serif';
      const x0 = Math.max(run.x, LABEL_W);
      ctx.fillText(clipText(fmtInt(run.count), Math.min(run.end, this.w) - x0 - 4), x0 + 2, y + h - 4);
    }
    run.x = -1; run.end = -1; run.count = 0;
  }

  drawSteps(lines) {
    const steps = this.v.meta.steps || [];
    if (!steps.length) return;
    const ctx = this.ctx;
    if (lines) {
      ctx.strokeStyle = 'rgba(120,60,160,0.35)';
      ctx.beginPath();
      for (const s of steps) {
        const x = Math.round(this.xOf(s.start_ns)) + 0.5;
        if (x < LABEL_W || x > this.w) continue;
        ctx.moveTo(x, HEADER_H); ctx.lineTo(x, this.h);
      }
      ctx.stroke();
      return;
    }
    ctx.font = '10px system-ui, sans-serif';
    steps.forEach((s, i) => {
      const x0 = Math.max(LABEL_W, this.xOf(s.start_ns)), x1 = Math.min(this.w, this.xOf(s.start_ns + s.dur_ns));
      if (x1 < LABEL_W || x0 > this.w) return;
      ctx.fillStyle = i % 2 ? '#d9c8ea' : '#eadff5';
      ctx.fillRect(x0, AXIS_H, Math.max(1, x1 - x0), STEPS_H - 1);
      if (x1 - x0 > 44) { ctx.fillStyle = '#432060'; ctx.fillText(clipText('step ' + s.number, x1 - x0 - 4), x0 + 2, AXIS_H + 10); }
    });
  }

  drawHeader(q) {
    const ctx = this.ctx;
    ctx.fillStyle = '#f5f7fa';
    ctx.fillRect(0, 0, this.w, HEADER_H);
    ctx.strokeStyle = '#c9d0db';
    ctx.beginPath(); ctx.moveTo(0, HEADER_H - 0.5); ctx.lineTo(this.w, HEADER_H - 0.5); ctx.stroke();
    const {t0, t1} = this.v.view;
    const step = tickStep(t1 - t0, this.plotW, 110);
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillStyle = '#2a3140';
    ctx.strokeStyle = '#9aa3b2';
    ctx.beginPath();
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = Math.round(this.xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, AXIS_H);
      ctx.fillText(fmtTick(t, step), x + 2, 12);
    }
    ctx.stroke();
    ctx.fillStyle = '#5d6678';
    ctx.fillText('level ' + q.level + ' · 1 px ≈ ' + fmtDur((t1 - t0) / this.plotW), 6, 12);
    this.drawSteps(false);
    const s = this.v.search;
    if (s && s.density && s.density.length) this.drawDensity(s.density);
  }

  // The search's hit density over the whole run (the strip spans the run,
  // not the view), with the view's place outlined.
  drawDensity(density) {
    const ctx = this.ctx, n = density.length, end = this.v.endNs, w = this.plotW;
    const y0 = AXIS_H + STEPS_H, hh = HEADER_H - y0 - 2;
    let max = 1;
    for (const c of density) max = Math.max(max, c);
    ctx.fillStyle = '#b35c00';
    for (let i = 0; i < n; i++) {
      if (!density[i]) continue;
      const hb = Math.max(2, hh * Math.sqrt(density[i] / max));
      ctx.fillRect(LABEL_W + i * w / n, y0 + hh - hb, Math.max(1, w / n), hb);
    }
    const {t0, t1} = this.v.view;
    const x0 = LABEL_W + Math.max(0, t0 / end) * w, x1 = LABEL_W + Math.min(1, t1 / end) * w;
    ctx.strokeStyle = '#0b57d0';
    ctx.strokeRect(Math.round(x0) + 0.5, y0 - 0.5, Math.max(2, x1 - x0), hh + 1);
    ctx.fillStyle = '#5d6678';
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillText('hits (whole run)', 6, y0 + 10);
  }

  // Selection outlines, the timing marker and the drag rectangle.
  drawOverlays() {
    const ctx = this.ctx, v = this.v;
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#0b57d0';
    for (const e of v.selection.values()) {
      const lane = v.layout.laneOfRow.get(e.row);
      if (!lane) continue;
      const y = HEADER_H + lane.y - v.scrollY;
      const x0 = this.xOf(e.start), x1 = Math.max(x0 + 2, this.xOf(e.start + e.dur));
      ctx.strokeRect(x0, y, x1 - x0, lane.h);
    }
    ctx.lineWidth = 1;
    const band = (a, b, fill, label) => {
      const x0 = this.xOf(Math.min(a, b)), x1 = this.xOf(Math.max(a, b));
      if (x1 < LABEL_W || x0 > this.w) return;
      ctx.fillStyle = fill;
      ctx.fillRect(x0, HEADER_H, Math.max(1, x1 - x0), this.lanesH);
      if (label) {
        ctx.font = 'bold 12px system-ui, sans-serif';
        const w = ctx.measureText(label).width + 10;
        const x = Math.min(Math.max(LABEL_W, (x0 + x1) / 2 - w / 2), this.w - w);
        ctx.fillStyle = '#10182b';
        ctx.fillRect(x, HEADER_H + 4, w, 18);
        ctx.fillStyle = '#fff';
        ctx.fillText(label, x + 5, HEADER_H + 17);
      }
    };
    if (v.marker) band(v.marker.t0, v.marker.t1, 'rgba(255,200,0,0.18)', fmtDur(Math.abs(v.marker.t1 - v.marker.t0)));
    if (v.drag && v.drag.band) {
      band(v.drag.t0, v.drag.t1, v.drag.tool === 'zoom' ? 'rgba(11,87,208,0.15)' : 'rgba(255,200,0,0.25)',
        fmtDur(Math.abs(v.drag.t1 - v.drag.t0)));
    }
  }

  // What is under canvas point (x, y): {section} | {counter, t} | {event} | {bucket} | {lane} | null.
  hit(x, y) {
    if (y < HEADER_H || x < 0) return null;
    const it = this.v.layout.itemAt(y - HEADER_H + this.v.scrollY);
    if (!it) return null;
    if (it.kind === 'section') return {section: it};
    if (it.kind === 'counter') return {counter: it, t: this.tOf(x)};
    if (it.kind === 'findings') { const f = x >= LABEL_W ? this.v.findings.hit(x, y) : null; return f ? {finding: f} : {lane: it}; }
    if (x < LABEL_W) return {lane: it};
    this.shift = this.v.shiftOf(it.row);
    try { return this.hitLane(it, x); } finally { this.shift = 0; }
  }

  // The event or bucket of lane `it` under x, on the lane's clock.
  hitLane(it, x) {
    const q = this.query();
    const t = this.tOf(x), slack = 3 * (this.v.view.t1 - this.v.view.t0) / this.plotW;
    const origin = this.v.origin;
    const shift = BigInt(q.level + 8);
    const k = (origin + BigInt(Math.floor(t))) >> shift;
    let best = null;
    for (const kk of [k - 1n, k, k + 1n]) {
      const tile = this.v.cache.get(tileKey(it.row, q.level, kk));
      if (!tile) continue;
      for (let i = 0; i < tile.n; i++) {
        const s = tile.start[i], e = s + tile.dur[i];
        if (t < s - slack || t > e + slack) continue;
        const d = t < s ? s - t : t > e ? t - e : 0;
        if (!best || d < best.d || (d === best.d && tile.dur[i] < best.dur)) {
          best = {d, id: tile.id[i], row: it.row, start: s, dur: tile.dur[i], name: tile.names[i]};
        }
      }
      if (kk === k && !best) {
        const bw = 2 ** q.level, s0 = tileStartRel(origin, q.level, kk);
        const b = Math.floor((t - s0) / bw);
        for (let i = 0; i < tile.nb; i++) {
          if (tile.bucket[i] === b) return {bucket: {row: it.row, start: s0 + b * bw, dur: bw, tile: kk, index: b, level: q.level, count: tile.count[i], busyLevel: tile.busyLevel[i]}};
        }
      }
    }
    return best ? {event: best} : {lane: it};
  }

  // "N events in view, M drawn" over `rows` for the current query, from the
  // cached tiles (the server's Viewport totals); complete=false while tiles load.
  totals(rows) {
    const q = this.query();
    let drawn = 0, merged = 0, complete = true;
    for (const r of rows) {
      const shift = this.v.shiftOf(r);  // the row's tiles on its own clock
      const {first, last} = tileRange(this.v.origin, q.level, q.t0 + shift, q.t1 + shift);
      for (let k = first; k <= last; k++) {
        const t = this.v.cache.get(tileKey(r, q.level, k));
        if (t === undefined) { complete = false; continue; }
        if (!t) continue;
        const s0 = tileStartRel(this.v.origin, q.level, k);
        for (let i = 0; i < t.n; i++) if (k === first || t.start[i] >= s0) drawn++;
        for (let i = 0; i < t.nb; i++) merged += t.count[i];
      }
    }
    return {inView: drawn + merged, drawn, complete, level: q.level, rows: rows.length};
  }
}

function clipText(s, px) {
  const max = Math.floor(px / 6.2);
  if (max <= 1) return '';
  return s.length <= max ? s : s.slice(0, max - 1) + '…';
}
