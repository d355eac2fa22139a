// Flow and launch arrows on a toggle (checkbox "flows" or key v): the
// server's /flows answer for the view (edges with an end in the window,
// bundled per pixel with exact counts), drawn over the lanes from the
// source's start on its lane to the target's start on its lane; a bundle's
// line is thicker the more edges it holds. The answer is fetched again
// (debounced) when the view changes, and the last one stays drawn meanwhile.
import {getJson} from './api.js';
import {HEADER_H, LABEL_W} from './timeline.js';

const DEBOUNCE_MS = 120;

export class FlowLayer {
  constructor(viewer) {
    this.v = viewer;
    this.enabled = false;
    this.answer = null;   // {flows, total, bundle_px, key}
    this.key = '';
    this.drawn = 0;       // arrows drawn in the last frame
    this.requests = 0;
  }

  toggle(on) {
    this.enabled = on === undefined ? !this.enabled : on;
    if (!this.enabled) { this.answer = null; this.key = ''; this.drawn = 0; }
    this.v.requestDraw();
  }

  reset() { this.answer = null; this.key = ''; this.drawn = 0; }

  // Asks for the view's flows unless the last answer (or the one coming) is for it.
  request(q) {
    if (!this.enabled) return;
    const key = this.v.run + ':' + q.t0 + ':' + q.t1 + ':' + q.width;
    if (key === this.key) return;
    this.key = key;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.requests++;
      getJson('runs/' + this.v.run + '/flows', {t0: q.t0, t1: q.t1, width: q.width})
        .then((a) => { if (this.key === key && this.enabled) { this.answer = a; this.v.requestDraw(); } })
        .catch((e) => { this.key = ''; this.v.error(e.message || String(e)); });
    }, DEBOUNCE_MS);
  }

  // Arrows for the bundles whose lanes are laid out (collapsed sections hide theirs).
  draw(tl) {
    this.drawn = 0;
    if (!this.enabled || !this.answer) return;
    const ctx = tl.ctx, layout = this.v.layout, top = this.v.scrollY;
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, tl.plotW, tl.lanesH);
    ctx.clip();
    for (const f of this.answer.flows) {
      const a = layout.laneOfRow.get(f.from_row), b = layout.laneOfRow.get(f.to_row);
      if (!a || !b) continue;
      const x0 = tl.xOf(f.from_ns), x1 = tl.xOf(f.to_ns);
      const y0 = HEADER_H + a.y - top + a.h / 2, y1 = HEADER_H + b.y - top + (b.y > a.y ? 1 : b.h - 1);
      if ((y0 < HEADER_H && y1 < HEADER_H) || (y0 > tl.h && y1 > tl.h)) continue;
      const w = Math.min(6, 1 + Math.log2(f.count));
      ctx.strokeStyle = f.kind === 'launch' ? 'rgba(200,60,30,0.75)' : 'rgba(40,90,200,0.75)';
      ctx.fillStyle = ctx.strokeStyle;
      ctx.lineWidth = w;
      ctx.beginPath();
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
      ctx.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0), s = 4 + w;
      ctx.beginPath();
      ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - s * Math.cos(ang - 0.4), y1 - s * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - s * Math.cos(ang + 0.4), y1 - s * Math.sin(ang + 0.4));
      ctx.fill();
      if (f.count > 1 && w >= 2) ctx.fillText(String(f.count), (x0 + x1) / 2 + 3, (y0 + y1) / 2);
      this.drawn++;
    }
    ctx.restore();
  }

  label() {
    if (!this.enabled) return '';
    if (!this.answer) return ' · flows loading…';
    return ' · flows: ' + this.answer.total + ' in view' + (this.answer.bundle_px > 1 ? ' (bundled per ' +
      this.answer.bundle_px + ' px)' : '');
  }
}
