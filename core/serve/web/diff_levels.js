// The diff view's other two levels beside the Δ table (docs/diff.md): the
// parity warnings, the attribution of the step-time change to the
// step-breakdown categories (Σ Δ = the change), and the structural rows of the
// chosen step pair (added / removed subtrees, kernels replaced at their lowest
// common ancestor, time changed), each under its aligned path. Clicking a
// structural row calls onName(side key, name) with the name to select.
import {el} from './dom.js';
import {fmtDur} from './format.js';

function delta(ns) { return (ns > 0 ? '+' : ns < 0 ? '−' : '') + fmtDur(Math.abs(ns)); }

export function renderWarnings(list, warnings) {
  list.replaceChildren(...warnings.map((w) => el('li', {class: 'warning'}, w)));
  list.hidden = !warnings.length;
}

export function renderAttribution(table, at) {
  if (!at.available) {
    table.replaceChildren(el('caption', {class: 'note'}, 'no attribution: a side has no step-breakdown'));
    return;
  }
  const head = el('tr', {}, ['category', 'A / step', 'B / step', 'Δ'].map((h) => el('th', {}, h)));
  const rows = at.contributors.map((c) => el('tr', {class: 'attribution-row'},
      el('td', {}, c.category), el('td', {class: 'num'}, fmtDur(c.a_ns)),
      el('td', {class: 'num'}, fmtDur(c.b_ns)), el('td', {class: 'num'}, delta(c.delta_ns))));
  const total = el('tr', {class: 'total'}, el('td', {}, 'step time'), el('td', {class: 'num'}, fmtDur(at.a_step_ns)),
      el('td', {class: 'num'}, fmtDur(at.b_step_ns)), el('td', {class: 'num'}, delta(at.delta_ns)));
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows, total));
}

// entry: the diff's structure[] entry of the chosen step pair, or undefined.
export function renderStructure(table, entry, onName) {
  if (!entry) {
    table.replaceChildren(el('caption', {class: 'note'}, 'no tree of this step pair'));
    return;
  }
  const head = el('tr', {}, ['change', 'level', 'where', 'A', 'B', 'Δ'].map((h) => el('th', {}, h)));
  const rows = entry.rows.map((r) => {
    const name = r.b_name || r.a_name;
    const what = r.a_name && r.b_name && r.a_name !== r.b_name ? r.a_name + ' → ' + r.b_name : name;
    return el('tr', {class: 'structure-row kind-' + r.kind, title: r.path.concat([what]).join(' › '),
      onclick: () => onName(r.b_name ? 'b_names' : 'a_names', name)},
    el('td', {}, r.kind.replace('_', ' ')), el('td', {}, r.level),
    el('td', {class: 'name'}, (r.path.length ? r.path[r.path.length - 1] + ' › ' : '') + what),
    el('td', {class: 'num'}, fmtDur(r.a_device_ns)), el('td', {class: 'num'}, fmtDur(r.b_device_ns)),
    el('td', {class: 'num'}, delta(r.delta_ns)));
  });
  const note = 'steps ' + entry.a_step + ' ↔ ' + entry.b_step + ': ' + entry.matched + ' nodes matched, ' +
    entry.a_unmatched + ' only in A, ' + entry.b_unmatched + ' only in B' +
    (entry.rows_left_out ? ', ' + entry.rows_left_out + ' rows left out' : '');
  table.replaceChildren(el('caption', {class: 'note'}, note), el('thead', {}, head), el('tbody', {}, rows));
}
