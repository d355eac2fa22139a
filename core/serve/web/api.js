// The viewer's side of the HTTP API v1 (docs/serve.md): JSON and binary
// fetches carrying the access token, and the decoder of the binary
// viewport/tile format. Times are int64 ns relative to the run's origin;
// tile numbers are absolute (BigInt here), as the server sends them.

const TOKEN = new URLSearchParams(location.search).get('token');

// 'none' (a loopback server without a token), 'share' (a share link's
// CLAIMS.SIGNATURE) or 'admin' (the server's token).
export function tokenKind() {
  return !TOKEN ? 'none' : TOKEN.includes('.') ? 'share' : 'admin';
}

function headers() {
  return TOKEN ? {Authorization: 'Bearer ' + TOKEN} : {};
}

// An API error; `status` is the HTTP status (503: the run is still importing).
export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status || 0;
  }
}

async function get(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null) q.set(k, String(v));
  const url = '/api/v1/' + path + (q.toString() ? '?' + q : '');
  const r = await fetch(url, {headers: headers()});
  if (!r.ok) {
    let msg = r.status + ' ' + r.statusText;
    try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
    throw new ApiError(path + ': ' + msg, r.status);
  }
  return r;
}

export async function getJson(path, params) {
  return (await get(path, params)).json();
}

export async function getTiles(path, params) {
  return decodeTiles(await (await get(path, params)).arrayBuffer());
}

// Reads a little-endian i64 that fits a double exactly (relative times, durations).
function i64(dv, at) {
  return dv.getInt32(at + 4, true) * 4294967296 + dv.getUint32(at, true);
}

// A tile's buckets (THVP version 3): a 256-bit map of the non-empty ones, then
// their counts as LEB128 varints, then a busy level byte each (busyRange).
// Returns the end.
function decodeBuckets(bytes, at, nb, size, bucket, count, busyLevel) {
  if (nb === 0) {
    if (size !== 0) throw new ApiError('THVP tile without buckets has a bucket section');
    return at;
  }
  const end = at + size;
  let k = 0;
  for (let b = 0; b < 256; b++) if (bytes[at + (b >> 3)] >> (b & 7) & 1) bucket[k++] = b;
  if (k !== nb) throw new ApiError('THVP bucket map holds ' + k + ' buckets, not ' + nb);
  at += 32;
  const varint = () => {
    let v = 0, scale = 1, byte;
    do {
      if (at >= end) throw new ApiError('THVP bucket varint runs past its section');
      byte = bytes[at++];
      v += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return v;
  };
  for (let i = 0; i < nb; i++) count[i] = varint();
  if (end - at !== nb) throw new ApiError('THVP bucket section is ' + size + ' bytes, not ' + (size - (end - at) + nb));
  busyLevel.set(bytes.subarray(at, end));
  return end;
}

// The share of its bucket a busy level q stands for, as [low, high): 0 for
// q = 0 (no busy time), [(q - 1) / 254, q / 254) for 1..254, [1, Infinity)
// for 255 (the whole bucket, or more where events overlap). The exact busy
// time is /bucket's answer.
export function busyRange(q) {
  if (q === 0) return [0, 0];
  if (q === 255) return [1, Infinity];
  return [(q - 1) / 254, q / 254];
}

// The share to shade a bucket of level q with (the middle of its range, 1 when full).
export function busyShare(q) {
  return q === 255 ? 1 : q === 0 ? 0 : (q - 0.5) / 254;
}

// Decodes "THVP" version 3: {level, firstTile, lastTile (BigInt), eventsInView,
// eventsDrawn, tiles: [{row, tile (BigInt), n, start, dur (Float64Array),
// id (Uint32Array), names (string per event), nb, bucket (Uint16Array),
// count (Uint32Array), busyLevel (Uint8Array)}]}.
export function decodeTiles(buf) {
  const dv = new DataView(buf);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (buf.byteLength < 56 || magic !== 'THVP') throw new ApiError('not a THVP response');
  if (dv.getUint32(4, true) !== 3) throw new ApiError('THVP version ' + dv.getUint32(4, true) + ' is not 3');
  const bytes = new Uint8Array(buf);
  const out = {
    level: dv.getInt32(8, true),
    firstTile: dv.getBigInt64(16, true),
    lastTile: dv.getBigInt64(24, true),
    eventsInView: Number(dv.getBigUint64(32, true)),
    eventsDrawn: Number(dv.getBigUint64(40, true)),
    tiles: [],
  };
  const tileCount = dv.getUint32(12, true);
  const nameCount = dv.getUint32(48, true);
  const utf8 = new TextDecoder();
  let at = 56;
  const dict = new Array(nameCount);
  for (let i = 0; i < nameCount; i++) {
    const len = dv.getUint32(at, true);
    dict[i] = utf8.decode(new Uint8Array(buf, at + 4, len));
    at += 4 + len;
  }
  for (let t = 0; t < tileCount; t++) {
    const row = dv.getUint32(at, true), n = dv.getUint32(at + 4, true), nb = dv.getUint32(at + 8, true);
    const bucketBytes = dv.getUint32(at + 12, true);
    const tile = dv.getBigInt64(at + 16, true);
    at += 24;
    const start = new Float64Array(n), dur = new Float64Array(n), id = new Uint32Array(n), names = new Array(n);
    for (let i = 0; i < n; i++, at += 8) start[i] = i64(dv, at);
    for (let i = 0; i < n; i++, at += 8) dur[i] = i64(dv, at);
    for (let i = 0; i < n; i++, at += 4) id[i] = dv.getUint32(at, true);
    for (let i = 0; i < n; i++, at += 4) names[i] = dict[dv.getUint32(at, true)];
    const bucket = new Uint16Array(nb), count = new Uint32Array(nb), busyLevel = new Uint8Array(nb);
    at = decodeBuckets(bytes, at, nb, bucketBytes, bucket, count, busyLevel);
    out.tiles.push({row, tile, n, start, dur, id, names, nb, bucket, count, busyLevel});
  }
  if (at !== buf.byteLength) throw new ApiError('THVP response has ' + (buf.byteLength - at) + ' trailing bytes');
  return out;
}
