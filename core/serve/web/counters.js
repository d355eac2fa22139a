// Counter lanes: the series of /counters (allocator totals, Chrome counters,
// the derived GPU utilisation, estimated SM efficiency and estimated
// achieved occupancy per GPU) drawn as step/area charts instead of boxes.
// Per lane on screen the view's buckets are fetched (debounced) and the last
// answer stays drawn, at its own window, until the new one comes. A series
// the trace lacks the data for says so in its lane instead of drawing zeros.
import {getJson} from './api.js';
import {fmtSig} from './format.js';
import {LABEL_W} from './timeline.js';

export const COUNTER_H = 34;
const DEBOUNCE_MS = 80;

export function fmtValue(v, unit) {
  if (v === null || v === undefined) return '—';
  if (unit === 'bytes') {
    const a = Math.abs(v);
    if (a >= 2 ** 30) return fmtSig(v / 2 ** 30, 4) + ' GiB';
    if (a >= 2 ** 20) return fmtSig(v / 2 ** 20, 4) + ' MiB';
    if (a >= 2 ** 10) return fmtSig(v / 2 ** 10, 4) + ' KiB';
    return Math.round(v) + ' bytes';
  }
  if (unit === '%') return v.toFixed(1) + ' %';
  return Number.isInteger(v) ? String(v) : fmtSig(v, 6);
}

export class CounterLayer {
  constructor(viewer) {
    this.v = viewer;
    this.tracks = [];
    this.answers = new Map();  // track -> {key, q, data}
    this.wanted = new Map();   // track -> key asked for
    this.requests = 0;
  }

  reset(tracks) { this.tracks = tracks; this.answers.clear(); this.wanted.clear(); }

  // Asks for the buckets of the counter lanes in `items` unless already there or coming.
  request(q, items) {
    const key = this.v.run + ':' + q.t0 + ':' + q.t1 + ':' + q.width;
    const todo = items.filter((it) => !this.tracks[it.counter].unavailable && this.wanted.get(it.counter) !== key);
    if (!todo.length) return;
    for (const it of todo) this.wanted.set(it.counter, key);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      for (const it of todo) {
        if (this.wanted.get(it.counter) !== key) continue;
        this.requests++;
        getJson('runs/' + this.v.run + '/counters', {track: it.counter, t0: q.t0, t1: q.t1, width: q.width})
          .then((data) => { this.answers.set(it.counter, {key, q, data}); this.v.requestDraw(); })
          .catch((e) => { this.wanted.delete(it.counter); this.v.error(e.message || String(e)); });
      }
    }, DEBOUNCE_MS);
  }

  // The lane of counter item `it` at canvas y (the label is the layout's).
  drawLane(tl, it, y) {
    const ctx = tl.ctx, c = this.tracks[it.counter];
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, y, tl.plotW, it.h);
    ctx.clip();
    ctx.fillStyle = '#f7f9fb';
    ctx.fillRect(LABEL_W, y, tl.plotW, it.h);
    it.drawnBuckets = 0;
    if (c.unavailable) {
      ctx.fillStyle = '#8b94a6';
      ctx.font = 'italic 11px system-ui, sans-serif';
      ctx.fillText('not available: ' + c.unavailable, LABEL_W + 8, y + it.h / 2 + 4);
    } else {
      const a = this.answers.get(it.counter);
      if (a) it.drawnBuckets = this.drawChart(tl, c, a, y + 2, it.h - 4);
    }
    ctx.restore();
  }

  drawChart(tl, c, a, top, h) {
    const ctx = tl.ctx, {q, data} = a, b = data.buckets;
    let hi = c.unit === '%' ? 100 : 0;
    if (c.unit !== '%') {
      for (const x of b) hi = Math.max(hi, x[2]);
      if (data.before !== null) hi = Math.max(hi, data.before);
    }
    let lo = 0;
    for (const x of b) lo = Math.min(lo, x[1]);
    const span = hi - lo || 1;
    const yOf = (v) => top + h - (v - lo) * h / span;
    const xOf = (px) => tl.xOf(q.t0 + px * (q.t1 - q.t0) / q.width);
    const fill = c.source === 'derived' ? 'rgba(46,125,50,0.55)' : 'rgba(21,101,192,0.35)';
    ctx.fillStyle = fill;
    if (c.source === 'derived') {
      for (const [px, , , last] of b) {
        const x0 = xOf(px), x1 = Math.max(x0 + 1, xOf(px + 1));
        ctx.fillRect(x0, yOf(last), x1 - x0, yOf(lo) - yOf(last));
      }
      return b.length;
    }
    // Sampled: the held value as an area, each bucket's min..max as a bar.
    let cur = data.before, x = tl.xOf(q.t0);
    for (const [px, mn, mx, last] of b) {
      const bx = xOf(px);
      if (cur !== null) ctx.fillRect(x, yOf(cur), bx - x, yOf(lo) - yOf(cur));
      ctx.fillStyle = 'rgba(21,101,192,0.9)';
      ctx.fillRect(bx, yOf(mx), Math.max(1, xOf(px + 1) - bx), Math.max(1, yOf(mn) - yOf(mx)));
      ctx.fillStyle = fill;
      cur = last;
      x = bx;
    }
    if (cur !== null) ctx.fillRect(x, yOf(cur), tl.xOf(q.t1) - x, yOf(lo) - yOf(cur));
    return b.length;
  }

  // The value under time t of counter `track`: {text} for the tooltip, or null.
  valueAt(track, t) {
    const c = this.tracks[track];
    const head = c.name + ' (' + c.kind + ', ' + (c.source === 'derived' ? 'derived from the kernels' : 'sampled') + ')';
    if (c.unavailable) return {text: head + ': not available: ' + c.unavailable};
    const a = this.answers.get(track);
    if (!a) return {text: head + ': loading…'};
    const {q, data} = a;
    const px = Math.floor((t - q.t0) * q.width / (q.t1 - q.t0));
    let held = data.before, at = null;
    for (const bkt of data.buckets) {
      if (bkt[0] === px) at = bkt;
      if (bkt[0] <= px) held = bkt[3];
    }
    const u = c.unit;
    if (at && c.source === 'sampled' && at[1] !== at[2]) {
      return {text: head + ': min ' + fmtValue(at[1], u) + ', max ' + fmtValue(at[2], u) + ', last ' + fmtValue(at[3], u), value: at[3]};
    }
    if (c.source === 'derived') return {text: head + ': ' + (at ? fmtValue(at[3], u) : 'no value'), value: at ? at[3] : null};
    return {text: head + ': ' + fmtValue(held, u), value: held};
  }
}
