// Formatting of times and counts for the viewer's labels.
import {busyRange} from './api.js';

// n with `digits` significant digits and never an exponent (toPrecision
// writes 999.7 at 3 digits as "1.00e+3"; this writes "1000").
export function fmtSig(n, digits) {
  const a = Math.abs(n);
  if (a === 0 || !Number.isFinite(n)) return String(n);
  const magnitude = Math.floor(Math.log10(a));
  return n.toFixed(Math.min(100, Math.max(0, digits - 1 - magnitude)));
}

// A duration in ns with a unit that keeps 3 significant digits (4 in seconds).
export function fmtDur(ns) {
  const a = Math.abs(ns);
  if (a < 1e3) return Math.round(ns) + ' ns';
  if (a < 1e6) return fmtSig(ns / 1e3, 3) + ' µs';
  if (a < 1e9) return fmtSig(ns / 1e6, 3) + ' ms';
  return fmtSig(ns / 1e9, 4) + ' s';
}

// An axis label for relative time t with a tick step of `step` ns.
export function fmtTick(t, step) {
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
  for (const [scale, unit] of units) {
    if (step >= scale || scale === 1) {
      const digits = Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9));
      return (t / scale).toFixed(Math.min(digits, 6)) + ' ' + unit;
    }
  }
  return String(t);
}

export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');

// A bucket's busy share from its THVP busy level q, as the range it stands
// for (api.js busyRange), in %.
export function fmtBusyLevel(q) {
  const [low, high] = busyRange(q);
  if (high === 0) return '0 %';
  if (high === Infinity) return '≥ 100 %';
  return (100 * low).toFixed(1) + '–' + (100 * high).toFixed(1) + ' %';
}

// A nice tick step (1, 2, 5 x 10^k ns) for about `px` pixels per tick.
export function tickStep(spanNs, widthPx, px) {
  const raw = spanNs * px / Math.max(1, widthPx);
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

const colorCache = new Map();
// A stable colour per event name (the colour carries no meaning, as in XProf).
export function nameColor(name) {
  let c = colorCache.get(name);
  if (c) return c;
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  h >>>= 0;
  c = 'hsl(' + (h % 360) + ',52%,' + (56 + (h >>> 9) % 16) + '%)';
  if (colorCache.size > 20000) colorCache.clear();
  colorCache.set(name, c);
  return c;
}
