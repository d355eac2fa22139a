// The roofline chart (button "roofline" or key r): the server's /roofline
// answer (the roofline plugin, run once per run with the critical path: 503
// meanwhile, so this polls) as a log-log SVG: x arithmetic intensity
// (FLOP/B), y FLOP/s; one roof per peak row the ops were held to (per device
// and "unit dtype": min(peak FLOP/s, intensity x HBM bandwidth)); one dot per
// op row, coloured by dtype. Hovering a dot shows the op's numbers with their
// units and kinds (F and B inferred, T measured, peaks read). An op row with
// F, B or T of 0 has no place on log axes: the footer counts them.
import {ApiError, getJson} from './api.js';
import {el} from './dom.js';
import {fmtDur, fmtSig} from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 620, H = 380, M = {l: 64, r: 16, t: 14, b: 40};
const POLL_MS = 1000;
const DTYPE_COLOURS = {bf16: '#1e88e5', fp16: '#43a047', fp32: '#e53935', tf32: '#fb8c00', fp8: '#8e24aa',
  int8: '#6d4c41', fp64: '#00897b'};
export const dtypeColour = (d) => DTYPE_COLOURS[d] || '#546e7a';

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// 1.37e14 → "137 T" (3 significant digits, SI prefix, no exponent).
export function fmtSi(v, unit) {
  if (!(v > 0)) return String(v) + ' ' + unit;
  const p = [[1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm']];
  for (const [s, n] of p) if (v >= s) return fmtSig(v / s, 3) + ' ' + n + unit;
  return fmtSig(v, 3) + ' ' + unit;
}

const drawable = (op) => op.flops > 0 && op.bytes > 0 && op.time_ns > 0;

export class RooflinePanel {
  constructor(viewer, panel) {
    this.v = viewer;
    this.panel = panel;
    this.open = false;
    this.reset();
  }

  reset() {
    this.state = 'idle';  // idle | loading | ready | none | failed
    this.answer = null;
    this.dots = 0;
    this.generation = (this.generation || 0) + 1;
    if (this.open) this.render();
  }

  toggle(on) {
    this.open = on === undefined ? !this.open : !!on;
    this.panel.hidden = !this.open;
    if (this.open && this.state === 'idle') this.v.guard(this.load(this.v.run));
    this.render();
    this.v.requestDraw();
  }

  async load(run) {
    const gen = this.generation;
    this.state = 'loading';
    for (;;) {
      try {
        const a = await getJson('runs/' + run + '/roofline');
        if (gen !== this.generation) return;
        this.answer = a;
        this.state = 'ready';
        this.render();
        return;
      } catch (e) {
        if (gen !== this.generation) return;
        const status = e instanceof ApiError ? e.status : 0;
        if (status === 503) { await new Promise((res) => setTimeout(res, POLL_MS)); continue; }
        this.state = status === 404 ? 'none' : 'failed';
        this.message = e.message || String(e);
        this.render();
        return;
      }
    }
  }

  render() {
    if (!this.open) return;
    const close = el('button', {type: 'button', class: 'close', title: 'close (r)', onclick: () => this.toggle(false)}, '×');
    const head = el('div', {class: 'roofline-head'}, el('strong', {}, 'Roofline'), close);
    this.dots = 0;
    if (this.state !== 'ready') {
      const text = this.state === 'none' || this.state === 'failed' ? this.message : 'running the roofline plugin…';
      this.panel.replaceChildren(head, el('p', {class: 'muted'}, text));
      return;
    }
    const a = this.answer;
    this.info = el('p', {class: 'roofline-info muted'}, a.ops.length ? 'Hover a dot for the op\'s numbers.' :
      'No op of this run has input shapes (record_shapes) and a model: nothing to place.');
    const legend = el('div', {class: 'roofline-legend'}, a.roofs.map((r) => el('span', {},
      el('i', {class: 'swatch', 'data-dtype': r.dtype, title: r.source}), r.peak + (r.unit === 'vector' ? ' (dashed)' : '') + ' · ' + fmtSi(r.peak_flops, 'FLOP/s') +
      ', ' + fmtSi(r.peak_bytes_per_s, 'B/s') + ' (read: ' + r.device + ')')));
    for (const s of legend.querySelectorAll('.swatch')) s.style.background = dtypeColour(s.dataset.dtype);
    const left = a.ops.length - a.ops.filter(drawable).length;
    const foot = el('p', {class: 'muted'}, a.ops.length + ' op rows, ' + (a.ops.length - left) + ' drawn' +
      (left ? '; ' + left + ' with F, B or T of 0 (no place on log axes)' : '') +
      ' · F, B inferred from the shapes or HLO (read where the TPU runtime wrote them), T measured, peaks read from configs/peaks.yaml');
    this.panel.replaceChildren(head, this.chart(a), legend, this.info, foot);
  }

  // Log-log axes over the ops and the roofs' ridge points, the roofs, the dots.
  chart(a) {
    const ops = a.ops.filter(drawable);
    const xs = ops.map((o) => o.intensity), ys = ops.map((o) => o.flops_per_s);
    for (const r of a.roofs) if (r.peak_flops > 0 && r.peak_bytes_per_s > 0) { xs.push(r.peak_flops / r.peak_bytes_per_s); ys.push(r.peak_flops); }
    const lx0 = Math.floor(Math.log10(Math.min(...xs, 1))) - 1, lx1 = Math.ceil(Math.log10(Math.max(...xs, 10))) + 1;
    const ly1 = Math.ceil(Math.log10(Math.max(...ys, 1e9))) + 1, ly0 = Math.min(ly1 - 3, Math.floor(Math.log10(Math.min(...ys, 1e12))) - 1);
    const px = (x) => M.l + (Math.log10(x) - lx0) / (lx1 - lx0) * (W - M.l - M.r);
    const py = (y) => H - M.b - (Math.log10(y) - ly0) / (ly1 - ly0) * (H - M.t - M.b);
    const root = svg('svg', {viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, class: 'roofline-chart'});
    const axes = svg('g', {class: 'axes'});
    for (let d = lx0; d <= lx1; d++) {
      axes.append(svg('line', {x1: px(10 ** d), x2: px(10 ** d), y1: M.t, y2: H - M.b, class: 'grid'}));
      axes.append(svg('text', {x: px(10 ** d), y: H - M.b + 14, 'text-anchor': 'middle'}, '1e' + d));
    }
    for (let d = ly0; d <= ly1; d++) {
      axes.append(svg('line', {x1: M.l, x2: W - M.r, y1: py(10 ** d), y2: py(10 ** d), class: 'grid'}));
      axes.append(svg('text', {x: M.l - 4, y: py(10 ** d) + 4, 'text-anchor': 'end'}, fmtSi(10 ** d, '')));
    }
    axes.append(svg('text', {x: (M.l + W - M.r) / 2, y: H - 6, 'text-anchor': 'middle'}, 'arithmetic intensity (FLOP/B, inferred)'));
    axes.append(svg('text', {x: 12, y: (M.t + H - M.b) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (M.t + H - M.b) / 2 + ')'},
      'FLOP/s (achieved: F inferred / T measured)'));
    root.append(axes, svg('clipPath', {id: 'roofline-plot'}, svg('rect', {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b})));
    const plot = svg('g', {'clip-path': 'url(#roofline-plot)'});
    for (const r of a.roofs) {
      if (!(r.peak_flops > 0 && r.peak_bytes_per_s > 0)) continue;
      const ridge = r.peak_flops / r.peak_bytes_per_s, x0 = 10 ** lx0, x1 = 10 ** lx1;
      const pts = [[x0, x0 * r.peak_bytes_per_s], [ridge, r.peak_flops], [x1, r.peak_flops]];
      plot.append(svg('polyline', {points: pts.map(([x, y]) => px(x) + ',' + py(y)).join(' '), class: 'roof',
        stroke: dtypeColour(r.dtype), 'stroke-dasharray': r.unit === 'vector' ? '6 4' : 'none', 'data-peak': r.peak},
      svg('title', {}, r.peak + ' on ' + r.device + ': ' + fmtSi(r.peak_flops, 'FLOP/s') + ', ' + fmtSi(r.peak_bytes_per_s, 'B/s') + ' (read: ' + r.source + ')')));
    }
    a.ops.forEach((o, i) => {
      if (!drawable(o)) return;
      const c = svg('circle', {cx: px(o.intensity), cy: py(o.flops_per_s), r: 5, fill: dtypeColour(o.dtype), class: 'op-dot', 'data-index': i},
        svg('title', {}, o.name + ' ' + o.dtype));
      c.addEventListener('mouseenter', () => this.describe(o));
      plot.append(c);
      this.dots++;
    });
    root.append(plot);
    return root;
  }

  // The op's numbers, each with its unit and kind.
  describe(o) {
    this.info.className = 'roofline-info';
    this.info.textContent = o.name + ' · ' + o.dtype + ' ' + o.input_dims + ' · rank ' + o.rank + ' · ' + o.count + '× · ' +
      'F ' + fmtSi(o.flops, 'FLOP') + ' (' + (o.cost_kind || 'inferred') + ') · B ' + fmtSi(o.bytes, 'B') + ' (' + (o.cost_kind || 'inferred') + ') · T ' + fmtDur(o.time_ns) + ' (measured) · ' +
      fmtSi(o.flops_per_s, 'FLOP/s') + ' achieved · intensity ' + fmtSig(o.intensity, 3) + ' FLOP/B · roof ' + o.peak + ' ' +
      fmtSi(o.peak_flops, 'FLOP/s') + ', ' + fmtSi(o.peak_bytes_per_s, 'B/s') + ' (read) · ' + o.bound + '-bound · efficiency ' +
      (o.efficiency < 0 ? 'unknown (no peak)' : (100 * o.efficiency).toFixed(1) + ' % (inferred)');
    this.described = o;
  }
}
