// The diff view's Δ table: the diff's aggregate rows (class, name, status,
// time per step on A and B, Δ, Δ%) as the server sorts them (|Δ| first).
// Hovering a row previews it, clicking selects it (callbacks); rows past
// MAX_ROWS are left out with a note.
import {el} from './dom.js';
import {fmtDur, fmtInt} from './format.js';

const MAX_ROWS = 1000;
const CLASS_LABEL = {cpu_op: 'CPU op', gpu_kernel: 'GPU kernel', hlo_op: 'HLO op'};

function pct(p) { return p === null ? '' : (p > 0 ? '+' : '') + p.toFixed(2) + ' %'; }
function delta(ns) { return (ns > 0 ? '+' : ns < 0 ? '−' : '') + fmtDur(Math.abs(ns)); }

// rows: diff.aggregate; onHover(index | null); onSelect(index).
export function renderDiffTable(table, rows, onHover, onSelect) {
  const head = el('tr', {}, ['class', 'name', 'status', 'A / step', 'B / step', 'Δ', 'Δ%'].map((h) => el('th', {}, h)));
  const body = rows.slice(0, MAX_ROWS).map((r, i) => el('tr', {
    class: 'diff-row status-' + r.status, 'data-index': i,
    title: r.name + ' · A ' + fmtInt(r.a_count) + ', B ' + fmtInt(r.b_count) + ' events · noise ' + fmtDur(r.noise_ns),
    onmouseenter: () => onHover(i), onmouseleave: () => onHover(null), onclick: () => onSelect(i),
  },
  el('td', {}, CLASS_LABEL[r.class] || r.class),
  el('td', {class: 'name'}, r.name),
  el('td', {class: 'status'}, r.status),
  el('td', {class: 'num'}, fmtDur(r.a_time_per_step_ns)),
  el('td', {class: 'num'}, fmtDur(r.b_time_per_step_ns)),
  el('td', {class: 'num'}, delta(r.delta_ns)),
  el('td', {class: 'num'}, pct(r.delta_pct))));
  const note = rows.length > MAX_ROWS ? el('caption', {class: 'note'}, 'the first ' + MAX_ROWS + ' of ' + fmtInt(rows.length) + ' rows') : null;
  table.replaceChildren(...[note, el('thead', {}, head), el('tbody', {}, body)].filter(Boolean));
}

// Marks row i of the table as selected (null: none).
export function markSelected(table, i) {
  for (const tr of table.querySelectorAll('tr.diff-row')) tr.classList.toggle('selected', Number(tr.dataset.index) === i);
}
