// The run browser: the server's run list (GET /api/v1/runs, sorted, filtered
// and paged there), sortable columns, a filter box, tags as chips that filter.
// The hash holds only what the user chose (#sort=-time&q=TEXT&tag=T&host=H
// &verdict=V&family=F); a host, verdict or job family clicked in a row filters
// the list by it exactly (job family: same pipeline and trace signature);
// clicking a run opens the viewer on it; ticking two runs and "compare" opens
// the diff view on them (diff.html).
import {getJson} from './api.js';
import {el} from './dom.js';
import {fmtDur} from './format.js';

const PAGE = 200;
const COLUMNS = [
  {key: 'name', label: 'run'},
  {key: 'time', label: 'time'},
  {key: 'host', label: 'host'},
  {key: 'ranks', label: 'ranks'},
  {key: 'verdict', label: 'verdict'},
  {key: 'severity', label: 'top finding'},
  {key: 'step_p50', label: 'step p50'},
  {key: 'step_range', label: 'step range'},
  {key: null, label: 'family'},
  {key: null, label: 'tags'},
];
// Filters that match one field of the run exactly, as the API names them.
const EXACT = ['host', 'verdict', 'family'];

const $ = (id) => document.getElementById(id);

function readState() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ''));
  const s = {sort: p.get('sort') || '', q: p.get('q') || '', tags: p.getAll('tag')};
  for (const k of EXACT) s[k] = p.get(k) || '';
  return s;
}

