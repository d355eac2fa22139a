// The URL's hash holds the run, the viewport and the selection
// (#run=0&t0=REL&t1=REL&sel=ID,ID), so a copied link reopens the same view.

const MAX_SEL_IN_URL = 200;

export function readHash() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ''));
  const num = (k) => (p.has(k) && /^-?\d+$/.test(p.get(k)) ? Number(p.get(k)) : null);
  const sel = (p.get('sel') || '').split(',').filter((s) => /^\d+$/.test(s)).map(Number).slice(0, MAX_SEL_IN_URL);
  return {run: num('run'), t0: num('t0'), t1: num('t1'), sel};
}

export function formatHash(run, view, selIds) {
  const p = new URLSearchParams();
  p.set('run', String(run));
  p.set('t0', String(Math.floor(view.t0)));
  p.set('t1', String(Math.ceil(view.t1)));
  if (selIds.length) p.set('sel', selIds.slice(0, MAX_SEL_IN_URL).join(','));
  return '#' + p.toString().replace(/%2C/g, ',');
}
