// Level-of-detail arithmetic and the browser's tile cache: tiles keyed by
// (row, level, tile) in an LRU Map bounded by the events and buckets they
// hold, the overview's tiles pinned (so a coarse drawing always exists), and
// the loader that fills missing tiles: one /tile request each when a few are
// missing (panning), one /viewport request when many are (a jump, a zoom).
import {getTiles} from './api.js';

export const TILE_BUCKETS_LOG2 = 8;
const MAX_LEVEL = 62;

// The server's level for a window of span_ns drawn width_px wide: the
// smallest L with 2^L * width >= span (buckets of one to two pixels), 0 when
// the window is no wider than the width.
export function viewLevel(spanNs, widthPx) {
  let level = 0;
  while (level < MAX_LEVEL && 2 ** level * widthPx < spanNs) level++;
  return level;
}

// The absolute tiles of `level` covering the relative window [t0, t1).
export function tileRange(origin, level, t0, t1) {
  const shift = BigInt(level + TILE_BUCKETS_LOG2);
  return {first: (origin + BigInt(t0)) >> shift, last: (origin + BigInt(t1 - 1)) >> shift};
}

// Relative start of absolute tile k of `level`.
export function tileStartRel(origin, level, k) {
  return Number((k << BigInt(level + TILE_BUCKETS_LOG2)) - origin);
}

export const tileKey = (row, level, k) => row + ':' + level + ':' + k;

export class TileCache {
  constructor(maxCost) {
    this.maxCost = maxCost;
    this.cost = 0;
    this.lru = new Map();     // key -> tile | null (known empty)
    this.pinned = new Map();  // the overview: never evicted
  }
  has(key) { return this.pinned.has(key) || this.lru.has(key); }
  // The tile (null when known empty, undefined when not loaded); refreshes its LRU place.
  get(key) {
    if (this.pinned.has(key)) return this.pinned.get(key);
    const t = this.lru.get(key);
    if (t !== undefined) { this.lru.delete(key); this.lru.set(key, t); }
    return t;
  }
  set(key, tile, pin) {
    if (pin) { this.pinned.set(key, tile); return; }
    if (this.lru.has(key)) return;
    this.lru.set(key, tile);
    this.cost += 1 + (tile ? tile.n + tile.nb : 0);
    for (const [k, t] of this.lru) {
      if (this.cost <= this.maxCost) break;
      this.lru.delete(k);
      this.cost -= 1 + (t ? t.n + t.nb : 0);
    }
  }
  clear() { this.lru.clear(); this.pinned.clear(); this.cost = 0; }
  bytes() {
    let b = 0;
    for (const t of this.lru.values()) b += tileBytes(t);
    for (const t of this.pinned.values()) b += tileBytes(t);
    return b;
  }
  get size() { return this.lru.size + this.pinned.size; }
}

// Bytes of a decoded tile's columns (the names are shared strings of the response).
export function tileBytes(t) {
  return t ? t.n * (8 + 8 + 4 + 8) + t.nb * (2 + 4 + 1) + 120 : 40;
}

const FEW_TILES = 24;       // at most this many missing: one /tile request each
const TILE_PARALLEL = 6;

export class TileLoader {
  // onLoaded(): called when tiles arrived; onError(message).
  // contentKey: the trace's content hash (meta.content_key), added to tile
  // URLs so the browser's HTTP cache never serves another trace's tiles.
  constructor(run, origin, rowCount, contentKey, cache, onLoaded, onError) {
    Object.assign(this, {run, origin, rowCount, contentKey, cache, onLoaded, onError});
    this.inflight = new Set();
    this.viewportBusy = false;
    this.queue = [];
    this.active = 0;
    this.requests = 0;
  }
  get busy() { return this.viewportBusy || this.active > 0 || this.queue.length > 0; }

  // After a failed request, none for a while (then the next frame asks
  // again); a run still importing (503) is not an error, only a wait.
  failed(e) {
    const wait = e.status === 503 ? 400 : 1000;
    this.retryAt = performance.now() + wait;
    setTimeout(() => this.onLoaded(), wait);
    if (e.status !== 503) this.onError(e.message);
  }

  // Stores a decoded response: every (row, tile) it covers, empty ones as null.
  store(resp, rows, pin) {
    const got = new Map();
    for (const t of resp.tiles) got.set(tileKey(t.row, resp.level, t.tile), t);
    for (const r of rows) {
      for (let k = resp.firstTile; k <= resp.lastTile; k++) {
        const key = tileKey(r, resp.level, k);
        this.cache.set(key, got.get(key) || null, pin);
      }
    }
  }

  // Loads the view's whole window for all rows and pins it (the overview).
  async loadOverview(t0, t1, width) {
    this.requests++;
    const resp = await getTiles('runs/' + this.run + '/viewport', {t0, t1, width, rows: 'all'});
    this.store(resp, [...Array(this.rowCount).keys()], true);
    return resp;
  }

  // Fills what the view (level, rows, [t0, t1) at width px) lacks.
  request(view, rows) {
    const {level, t0, t1, width} = view;
    if (this.retryAt && performance.now() < this.retryAt) return;
    const {first, last} = tileRange(this.origin, level, t0, t1);
    const missing = [];
    const missingRows = new Set();
    for (const r of rows) {
      for (let k = first; k <= last; k++) {
        const key = tileKey(r, level, k);
        if (!this.cache.has(key) && !this.inflight.has(key)) { missing.push([r, k, key]); missingRows.add(r); }
      }
    }
    if (!missing.length) return;
    if (missing.length <= FEW_TILES) {
      for (const m of missing) { this.inflight.add(m[2]); this.queue.push([m[0], level, m[1], m[2]]); }
      this.pump();
      return;
    }
    if (this.viewportBusy) return;  // asked again after the running one answers
    this.viewportBusy = true;
    const rowList = [...missingRows];
    let rowsParam = rowList.length === this.rowCount ? 'all' : rowList.join(',');
    if (rowsParam.length > 6000) rowsParam = 'all';
    const asked = rowsParam === 'all' ? [...Array(this.rowCount).keys()] : rowList;
    this.requests++;
    getTiles('runs/' + this.run + '/viewport', {t0, t1, width, rows: rowsParam})
      .then((resp) => { this.store(resp, asked, false); })
      .catch((e) => this.failed(e))
      .finally(() => { this.viewportBusy = false; this.onLoaded(); });
  }

  pump() {
    while (this.active < TILE_PARALLEL && this.queue.length) {
      const [row, level, k, key] = this.queue.shift();
      this.active++;
      this.requests++;
      getTiles('runs/' + this.run + '/tile', {row, level, tile: k.toString(), v: this.contentKey || undefined})
        .then((resp) => { this.cache.set(key, resp.tiles[0] || null); })
        .catch((e) => this.failed(e))
        .finally(() => { this.inflight.delete(key); this.active--; this.pump(); this.onLoaded(); });
    }
  }
}