function writeState(s) {
  const p = new URLSearchParams();
  if (s.sort) p.set('sort', s.sort);
  if (s.q) p.set('q', s.q);
  for (const t of s.tags) p.append('tag', t);
  for (const k of EXACT) if (s[k]) p.set(k, s[k]);
  const hash = p.toString();
  if (location.hash.replace(/^#/, '') !== hash) history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
}

function timeText(r) {
  if (r.time_ns === null) return '';
  const d = new Date(Number(BigInt(r.time_ns) / 1000000n));
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') + (r.time_kind === 'modified' ? ' (file)' : '');
}

function stepRange(r) {
  return r.step_min_ns === null ? '' : fmtDur(r.step_min_ns) + ' – ' + fmtDur(r.step_max_ns);
}

class RunList {
  constructor() {
    this.state = readState();
    this.rows = [];
    this.total = 0;
    this.generation = 0;
    this.picked = [];  // run numbers ticked for "compare", at most two
    $('filter').value = this.state.q;
    let timer = 0;
    $('filter').addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.set({q: $('filter').value.trim()}), 150);
    });
    $('filter-form').addEventListener('submit', (e) => { e.preventDefault(); this.set({q: $('filter').value.trim()}); });
    $('more').addEventListener('click', () => this.load(true));
    $('compare').addEventListener('click', () => {
      if (this.picked.length === 2) location.href = 'diff.html' + location.search + '#diff=' + this.picked.join(',');
    });
    window.addEventListener('hashchange', () => { this.state = readState(); $('filter').value = this.state.q; this.load(false); });
    this.load(false);
  }

  set(change) {
    Object.assign(this.state, change);
    writeState(this.state);
    this.load(false);
  }

  sortBy(key) {
    const s = this.state.sort;
    this.set({sort: s === key ? '-' + key : key});
  }

  async load(more) {
    const generation = ++this.generation;
    const params = new URLSearchParams();
    if (this.state.sort) params.set('sort', this.state.sort);
    if (this.state.q) params.set('q', this.state.q);
    for (const t of this.state.tags) params.append('tag', t);
    for (const k of EXACT) if (this.state[k]) params.set(k, this.state[k]);
    params.set('offset', String(more ? this.rows.length : 0));
    params.set('limit', String(PAGE));
    $('status').textContent = 'loading…';
    try {
      const ans = await getJson('runs?' + params.toString());
      if (generation !== this.generation) return;
      this.rows = more ? this.rows.concat(ans.runs) : ans.runs;
      this.total = ans.total;
      this.draw();
    } catch (e) {
      $('error').textContent = e.message || String(e);
    }
  }

  open(run) {
    location.href = '/' + location.search + '#run=' + run;
  }

  // Ticks run r for "compare" (a third tick drops the oldest).
  pick(r, on) {
    this.picked = this.picked.filter((x) => x !== r);
    if (on) this.picked = this.picked.concat([r]).slice(-2);
    for (const box of document.querySelectorAll('input.pick')) box.checked = this.picked.includes(Number(box.dataset.run));
    $('compare').disabled = this.picked.length !== 2;
  }

  head() {
    return [el('th', {title: 'tick two runs, then compare'}, '')].concat(COLUMNS.map((c) => {
      if (!c.key) return el('th', {}, c.label);
      const s = this.state.sort;
      const mark = s === c.key ? ' ▲' : s === '-' + c.key ? ' ▼' : '';
      return el('th', {class: 'sortable', 'data-sort': c.key, onclick: () => this.sortBy(c.key)}, c.label + mark);
    }));
  }

  row(r) {
    const chip = (t) => el('button', {type: 'button', class: 'chip', onclick: (e) => {
      e.stopPropagation();
      if (!this.state.tags.includes(t)) this.set({tags: this.state.tags.concat([t])});
    }}, t);
    // A cell that, clicked, keeps only the runs with its value of `key`.
    const exact = (key, value, text, cls) => value ? el('button', {type: 'button', class: 'chip ' + key + '-chip ' + (cls || ''),
      title: 'only runs with this ' + key + ': ' + value, onclick: (e) => { e.stopPropagation(); this.set({[key]: value}); }}, text) : '';
    const top = r.top_finding;
    const box = el('input', {type: 'checkbox', class: 'pick', 'data-run': r.run, title: 'compare this run',
      checked: this.picked.includes(r.run), onclick: (e) => e.stopPropagation(), onchange: (e) => this.pick(r.run, e.target.checked)});
    return el('tr', {class: 'run', 'data-run': r.run, onclick: () => this.open(r.run)},
        el('td', {}, box),
        el('td', {class: 'name', title: r.location}, el('a', {href: '/' + location.search + '#run=' + r.run}, r.name)),
        el('td', {}, timeText(r)),
        el('td', {}, exact('host', r.host, r.host)),
        el('td', {class: 'num'}, r.ranks === null ? '' : r.ranks),
        el('td', {class: 'verdict ' + (r.verdict || 'none').toLowerCase()},
            r.verdict ? exact('verdict', r.verdict, r.verdict, 'plain') : (r.error ? 'error' : 'not analysed')),
        el('td', {}, top ? el('span', {class: 'sev-' + top.severity}, top.severity + ' ' + top.plugin + ': ' + top.title) : ''),
        el('td', {class: 'num'}, r.step_p50_ns === null ? '' : fmtDur(r.step_p50_ns)),
        el('td', {class: 'num'}, stepRange(r)),
        el('td', {}, exact('family', r.family, r.family ? r.family.slice(0, 8) : '')),
        el('td', {}, r.tags.map(chip)));
  }

  draw() {
    $('run-head').replaceChildren(...this.head());
    $('run-rows').replaceChildren(...this.rows.map((r) => this.row(r)));
    const active = (text, drop) => el('button', {type: 'button', class: 'chip active', title: 'remove this filter', onclick: drop}, text + ' ×');
    $('chips').replaceChildren(
        ...this.state.tags.map((t) => active(t, () => this.set({tags: this.state.tags.filter((x) => x !== t)}))),
        ...EXACT.filter((k) => this.state[k]).map((k) =>
          active(k + ' ' + (k === 'family' ? this.state[k].slice(0, 8) : this.state[k]), () => this.set({[k]: ''}))));
    $('count').textContent = this.total + ' run' + (this.total === 1 ? '' : 's');
    $('more').hidden = this.rows.length >= this.total;
    $('status').textContent = 'showing ' + this.rows.length + ' of ' + this.total;
  }
}

window.runList = new RunList();
