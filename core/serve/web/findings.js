// The findings lane at the top: the default pipeline's findings of the run
// (/findings; the server runs the pipeline in the background after the run
// is ready and answers 503 meanwhile, so this polls), one mark per finding
// over its window, coloured by severity. Clicking a mark shows the finding
// in the details pane; `f` then frames its window.
import {ApiError, getJson} from './api.js';
import {el, kvTable} from './dom.js';
import {fmtDur} from './format.js';
import {LABEL_W} from './timeline.js';

export const FINDINGS_H = 20;
const MARK_H = 14, MAX_LEVELS = 6;
const POLL_MS = 1000;

// Levels for overlapping windows (greedy, by start): a finding's mark goes on
// the first level whose last window ended before it starts.
function stack(list) {
  const ends = [];
  for (const f of list.slice().sort((a, b) => a.start_ns - b.start_ns || b.end_ns - a.end_ns)) {
    let l = ends.findIndex((e) => e < f.start_ns);
    if (l < 0) l = ends.length < MAX_LEVELS ? ends.length : MAX_LEVELS - 1;
    ends[l] = Math.max(ends[l] === undefined ? -Infinity : ends[l], f.end_ns);
    f.level = l;
  }
  return Math.max(1, ends.length);
}

// The lane's height for `levels` levels of marks.
export function findingsHeight(levels) { return Math.max(FINDINGS_H, 6 + levels * MARK_H); }
const COLOURS = {P0: '#c62828', P1: '#ef6c00', P2: '#f9a825', info: '#78909c'};

export class FindingsLayer {
  constructor(viewer) {
    this.v = viewer;
    this.reset();
  }

  reset() {
    this.state = 'loading';  // loading | running | ready | none | failed
    this.message = '';
    this.list = [];
    this.marks = [];          // [{f, x0, x1, y, h}] drawn in the last frame
    this.selected = null;
    this.generation = (this.generation || 0) + 1;
  }

  async load(run) {
    const gen = this.generation;
    for (;;) {
      try {
        const a = await getJson('runs/' + run + '/findings');
        if (gen !== this.generation) return;
        this.list = a.findings;
        this.state = 'ready';
        this.v.layout.setFindingsHeight(findingsHeight(stack(this.list)));
        this.v.requestDraw();
        return;
      } catch (e) {
        if (gen !== this.generation) return;
        const status = e instanceof ApiError ? e.status : 0;
        if (status === 503) {
          this.state = 'running';
          this.v.requestDraw();
          await new Promise((res) => setTimeout(res, POLL_MS));
          continue;
        }
        this.state = status === 404 ? 'none' : 'failed';
        this.message = e.message || String(e);
        this.v.requestDraw();
        return;
      }
    }
  }

  label() {
    if (this.state === 'ready') return 'findings (' + this.list.length + ')';
    if (this.state === 'running' || this.state === 'loading') return 'findings: running the pipeline…';
    if (this.state === 'none') return 'findings: no pipeline';
    return 'findings: the pipeline failed';
  }

  drawLane(tl, it, y) {
    const ctx = tl.ctx;
    ctx.fillStyle = '#fdf6ec';
    ctx.fillRect(0, y, tl.w, it.h);
    ctx.fillStyle = '#2a3140';
    ctx.font = 'bold 11px system-ui, sans-serif';
    ctx.fillText(this.label(), 6, y + 14);
    if (this.state === 'failed' || this.state === 'none') {
      ctx.font = 'italic 11px system-ui, sans-serif';
      ctx.fillStyle = '#8b94a6';
      ctx.fillText(this.message, LABEL_W + 8, y + 14);
    }
    this.marks = [];
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, y, tl.plotW, it.h);
    ctx.clip();
    // Wide marks first, so narrower ones stay visible on top.
    const order = this.list.slice().sort((a, b) => (b.end_ns - b.start_ns) - (a.end_ns - a.start_ns));
    for (const f of order) {
      const x0 = tl.xOf(f.start_ns), x1 = Math.max(x0 + 5, tl.xOf(f.end_ns));
      if (x1 < LABEL_W || x0 > tl.w) continue;
      const m = {f, x0: Math.max(LABEL_W, x0), x1: Math.min(tl.w, x1), y: y + 3 + f.level * MARK_H, h: MARK_H - 2};
      ctx.fillStyle = COLOURS[f.severity] || COLOURS.info;
      ctx.globalAlpha = f === this.selected ? 1 : 0.75;
      ctx.fillRect(m.x0, m.y, m.x1 - m.x0, m.h);
      if (f === this.selected) { ctx.strokeStyle = '#10182b'; ctx.lineWidth = 2; ctx.strokeRect(m.x0, m.y, m.x1 - m.x0, m.h); }
      ctx.globalAlpha = 1;
      if (m.x1 - m.x0 > 60) {
        ctx.fillStyle = '#fff';
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillText((f.severity + ' ' + f.title).slice(0, Math.floor((m.x1 - m.x0) / 6.2)), m.x0 + 3, m.y + m.h - 3);
      }
      this.marks.push(m);
    }
    ctx.restore();
  }

  // The mark under canvas point (x, y) (the narrowest; of equal ones the last drawn, on top).
  hit(x, y) {
    let best = null;
    for (const m of this.marks) {
      if (x < m.x0 || x > m.x1 || y < m.y - 1 || y > m.y + m.h + 1) continue;
      if (!best || m.x1 - m.x0 <= best.x1 - best.x0) best = m;
    }
    return best ? best.f : null;
  }

  select(f) {
    this.selected = f;
    const s = f.scope || {};
    const scope = ['rank', 'device', 'stream', 'step_first', 'step_last'].filter((k) => s[k] !== null && s[k] !== undefined)
      .map((k) => k.replace('_', ' ') + ' ' + s[k]).join(', ') || 'the whole trace';
    const parts = [
      el('h3', {class: 'finding-title'}, f.severity + ' · ' + f.title),
      kvTable([
        ['plugin', f.plugin],
        ['scope', scope],
        ['window', fmtDur(f.end_ns - f.start_ns) + ' from ' + fmtDur(f.start_ns) + ' (' + f.place + ')'],
        ['confidence', String(f.confidence)],
      ]),
      el('p', {class: 'finding-what'}, f.what),
    ];
    if (f.suggestion) parts.push(el('h4', {}, 'Suggestion'), el('p', {}, f.suggestion));
    if (f.evidence && f.evidence.length) {
      parts.push(el('h4', {}, 'Evidence'), kvTable(f.evidence.map((e) => [e.name, String(e.value) + (e.unit ? ' ' + e.unit : '') +
        ' (' + e.kind + ')'])));
    }
    parts.push(el('p', {}, el('button', {class: 'jump', onclick: () => this.frame()}, 'frame it (f)')));
    document.getElementById('details').replaceChildren(...parts);
    this.v.requestDraw();
  }

  frame() { if (this.selected) this.v.frame(this.selected.start_ns, this.selected.end_ns); }

  // Page coordinates of the marks drawn (for the browser test).
  markPoints() {
    const r = this.v.canvas.getBoundingClientRect();
    return this.marks.map((m) => ({index: m.f.index, x: r.left + (m.x0 + m.x1) / 2, y: r.top + m.y + m.h / 2}));
  }
}
