// The critical path on a toggle (checkbox "critical path" or key c): the
// server's /critical-path answer (the critical-path plugin, run once per run
// in the background: 503 meanwhile, so this polls), one path at a time (a
// step on one rank, or across ranks) chosen in the select beside the toggle.
// Its events are outlined over the lanes, joined in path order within a rank
// (ranks' clocks differ: the path crosses them at collectives), and the rest
// of the lanes dimmed; the details pane shows the path's summary: length,
// share by category, time by rank and the gating rank of each collective.
import {ApiError, getJson} from './api.js';
import {el, kvTable} from './dom.js';
import {fmtDur} from './format.js';
import {HEADER_H, LABEL_W} from './timeline.js';

const POLL_MS = 1000;
const OUTLINE = '#e65100';

// "step 3 · across ranks" / "step 3 · rank 1".
export function pathLabel(p) { return 'step ' + p.step + ' · ' + (p.rank < 0 ? 'across ranks' : 'rank ' + p.rank); }
const keyOf = (p) => p.step + ':' + p.rank;

export class CriticalPathLayer {
  constructor(viewer, select) {
    this.v = viewer;
    this.select = select;
    this.enabled = false;
    this.wanted = null;  // "step:rank" the hash asked for
    select.addEventListener('change', () => this.choose(select.value));
    this.reset();
  }

  reset() {
    this.state = 'idle';  // idle | loading | ready | none | failed
    this.message = '';
    this.paths = [];
    this.path = null;
    this.drawn = 0;
    this.generation = (this.generation || 0) + 1;
    this.select.hidden = true;
  }

  // On (loading the answer once per run) or off; `key` ("step:rank") picks the path.
  toggle(on, key) {
    this.enabled = on === undefined ? !this.enabled : !!on;
    if (key) this.wanted = key;
    if (this.enabled && this.state === 'idle') this.v.guard(this.load(this.v.run));
    else if (this.enabled && this.path) this.showSummary();
    this.select.hidden = !this.enabled || this.paths.length < 2;
    this.v.requestDraw();
  }

  async load(run) {
    const gen = this.generation;
    this.state = 'loading';
    for (;;) {
      try {
        const a = await getJson('runs/' + run + '/critical-path');
        if (gen !== this.generation) return;
        this.paths = a.paths;
        this.state = 'ready';
        this.select.replaceChildren(...this.paths.map((p) => el('option', {value: keyOf(p)}, pathLabel(p))));
        const first = this.paths.find((p) => p.rank < 0) || this.paths[0];
        this.choose(this.wanted && this.paths.some((p) => keyOf(p) === this.wanted) ? this.wanted : first && keyOf(first));
        this.select.hidden = !this.enabled || this.paths.length < 2;
        return;
      } catch (e) {
        if (gen !== this.generation) return;
        const status = e instanceof ApiError ? e.status : 0;
        if (status === 503) {
          this.v.requestDraw();
          await new Promise((res) => setTimeout(res, POLL_MS));
          continue;
        }
        this.state = status === 404 ? 'none' : 'failed';
        this.message = e.message || String(e);
        this.v.error(this.message);
        this.v.requestDraw();
        return;
      }
    }
  }

  choose(key) {
    this.path = this.paths.find((p) => keyOf(p) === key) || null;
    if (this.path) this.select.value = key;
    this.wanted = key || null;
    if (this.enabled && this.path) this.showSummary();
    this.v.requestDraw();
  }

  // "step:rank" of the path shown, for the URL; null when off.
  hashKey() { return this.enabled ? (this.path ? keyOf(this.path) : this.wanted || 'on') : null; }

  // Dims the lanes but the path's events, outlines them and joins them in path order (within a rank).
  draw(tl) {
    this.drawn = 0;
    if (!this.enabled || !this.path) return;
    const ctx = tl.ctx, layout = this.v.layout, top = this.v.scrollY;
    const boxes = [];
    for (const e of this.path.events) {
      const lane = layout.laneOfRow.get(e.row);
      if (!lane) continue;
      tl.shift = this.v.shiftOf(e.row);
      const x0 = tl.xOf(e.start_ns), x1 = Math.max(x0 + 2, tl.xOf(e.start_ns + e.dur_ns));
      tl.shift = 0;
      boxes.push({e, x0, x1, y: HEADER_H + lane.y - top, h: lane.h});
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, tl.plotW, tl.lanesH);
    ctx.clip();
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, tl.plotW, tl.lanesH);
    for (const b of boxes) ctx.rect(b.x0, b.y, b.x1 - b.x0, b.h);
    ctx.fillStyle = 'rgba(255,255,255,0.62)';
    ctx.fill('evenodd');
    ctx.strokeStyle = OUTLINE;
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 1; i < boxes.length; i++) {
      const a = boxes[i - 1], b = boxes[i];
      if (a.e.rank !== b.e.rank) continue;
      ctx.moveTo(a.x1, a.y + a.h / 2);
      ctx.lineTo(b.x0, b.y + b.h / 2);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.lineWidth = 2;
    for (const b of boxes) {
      ctx.strokeRect(b.x0, b.y + 1, b.x1 - b.x0, b.h - 2);
      if (b.x1 >= LABEL_W && b.x0 <= tl.w && b.y + b.h >= HEADER_H && b.y <= tl.h) this.drawn++;
    }
    ctx.restore();
  }

  label() {
    if (!this.enabled) return '';
    if (this.state === 'ready') return this.path ? ' · critical path: ' + pathLabel(this.path) + ', ' + fmtDur(this.path.path_ns) : ' · critical path: none in this run';
    if (this.state === 'none' || this.state === 'failed') return ' · critical path: ' + this.message;
    return ' · critical path: running the plugins…';
  }

  showSummary() {
    const p = this.path;
    const total = p.categories.reduce((s, c) => s + c.time_ns, 0) || 1;
    const parts = [
      el('h3', {}, 'Critical path · ' + pathLabel(p)),
      kvTable([
        ['length', fmtDur(p.path_ns) + ' (measured)'],
        ['late start', fmtDur(p.late_start_ns) + ' (inferred)'],
        ['waits', fmtDur(p.waits_ns) + ' (measured)'],
        ['elapsed', fmtDur(p.elapsed_ns) + ' (measured)'],
        ['events', p.events.length + ' drawn' + (p.unplaced ? ', ' + p.unplaced + ' without a lane' : '')],
      ]),
      el('h4', {}, 'By category (share of the path\'s time, waits as idle)'),
      kvTable(p.categories.filter((c) => c.time_ns > 0).map((c) => [c.category,
        fmtDur(c.time_ns) + ' · ' + (100 * c.time_ns / total).toFixed(1) + ' %'])),
    ];
    if (p.ranks.length) parts.push(el('h4', {}, 'By rank'), kvTable(p.ranks.map((r) => ['rank ' + r.rank, fmtDur(r.time_ns)])));
    if (p.collectives.length) {
      parts.push(el('h4', {}, 'Gating rank per collective'), kvTable(p.collectives.map((c) => ['collective ' + c.collective,
        'rank ' + c.gating_rank + ' (ahead by ' + fmtDur(c.lead_ns) + ', transfer ' + fmtDur(c.transfer_ns) + ')' +
        (c.on_path ? ' · on the path' : '')])));
    }
    document.getElementById('details').replaceChildren(...parts);
  }
}
