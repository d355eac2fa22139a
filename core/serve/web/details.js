// The details pane: one event's details from /events/{id} (args, the launch
// <-> kernel links with jumps both ways, the Python stack as vscode:// links,
// HLO fields), or for several selected events a summary table (count, total,
// min, max per name).
import {el, kvTable} from './dom.js';
import {fmtBusyLevel, fmtDur, fmtInt} from './format.js';

const show = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function jumpButton(id, label, onJump) {
  return el('button', {class: 'jump', 'data-jump': id, onclick: () => onJump(id)}, label);
}

// `d`: the /events/{id} JSON; trackName(row) names its track.
export function renderEvent(pane, d, trackName, onJump) {
  const parts = [el('h3', {}, d.name)];
  parts.push(kvTable([
    ['start', fmtDur(d.start_ns) + ' (' + fmtInt(d.start_ns) + ' ns)'],
    ['duration', fmtDur(d.dur_ns) + ' (' + fmtInt(d.dur_ns) + ' ns)'],
    ['track', trackName(d.row)],
    ['row · depth', d.row + ' · ' + d.depth],
    ['category', show(d.category)],
    ['id', String(d.id)],
  ]));
  if (d.launch) {
    parts.push(el('h4', {}, 'Launched by'),
      el('p', {class: 'launch'}, d.launch.name + ' at ' + fmtDur(d.launch.start_ns) + ' ',
        jumpButton(d.launch.id, 'jump to launch', onJump)));
  }
  if (d.kernels && d.kernels.length) {
    const total = d.kernels_total || d.kernels.length;
    parts.push(el('h4', {}, 'Launched ' + fmtInt(total) + (total === 1 ? ' kernel' : ' kernels') +
      (total > Math.min(50, d.kernels.length) ? ' (the first ' + Math.min(50, d.kernels.length) + ' listed)' : '')),
      el('ul', {class: 'kernels'}, d.kernels.slice(0, 50).map((k) => el('li', {},
        (k.name || '') + ' at ' + fmtDur(k.start_ns) + (k.dur_ns !== undefined ? ', ' + fmtDur(k.dur_ns) : '') + ' ',
        jumpButton(k.id, 'jump to kernel', onJump)))));
  }
  const args = Object.entries(d.args || {});
  if (args.length) parts.push(el('h4', {}, 'Arguments'), kvTable(args.map(([k, v]) => [k, show(v)])));
  if (d.hlo && Object.keys(d.hlo).length) {
    parts.push(el('h4', {}, 'HLO'), kvTable(Object.entries(d.hlo).map(([k, v]) => [k, show(v)])));
  }
  if (d.stack && d.stack.length) {
    parts.push(el('h4', {}, 'Python stack'), el('ol', {class: 'stack'}, d.stack.map((f) => el('li', {},
      f.link && /^vscode:\/\/file\//.test(f.link)
        ? el('a', {href: f.link}, f.frame || '', ' ', el('span', {class: 'file'}, (f.file || '') + ':' + f.line))
        : (f.frame || '') + ' ' + (f.file || '') + (f.line ? ':' + f.line : '')))));
  }
  pane.replaceChildren(...parts);
}

// Merged narrow events under the cursor: what the shading stands for. `exact`
// (the /bucket JSON) when it has come, else the busy share's range the tile gave.
export function renderBucket(pane, b, trackName, exact) {
  const busy = exact
    ? fmtDur(exact.busy_ns) + ' (' + fmtInt(exact.busy_ns) + ' ns, ' +
      (100 * exact.busy_ns / exact.width_ns).toFixed(1) + ' % of the bucket)'
    : fmtBusyLevel(b.busyLevel) + ' of the bucket (exact value loading)';
  pane.replaceChildren(el('h3', {}, fmtInt(exact ? exact.count : b.count) + ' merged events'), kvTable([
    ['track', trackName(b.row)],
    ['from', fmtDur(b.start)],
    ['bucket', fmtDur(b.dur)],
    ['busy', busy],
  ]), el('p', {class: 'note'}, 'Events narrower than a pixel are merged; zoom in (W) to draw them.'));
}

// Several events: count, total, min and max per name, and the selection's span.
export function renderSummary(pane, events, note) {
  const byName = new Map();
  let lo = Infinity, hi = -Infinity;
  for (const e of events) {
    let s = byName.get(e.name);
    if (!s) byName.set(e.name, s = {count: 0, total: 0, min: Infinity, max: -Infinity});
    s.count++; s.total += e.dur; s.min = Math.min(s.min, e.dur); s.max = Math.max(s.max, e.dur);
    lo = Math.min(lo, e.start); hi = Math.max(hi, e.start + e.dur);
  }
  const rows = [...byName].sort((a, b) => b[1].total - a[1].total);
  const total = rows.reduce((a, r) => a + r[1].total, 0);
  pane.replaceChildren(
    el('h3', {}, fmtInt(events.length) + ' events selected'),
    el('p', {}, 'span ' + fmtDur(hi - lo) + ', total ' + fmtDur(total) + (note ? ' — ' + note : '')),
    el('table', {class: 'summary'},
      el('tr', {}, ['name', 'count', 'total', 'min', 'max'].map((h) => el('th', {}, h))),
      rows.slice(0, 500).map(([name, s]) => el('tr', {}, el('td', {class: 'name'}, name), el('td', {}, fmtInt(s.count)),
        el('td', {}, fmtDur(s.total)), el('td', {}, fmtDur(s.min)), el('td', {}, fmtDur(s.max))))));
}
