// Search over the whole trace (/search): per-row hit counts and a density
// strip for the timeline, next/previous hit (paged with after_ns), and "select
// all hits".
import {getJson} from './api.js';
import {fmtInt} from './format.js';

const PAGE = 200;
const SELECT_ALL_LIMIT = 5000;

export class Search {
  // viewer: {run, timeline, showHit(hit), selectHits(hits, note), setSearchState(state), error(msg)}
  constructor(viewer) {
    this.v = viewer;
    this.state = null;
  }

  params(extra) {
    const s = this.state;
    return Object.assign({q: s.q, mode: s.mode, bins: Math.min(4096, this.v.timeline.plotW)}, extra);
  }

  async run(q, mode) {
    if (!q) { this.state = null; this.v.setSearchState(null); return; }
    this.state = {q, mode};
    const r = await getJson('runs/' + this.v.run + '/search', this.params({limit: PAGE}));
    if (!this.state || this.state.q !== q || this.state.mode !== mode) return;  // a newer search
    this.state = {q, mode, total: r.hits_total, density: r.density, hits: r.hits, next: r.next_after_ns,
      perRow: new Map(r.per_row.map((p) => [p.row, p.hits])), index: -1};
    this.v.setSearchState(this.state);
  }

  label() {
    const s = this.state;
    if (!s || s.total === undefined) return '';
    if (!s.total) return 'no hit';
    return (s.index >= 0 ? fmtInt(s.index + 1) + ' of ' : '') + fmtInt(s.total) + (s.total === 1 ? ' hit' : ' hits');
  }

  async step(dir) {
    const s = this.state;
    if (!s || !s.hits || !s.total) return;
    let i = s.index + dir;
    if (i >= s.hits.length && s.next !== null && s.next !== undefined) {
      const r = await getJson('runs/' + this.v.run + '/search', this.params({limit: PAGE, after_ns: s.next}));
      const seen = new Set(s.hits.map((h) => h.id));
      for (const h of r.hits) if (!seen.has(h.id)) s.hits.push(h);
      s.next = r.next_after_ns;
    }
    if (i >= s.hits.length) i = 0;   // wrap around
    if (i < 0) i = s.hits.length - 1;
    s.index = i;
    this.v.showHit(s.hits[i]);
    this.v.setSearchState(s);
  }

  async selectAll() {
    const s = this.state;
    if (!s || !s.total) return;
    const r = await getJson('runs/' + this.v.run + '/search', this.params({limit: SELECT_ALL_LIMIT}));
    const note = r.hits.length < r.hits_total ? 'the first ' + fmtInt(r.hits.length) + ' of ' + fmtInt(r.hits_total) + ' hits' : '';
    this.v.selectHits(r.hits, note);
  }
}
