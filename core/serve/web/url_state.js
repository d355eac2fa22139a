// The URL's hash holds the run, the viewport and the selection
// (#run=0&t0=REL&t1=REL&sel=ID,ID), so a copied link reopens the same view;
// cp=STEP:RANK when the critical path is highlighted (rank -1: across
// ranks; cp=on before its answer came) and roof=1 when the roofline is open.
// A link may give the window as abs0=NS&abs1=NS on the trace's own clock, and
// the run by its content key (key=32 hex digits, as share links do). Only
// numbers and that key: nothing of the trace's contents is put in a URL.

const MAX_SEL_IN_URL = 200;

export function readHash() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ''));
  const num = (k) => (p.has(k) && /^-?\d+$/.test(p.get(k)) ? Number(p.get(k)) : null);
  const sel = (p.get('sel') || '').split(',').filter((s) => /^\d+$/.test(s)).map(Number).slice(0, MAX_SEL_IN_URL);
  const big = (k) => (p.has(k) && /^-?\d+$/.test(p.get(k)) ? BigInt(p.get(k)) : null);
  const key = /^[0-9a-f]{32}$/.test(p.get('key') || '') ? p.get('key') : null;
  const cp = /^(-?\d+:-?\d+|on)$/.test(p.get('cp') || '') ? p.get('cp') : null;
  return {run: num('run'), key, t0: num('t0'), t1: num('t1'), abs0: big('abs0'), abs1: big('abs1'), sel, cp, roof: p.get('roof') === '1'};
}

// The window a hash names, relative to the run's origin: t0/t1 as written, or
// abs0/abs1 (nanoseconds on the trace's clock, as the HTML report links them);
// null when it names none.
export function hashWindow(h, origin) {
  if (h.t0 !== null && h.t1 !== null && h.t1 > h.t0) return {t0: h.t0, t1: h.t1};
  if (h.abs0 !== null && h.abs1 !== null && h.abs1 > h.abs0)
    return {t0: Number(h.abs0 - origin), t1: Number(h.abs1 - origin)};
  return null;
}

// The run a hash names among `runs` (/api/v1/runs): by key, else by number,
// else the first listed; null when none is listed.
export function hashRun(h, runs) {
  const byKey = h.key && runs.find((r) => r.content_key === h.key);
  if (byKey) return byKey.run;
  if (h.run !== null && runs.some((r) => r.run === h.run)) return h.run;
  return runs.length ? runs[0].run : null;
}

// `extra`: {cp: "STEP:RANK" | "on" | null, roof: bool}.
export function formatHash(run, view, selIds, extra = {}) {
  const p = new URLSearchParams();
  p.set('run', String(run));
  p.set('t0', String(Math.floor(view.t0)));
  p.set('t1', String(Math.ceil(view.t1)));
  if (selIds.length) p.set('sel', selIds.slice(0, MAX_SEL_IN_URL).join(','));
  if (extra.cp) p.set('cp', extra.cp);
  if (extra.roof) p.set('roof', '1');
  return '#' + p.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
}
