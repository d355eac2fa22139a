// The vertical layout: sections per group path (rank -> device -> stream,
// rank -> process -> thread), collapsible, and one lane per row (track,
// nesting depth) in the order the server lists tracks.

export const LANE_H = 16;
export const SECTION_H = 20;
const TRACK_GAP = 3;

export class Layout {
  constructor(meta) {
    this.collapsed = new Set();  // section keys
    this.tracks = new Map(meta.tracks.map((t) => [t.track, t]));
    this.rowsByTrack = new Map();
    this.rowInfo = new Map();
    for (const r of meta.rows) {
      if (!this.rowsByTrack.has(r.track)) this.rowsByTrack.set(r.track, []);
      this.rowsByTrack.get(r.track).push(r);
      this.rowInfo.set(r.row, r);
    }
    for (const rows of this.rowsByTrack.values()) rows.sort((a, b) => a.depth - b.depth);
    this.order = meta.tracks.filter((t) => this.rowsByTrack.has(t.track));
    this.build();
  }

  static sectionKey(group, n) { return group.slice(0, n).join('\u0001'); }

  // Recomputes items [{kind: 'section'|'lane', y, h, ...}] and the total height.
  build() {
    const items = [];
    let y = 0;
    let prev = [];
    for (const t of this.order) {
      const g = t.group || [];
      let same = 0;
      while (same < g.length && same < prev.length && g[same] === prev[same]) same++;
      let hidden = false;
      for (let n = 1; n <= g.length && !hidden; n++) {
        const key = Layout.sectionKey(g, n);
        if (n > same) {
          items.push({kind: 'section', key, label: g[n - 1], indent: n - 1, y, h: SECTION_H,
            collapsed: this.collapsed.has(key)});
          y += SECTION_H;
        }
        hidden = this.collapsed.has(key);
      }
      prev = g;
      if (hidden) continue;
      const rows = this.rowsByTrack.get(t.track);
      rows.forEach((r, i) => {
        items.push({kind: 'lane', row: r.row, track: t.track, depth: r.depth, indent: g.length,
          label: i === 0 ? t.name : '', trackKind: t.kind, y, h: LANE_H});
        y += LANE_H;
      });
      y += TRACK_GAP;
    }
    this.items = items;
    this.height = y;
    this.laneOfRow = new Map();
    for (const it of items) if (it.kind === 'lane') this.laneOfRow.set(it.row, it);
  }

  toggle(key) {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
    this.build();
  }

  // Expands every section above `row` (so a jump target is visible).
  reveal(row) {
    const info = this.rowInfo.get(row);
    if (!info) return;
    const g = (this.tracks.get(info.track) || {}).group || [];
    let changed = false;
    for (let n = 1; n <= g.length; n++) changed = this.collapsed.delete(Layout.sectionKey(g, n)) || changed;
    if (changed) this.build();
  }

  // Rows whose lane overlaps [y0, y1) (lane coordinates), in display order.
  rowsBetween(y0, y1) {
    const out = [];
    for (const it of this.items) if (it.kind === 'lane' && it.y + it.h > y0 && it.y < y1) out.push(it.row);
    return out;
  }

  itemAt(y) {
    for (const it of this.items) if (y >= it.y && y < it.y + it.h) return it;
    return null;
  }

  trackName(row) {
    const info = this.rowInfo.get(row);
    const t = info && this.tracks.get(info.track);
    return t ? [...(t.group || []), t.name].join(' / ') : 'row ' + row;
  }
}
