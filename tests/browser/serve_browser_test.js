#!/usr/bin/env node
// Opens `tracehound serve`'s viewer in headless Chromium and uses it as a user
// would: the overview draws with a status line whose counts match the
// server's /viewport totals; W/S/A/D and each tool (select, pan, zoom,
// timing) change the view; clicking a kernel shows its launching call and the
// jumps go both ways; a search finds an event outside the visible range and
// frames it; a copied URL reopens the same view in a new page; no console
// error and no request to any other origin. Screenshots go to --artefacts.
// With --bench, prints the JS heap after panning and zooming and the frame
// time on cached tiles (for benchmarks/RESULTS.md).
//
// Exit 77 (ctest SKIP_RETURN_CODE) when chromium or the input is absent, with
// the reason on stdout.
//
// Usage: serve_browser_test.js --tracehound BIN --work DIR --artefacts DIR --case NAME
//          (--generate | --scan | --input TRACE | --url URL_OF_A_RUNNING_SERVE) [--expect-launch] [--bench]
//          [--token T]   (serve --token T: the page, its assets and the API all need it)
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');
const {launch, openPage} = require('./devtools_pipe.js');
const {parseArgs, startServe, httpGet: get, sleep, prepareRun} = require('./serve_harness.js');

const SKIP = 77;
const W = 1400, H = 900;
const args = parseArgs(process.argv);
let failures = 0;
function fail(msg) { console.log('FAIL: ' + msg); failures++; }
function check(ok, msg) { if (!ok) fail(msg); return ok; }

function prepareInput(work) {
  if (args.scan) {
    // Two generated runs (2 and 3 ranks: two job families), scanned into a fleet
    // database; served with --db.
    const fleet = path.join(work, 'fleet'), db = path.join(work, 'fleet.db');
    for (const [name, seed, ranks] of [['week1', '1', '2'], ['week2', '2', '3']]) {
      const g = childProcess.spawnSync(args.tracehound, ['generate', '--out', path.join(fleet, name), '--ranks', ranks, '--steps', '4', '--seed', seed], {encoding: 'utf8'});
      if (g.status !== 0) throw new Error('tracehound generate failed: ' + g.stdout + g.stderr);
    }
    const s = childProcess.spawnSync(args.tracehound, ['scan', fleet, '--db', 'sqlite:' + db], {encoding: 'utf8'});
    if (s.status !== 0 && s.status !== 1) throw new Error('tracehound scan failed (' + s.status + '): ' + s.stdout + s.stderr);
    return ['--db', 'sqlite:' + db];
  }
  if (args.generate) {
    const out = path.join(work, 'traces');
    const g = childProcess.spawnSync(args.tracehound, ['generate', '--out', out, '--ranks', '4', '--steps', '4'], {encoding: 'utf8'});
    if (g.status !== 0) throw new Error('tracehound generate failed: ' + g.stdout + g.stderr);
    // One run per rank, then the directory: all ranks as one run (the last).
    return [...fs.readdirSync(out).sort().map((f) => path.join(out, f)), out];
  }
  if (!args.input || !fs.existsSync(args.input)) {
    console.log('SKIP: input trace absent: ' + args.input + ' (../shared/data is not on this machine)');
    process.exit(SKIP);
  }
  return [args.input];
}

// Starts `tracehound serve` on INPUT... with the test's index cache.
function startServer(inputs, work) {
  const token = args.token ? ['--token', String(args.token)] : [];
  // Benchmarks run no findings pipeline: it would share the cores with the timed frames.
  const findings = args.bench ? ['--no-findings'] : [];
  return startServe(args.tracehound, ['--cache-dir', path.join(work, 'index-cache'), ...token, ...findings, ...inputs]);
}

function httpGet(url, withoutToken) {
  return get(url, args.token && !withoutToken ? {Authorization: 'Bearer ' + args.token} : {});
}

async function api(origin, p) {
  const r = await httpGet(origin + '/api/v1/' + p);
  if (r.status !== 200) throw new Error('GET ' + p + ': ' + r.status + ' ' + r.body.toString().slice(0, 200));
  return r.body;
}
const apiJson = async (origin, p) => JSON.parse((await api(origin, p)).toString('utf8'));

// The first drawn events of the THVP response (enough to pick test targets).
function drawnEvents(buf) {
  const names = [], events = [];
  let at = 56;
  const nameCount = buf.readUInt32LE(48), tileCount = buf.readUInt32LE(12);
  for (let i = 0; i < nameCount; i++) { const n = buf.readUInt32LE(at); names.push(buf.toString('utf8', at + 4, at + 4 + n)); at += 4 + n; }
  for (let t = 0; t < tileCount; t++) {
    const row = buf.readUInt32LE(at), n = buf.readUInt32LE(at + 4), bucketBytes = buf.readUInt32LE(at + 12);
    at += 24;
    for (let i = 0; i < n; i++) {
      events.push({row, start: Number(buf.readBigInt64LE(at + 8 * i)), dur: Number(buf.readBigInt64LE(at + 8 * (n + i))),
        id: buf.readUInt32LE(at + 16 * n + 4 * i), name: names[buf.readUInt32LE(at + 20 * n + 4 * i)]});
    }
    at += 24 * n + bucketBytes;
  }
  return {eventsInView: Number(buf.readBigUInt64LE(32)), eventsDrawn: Number(buf.readBigUInt64LE(40)), events};
}

async function main() {
  const {chromium, work, artefacts} = prepareRun(args);
  let server;
  if (args.url) {  // a server already running (benchmarks)
    server = {url: args.url, origin: new URL(args.url).origin, proc: {kill: () => {}}};
  } else {
    const inputs = prepareInput(work);
    server = await startServer(inputs, work);
    console.log('serving ' + inputs.length + ' file(s) at ' + server.url);
  }
  const {proc, cdp, stderr} = launch(chromium, path.join(work, 'profile'), W, H);
  const watchdog = setTimeout(() => {
    fail('timed out; chromium said:\n' + stderr().slice(-2000));
    proc.kill('SIGKILL'); server.proc.kill('SIGKILL');
    process.exit(1);
  }, args.bench ? 600000 : 110000);
  const requests = [], errors = [];
  let importing = 0;
  cdp.on((m) => {
    if (m.method === 'Network.requestWillBeSent') requests.push(m.params.request.url);
    if (m.method === 'Runtime.exceptionThrown') errors.push('exception: ' + JSON.stringify(m.params.exceptionDetails).slice(0, 800));
    if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'assert')) {
      errors.push('console.' + m.params.type + ': ' + m.params.args.map((a) => a.value || a.description).join(' '));
    }
    if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') {
      // 503 is the API's "still importing": the viewer polls through it (not an error).
      if (/status of 503/.test(m.params.entry.text)) { importing++; return; }
      // Benchmarks start the server with --no-findings: /findings is 404 there.
      if (args.bench && /status of 404/.test(m.params.entry.text) && /\/findings$/.test(m.params.entry.url || '')) return;
      errors.push('log (' + m.params.entry.source + '): ' + m.params.entry.text + ' ' + (m.params.entry.url || ''));
    }
  });
  try {
    await exercise(cdp, server, artefacts);
  } catch (e) {
    fail(e && e.stack || e);
  } finally {
    clearTimeout(watchdog);
    await cdp.send('Browser.close').catch(() => {});
    proc.kill();
    server.proc.kill();
  }
  const outside = requests.filter((u) => !u.startsWith(server.origin + '/') && u !== 'about:blank' && !u.startsWith('data:'));
  console.log('requests: ' + requests.length + ', to another origin: ' + outside.length);
  check(!outside.length, 'requests to another origin: ' + outside.slice(0, 5).join(', '));
  if (importing) console.log('503 answers while the run imported: ' + importing);
  check(!errors.length, 'console errors:\n  ' + errors.join('\n  '));
  if (failures) process.exitCode = 1;
  else console.log('PASS');
}

// One page: navigation, waiting for the viewer to settle, input.
async function page(cdp, url) {
  const p = await openPage(cdp, W, H);
  p.state = () => p.evaluate('window.__viewer ? window.__viewer.state() : null');
  p.settle = async (what, maxMs) => {
    let st = null;
    for (let i = 0; i < (maxMs || 15000) / 50; i++) {
      st = await p.state();
      if (st && st.idle) { await sleep(60); st = await p.state(); if (st.idle) return st; }
      await sleep(50);
    }
    throw new Error('the viewer did not settle (' + what + '): ' + JSON.stringify(st));
  };
  p.key = async (k) => {
    const code = /^\d$/.test(k) ? 'Digit' + k : 'Key' + k.toUpperCase();
    await p.s('Input.dispatchKeyEvent', {type: 'keyDown', key: k, code, text: k, windowsVirtualKeyCode: k.toUpperCase().charCodeAt(0)});
    await p.s('Input.dispatchKeyEvent', {type: 'keyUp', key: k, code, windowsVirtualKeyCode: k.toUpperCase().charCodeAt(0)});
  };
  p.mouse = async (type, x, y, modifiers) => p.s('Input.dispatchMouseEvent', {type, x, y, button: 'left', clickCount: 1, modifiers: modifiers || 0});
  p.click = async (x, y, modifiers) => { await p.mouse('mouseMoved', x, y); await p.mouse('mousePressed', x, y, modifiers); await p.mouse('mouseReleased', x, y, modifiers); };
  p.dragX = async (x0, x1, y) => {
    await p.mouse('mouseMoved', x0, y); await p.mouse('mousePressed', x0, y);
    for (let i = 1; i <= 5; i++) await p.mouse('mouseMoved', x0 + (x1 - x0) * i / 5, y);
    await p.mouse('mouseReleased', x1, y);
  };
  p.shot = async (file) => {
    const shot = await p.s('Page.captureScreenshot', {format: 'png'});
    fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
    console.log('screenshot: ' + file);
  };
  p.goto = async (u) => p.s('Page.navigate', {url: u});
  await p.goto(url);
  return p;
}

const span = (st) => st.t1 - st.t0;

async function exercise(cdp, server, artefacts) {
  const shot = (p, name) => p.shot(path.join(artefacts, 'serve-' + args.case + '-' + name + '.png'));
  if (args.scan) return databaseRuns(cdp, server, shot);
  const p = await page(cdp, server.url);
  let st = await p.settle('overview', args.bench ? 400000 : 60000);  // the trace's import
  if (args.token) {
    check(server.url.includes('?token=' + args.token), 'serve printed no token in its URL: ' + server.url);
    const bare = await httpGet(server.origin + '/api/v1/runs', true);
    console.log('token: the page, its assets (cookie) and the API (header) answered; without it: ' + bare.status);
    check(bare.status === 401, 'without the token the API answers ' + bare.status);
  }
  const meta = await p.evaluate('window.__viewer.meta()');
  console.log('run 0: ' + meta.events + ' events, ' + meta.tracks.length + ' tracks, ' + meta.rows.length + ' rows, ' +
    meta.steps.length + ' steps; end ' + meta.end_ns + ' ns');

  // The overview: status line with counts > 0, equal to the server's totals.
  const status = await p.evaluate('document.getElementById("status").textContent');
  console.log('status: ' + status);
  const m = status.match(/^([\d,]+) events in view, ([\d,]+) drawn/);
  if (check(m, 'no status line "N events in view, M drawn": ' + status)) {
    const inView = Number(m[1].replace(/,/g, '')), drawn = Number(m[2].replace(/,/g, ''));
    check(inView > 0, 'the overview shows no events: ' + status);
    const q = await p.evaluate('window.__viewer.query()');
    const rows = await p.evaluate('window.__viewer.rowsOnScreen()');
    const vp = drawnEvents(await api(server.origin, 'runs/0/viewport?t0=' + q.t0 + '&t1=' + q.t1 + '&width=' + q.width +
      '&rows=' + (rows.length === meta.rows.length ? 'all' : rows.join(','))));
    check(vp.eventsInView === inView && vp.eventsDrawn === drawn, 'status line ' + inView + '/' + drawn +
      ' differs from the server\'s viewport totals ' + vp.eventsInView + '/' + vp.eventsDrawn);
  }
  const colors = await p.evaluate(`(() => { const c = document.getElementById('timeline');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const s = new Set();
    for (let k = 0; k < d.length && s.size < 12; k += 4 * 97) s.add(d[k] << 16 | d[k + 1] << 8 | d[k + 2]); return s.size; })()`);
  check(colors >= 6, 'the timeline canvas looks blank (' + colors + ' colours)');
  await shot(p, 'overview');

  // Keys: W/S zoom, A/D pan.
  const q0 = await p.evaluate('window.__viewer.query()');
  await p.mouse('mouseMoved', 262 + Math.round(0.3 * q0.width), 300);  // W zooms at the pointer
  const v0 = await p.state();
  for (let i = 0; i < 8; i++) await p.key('w');
  // Never a blank frame: drawn at once (finer tiles still loading) it shows
  // as much as the settled frame does, from coarser cached tiles.
  const plotInk = `(() => { const c = document.getElementById('timeline'), x0 = 262, y0 = 52;
    const d = c.getContext('2d').getImageData(x0, y0, c.width - x0, c.height - y0).data; let n = 0;
    for (let k = 0; k < d.length; k += 4 * 5) if (d[k] < 200 || d[k + 1] < 200 || d[k + 2] < 200) n++; return n; })()`;
  const early = await p.evaluate(`(() => { window.__viewer.drawMs(1); return {ink: ${plotInk}, state: window.__viewer.state()}; })()`);
  const v1 = await p.settle('W');
  const settledInk = await p.evaluate(plotInk);
  console.log('plot ink right after W: ' + early.ink + ' (' + (early.state.idle ? 'tiles loaded' : 'tiles loading') + '), settled: ' + settledInk);
  check(early.ink > 0.5 * settledInk, 'a blank frame while tiles load: ' + early.ink + ' vs ' + settledInk + ' inked pixels');
  check(span(v1) < 0.2 * span(v0), 'W does not zoom in: ' + span(v0) + ' -> ' + span(v1));
  check(v1.level < v0.level, 'zooming in does not change the level: ' + v0.level + ' -> ' + v1.level);
  await p.key('d');
  const v2 = await p.state();
  check(v2.t0 > v1.t0, 'D does not pan right');
  await p.key('a'); await p.key('a');
  const v3 = await p.state();
  check(v3.t0 < v2.t0, 'A does not pan left');
  await p.key('s');
  const v4 = await p.settle('S');
  check(span(v4) > span(v3), 'S does not zoom out');
  await shot(p, 'zoomed');

  // Tools: 2 pan (drag), 3 zoom (drag a range), 4 timing (drag measures), 1 select.
  const laneY = 200;
  await p.key('2');
  check((await p.state()).tool === 'pan', 'key 2 does not pick the pan tool');
  const b = await p.state();
  await p.dragX(900, 700, laneY);
  const a = await p.state();
  check(a.t0 > b.t0 && Math.abs(span(a) - span(b)) < 1e-6 * span(b), 'the pan tool does not pan: ' + JSON.stringify([b.t0, a.t0]));
  await p.key('3');
  const bz = await p.state();
  await p.dragX(600, 800, laneY);
  const az = await p.state();
  check((await p.state()).tool === 'zoom', 'key 3 does not pick the zoom tool');
  const expected = span(bz) * 200 / (await p.evaluate('window.__viewer.query().width'));
  check(Math.abs(span(az) - expected) < 0.05 * expected, 'the zoom tool does not zoom to the dragged range: ' + span(az) + ' vs ' + expected);
  await p.key('4');
  await p.dragX(500, 700, laneY);
  const at = await p.settle('timing');
  check(at.tool === 'timing' && at.marker && at.marker.t1 > at.marker.t0, 'the timing tool marks nothing');
  const markerText = await p.evaluate('document.getElementById("marker").textContent');
  check(/^marked \d/.test(markerText), 'the timing tool shows no length: ' + markerText);
  check(Math.abs(at.t0 - az.t0) < 1e-9 * span(az) + 1, 'the timing tool moved the view');
  await shot(p, 'timing');
  await p.key('1');
  check((await p.state()).tool === 'select', 'key 1 does not pick the select tool');

  await kernelAndLaunch(p, server, meta, shot);
  await flowsToggle(p, server, shot);
  await counterLanes(p, server, shot);
  await mergedBucket(p, server, shot);
  await findingsLane(p, server, shot);
  await searchOutside(p, server, meta, shot);
  await copiedUrl(cdp, p, server);
  await otherRun(p, server);
  if (args.generate) await ranksInOneRun(p, server, shot);
  if (args.generate) await runList(cdp, server, shot);
  if (args.bench) await bench(p, meta);
}

// Clicking merged events at the whole-trace view: the details pane shows the
// tile's busy range at once, then the exact count and busy time of /bucket,
// and the tile's busy level is the one that exact value gives.
async function mergedBucket(p, server, shot) {
  await p.evaluate('window.__viewer.frameWhole()');
  await p.settle('whole trace');
  const found = await p.evaluate('window.__viewer.bucketOnScreen()');
  check(found, 'no merged bucket on screen at the whole-trace view');
  if (!found) return;
  const b = found.bucket;
  const exact = await apiJson(server.origin, 'runs/0/bucket?row=' + b.row + '&level=' + b.level + '&tile=' + b.tile +
    '&bucket=' + b.index);
  check(exact.count === b.count, 'the tile counts ' + b.count + ' events in the bucket, /bucket ' + exact.count);
  const want = exact.busy_ns <= 0 ? 0 : exact.busy_ns >= exact.width_ns ? 255 : 1 + Math.floor(254 * exact.busy_ns / exact.width_ns);
  check(b.busyLevel === want, 'busy level ' + b.busyLevel + ' for ' + exact.busy_ns + ' of ' + exact.width_ns + ' ns (want ' + want + ')');
  const pt = await p.evaluate('window.__viewer.pagePoint(' + found.t + ', ' + found.row + ')');
  await p.click(pt.x, pt.y);
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await p.evaluate('document.getElementById("details").textContent');
    if (/ ns, /.test(text)) break;
    await sleep(50);
  }
  const busyNs = exact.busy_ns.toLocaleString('en-US') + ' ns';
  check(text.includes(busyNs) && text.includes(exact.count.toLocaleString('en-US') + ' merged events'),
    'the details pane does not show the exact bucket (' + busyNs + '): ' + text.slice(0, 300));
  console.log('bucket: ' + exact.count + ' merged events, busy ' + exact.busy_ns + ' of ' + exact.width_ns + ' ns (level ' + b.busyLevel + ')');
  await shot(p, 'bucket');
}

// `v` draws the flow arrows of the view (the server's bundles, counts summing
// to its total), at the kernel's zoom and at the overview; `v` again hides them.
async function flowsToggle(p, server, shot) {
  const waitDrawn = async (what) => {
    for (let i = 0; i < 100; i++) {
      const n = await p.evaluate('window.__viewer.flowsDrawn()');
      const a = await p.evaluate('window.__viewer.flows()');
      if (a && n > 0) return {n, a};
      await sleep(50);
    }
    check(!args['expect-launch'], 'no flow arrow drawn ' + what);
    return null;
  };
  await p.key('v');
  const near = await waitDrawn('near the kernel');
  if (near) {
    const q = await p.evaluate('window.__viewer.query()');
    const a = await apiJson(server.origin, 'runs/' + (await p.state()).run + '/flows?t0=' + q.t0 + '&t1=' + q.t1 + '&width=' + q.width);
    const sum = a.flows.reduce((s, f) => s + f.count, 0);
    check(sum === a.total && a.total > 0, 'flow bundles count ' + sum + ' of ' + a.total);
    check(near.a.total === a.total, 'the viewer drew flows of another window: ' + near.a.total + ' vs ' + a.total);
    await shot(p, 'flows');
  }
  await p.evaluate('window.__viewer.scrollToRow(0)');
  await p.key('s'); await p.key('s'); await p.key('s'); await p.key('s'); await p.key('s');
  await sleep(400);
  const far = await waitDrawn('zoomed out');
  if (far) {
    const sum = far.a.flows.reduce((s, f) => s + f.count, 0);
    check(sum === far.a.total, 'zoomed out, the bundles count ' + sum + ' of ' + far.a.total);
    console.log('flows: ' + far.a.total + ' in the zoomed-out view, ' + far.a.flows.length + ' bundles, ' + far.n + ' drawn');
  }
  await p.key('v');
  await sleep(100);
  check((await p.evaluate('window.__viewer.flowsDrawn()')) === 0, 'v does not hide the flows');
}

// Counter lanes: GPU utilisation (and the other series) are laid out, draw
// their buckets once scrolled to, and the tooltip's value carries its unit
// and kind; a series the trace lacks data for says why instead of drawing.
async function counterLanes(p, server, shot) {
  const st0 = await p.state();
  const list = (await apiJson(server.origin, 'runs/' + st0.run + '/counters')).counters;
  let lanes = [];
  for (let i = 0; i < 100 && lanes.length < list.length; i++) {
    lanes = await p.evaluate('window.__viewer.counterLanes()');
    await sleep(50);
  }
  if (!check(lanes.length === list.length && list.length > 0, 'counter lanes ' + lanes.length + ' of ' + list.length)) return;
  const util = lanes.find((l) => l.name === 'GPU utilisation');
  if (!check(util, 'no GPU utilisation lane among ' + lanes.map((l) => l.name).join(', '))) return;
  await p.evaluate('window.__viewer.scrollToY(' + Math.max(0, util.y - 100) + ')');
  let drawn = null;
  for (let i = 0; i < 100; i++) {
    drawn = (await p.evaluate('window.__viewer.counterLanes()')).find((l) => l.track === util.track);
    if (drawn.drawnBuckets > 0) break;
    await sleep(50);
  }
  check(drawn.drawnBuckets > 0, 'the GPU utilisation lane draws no bucket');
  const q = await p.evaluate('window.__viewer.query()');
  const v = await p.evaluate('window.__viewer.counterValueAt(' + util.track + ', ' + (q.t0 + q.t1) / 2 + ')');
  check(/\(measured, derived from the kernels\)/.test(v.text) && (/%/.test(v.text) || /no value/.test(v.text)),
    'the utilisation value does not say its unit and kind: ' + v.text);
  for (const l of lanes.filter((x) => x.unavailable)) {
    const t = await p.evaluate('window.__viewer.counterValueAt(' + l.track + ', 0)');
    check(/not available/.test(t.text), 'lane ' + l.name + ' lacks data but does not say so: ' + t.text);
  }
  console.log('counter lanes: ' + lanes.map((l) => l.name + (l.unavailable ? ' (not available)' : '')).join(', '));
  await shot(p, 'counters');
  await p.evaluate('window.__viewer.scrollToY(0)');
}

// The findings lane: once the pipeline has run, one mark per finding in view;
// clicking one shows its text in the details pane and `f` frames its window.
async function findingsLane(p, server, shot) {
  await p.evaluate('window.__viewer.scrollToY(0)');
  let fs = null;
  for (let i = 0; i < 1200; i++) {  // the pipeline runs in the background (at most 60 s)
    fs = await p.evaluate('window.__viewer.findings()');
    if (fs.state !== 'running' && fs.state !== 'loading') break;
    await sleep(50);
  }
  if (args.bench) {  // served with --no-findings: the lane says there is no pipeline
    check(fs.state === 'none' || fs.state === 'ready', 'the findings lane is ' + fs.state + ' ' + fs.message);
    return;
  }
  if (!check(fs.state === 'ready', 'the findings lane is ' + fs.state + ' ' + fs.message)) return;
  const st0 = await p.state();
  const api = await apiJson(server.origin, 'runs/' + st0.run + '/findings');
  check(api.total === fs.list.length, 'the lane holds ' + fs.list.length + ' findings, the server ' + api.total);
  console.log('findings: ' + api.total + ' (' + api.findings.map((f) => f.severity + ' ' + f.title.slice(0, 40) + ' [' + f.place + ']').join('; ') + ')');
  if (!api.total) return;
  // Show the whole run so that every finding has a mark.
  await p.evaluate('window.__viewer.frameWhole()');
  await sleep(300);
  fs = await p.evaluate('window.__viewer.findings()');
  if (!check(fs.marks.length === api.total, 'marks drawn ' + fs.marks.length + ' of ' + api.total)) return;
  const m = fs.marks[fs.marks.length - 1];
  await p.click(m.x, m.y);
  await sleep(150);
  fs = await p.evaluate('window.__viewer.findings()');
  const f = api.findings[m.index];
  check(fs.selected === m.index, 'clicking the mark of finding ' + m.index + ' selected ' + fs.selected);
  const text = await p.evaluate('document.getElementById("details").textContent');
  check(text.includes(f.title) && text.includes(f.what.slice(0, 40)), 'the details pane does not show the finding: ' + text.slice(0, 200));
  await p.key('f');
  await sleep(150);
  const st = await p.state();
  check(st.t0 <= f.start_ns && st.t1 >= f.end_ns && (st.t1 - st.t0) < 2 * Math.max(f.end_ns - f.start_ns, 200) + 1000,
    'f does not frame the finding [' + f.start_ns + ', ' + f.end_ns + ']: ' + JSON.stringify([st.t0, st.t1]));
  await shot(p, 'findings');
}

// With several inputs, the run selector opens another run (one per input).
async function otherRun(p, server) {
  const runs = (await apiJson(server.origin, 'runs')).runs;
  if (runs.length < 2) return;
  await p.s('Page.bringToFront');  // a background page draws no frame
  await p.evaluate(`(() => { const s = document.getElementById('run'); s.value = '${runs.length - 1}';
    s.dispatchEvent(new Event('change')); })()`);
  for (let i = 0; i < 40 && (await p.state()).run !== runs.length - 1; i++) await sleep(50);
  const st = await p.settle('run ' + (runs.length - 1));
  check(st.run === runs.length - 1 && st.totals.inView > 0, 'the run selector did not open run ' + (runs.length - 1));
  await sleep(300);
  const hash = await p.evaluate('location.hash');
  check(hash.includes('run=' + (runs.length - 1)), 'the URL does not name the run: ' + hash);
  console.log('run ' + st.run + ' of ' + runs.length + ': ' + st.totals.inView + ' events in view');
}

// The run list (assets/runs.html): every run, sorted by a column's header
// (the server's order, both ways), filtered by the box, the state in the
// hash; clicking a run opens the viewer on it.
async function runList(cdp, server, shot) {
  const search = new URL(server.url).search;
  const p = await page(cdp, server.origin + '/assets/runs.html' + search);
  await p.s('Page.bringToFront');
  const rows = () => p.evaluate('[...document.querySelectorAll("#run-rows tr.run")].map((r) => Number(r.dataset.run))');
  const waitRows = async (want, what) => {
    let got = [];
    for (let i = 0; i < 100; i++) {
      got = await rows();
      if (JSON.stringify(got) === JSON.stringify(want)) return got;
      await sleep(50);
    }
    check(false, 'the run list (' + what + ') shows ' + JSON.stringify(got) + ', the server ' + JSON.stringify(want));
    return got;
  };
  const order = async (q) => (await apiJson(server.origin, 'runs?' + q)).runs.map((r) => r.run);
  const all = await order('');
  check(all.length >= 2, 'the generated case serves ' + all.length + ' runs');
  await waitRows(all, 'at first');
  await p.evaluate('document.querySelector("th[data-sort=name]").click()');
  await waitRows(await order('sort=name'), 'sorted by name');
  await p.evaluate('document.querySelector("th[data-sort=name]").click()');
  const byName = await waitRows(await order('sort=-name'), 'sorted by name, descending');
  check((await p.evaluate('location.hash')) === '#sort=-name', 'the hash does not hold the sort: ' + await p.evaluate('location.hash'));
  const runs = (await apiJson(server.origin, 'runs')).runs;
  const name = runs[1].name;
  await p.evaluate(`(() => { const i = document.getElementById('filter'); i.focus(); i.value = ''; })()`);
  await p.s('Input.insertText', {text: name});
  const filtered = await waitRows(await order('sort=-name&q=' + encodeURIComponent(name)), 'filtered by ' + name);
  check(filtered.length >= 1 && filtered.length < byName.length, 'the filter "' + name + '" keeps ' + filtered.length + ' of ' + byName.length);
  const hash = await p.evaluate('location.hash');
  check(hash.includes('q=') && hash.includes('sort=-name'), 'the hash does not hold the filter: ' + hash);
  await shot(p, 'runs');
  const target = filtered[0];
  await p.evaluate('document.querySelector("#run-rows tr.run").click()');
  let st = null;
  for (let i = 0; i < 100 && !(st && st.run === target); i++) { await sleep(50); st = await p.state().catch(() => null); }
  st = await p.settle('a run opened from the list');
  check(st.run === target, 'clicking run ' + target + ' in the list opened ' + (st && st.run));
  console.log('run list: ' + all.length + ' runs, sorted by name both ways, "' + name + '" keeps ' + filtered.length + '; opened run ' + st.run);
}

// serve --db: the runs scan stored are listed before any is imported; one
// opened from the list is imported then, and its findings lane holds the
// database's findings (source "database": no pipeline ran for them).
async function databaseRuns(cdp, server, shot) {
  const listed = await apiJson(server.origin, 'runs');
  check(listed.total === 2, 'the database lists ' + listed.total + ' runs, scan stored 2');
  check(listed.runs.every((r) => r.source === 'database' && !r.ready), 'runs imported at start or not from the database: ' +
    JSON.stringify(listed.runs.map((r) => [r.source, r.ready])));
  const search = new URL(server.url).search;
  const p = await page(cdp, server.origin + '/assets/runs.html' + search);
  await p.s('Page.bringToFront');
  let rows = [];
  for (let i = 0; i < 100 && rows.length < 2; i++) {
    rows = await p.evaluate('[...document.querySelectorAll("#run-rows tr.run")].map((r) => Number(r.dataset.run))');
    await sleep(50);
  }
  check(rows.length === 2, 'the run list shows ' + rows.length + ' runs');
  const chips = await p.evaluate('[...document.querySelectorAll("#run-rows .chip")].map((c) => c.textContent)');
  check(chips.includes('week1') && chips.includes('week2'), 'no tag chips from the paths: ' + JSON.stringify(chips));
  // A job family clicked in a row keeps that family's runs (the API's exact
  // filter), held in the hash; its active chip drops it again.
  const family = await p.evaluate('document.querySelector("#run-rows .family-chip").title.replace(/^.*: /, "")');
  const inFamily = (await apiJson(server.origin, 'runs?family=' + encodeURIComponent(family))).total;
  check(family.length > 0 && inFamily === 1, 'the family "' + family + '" of one of two signatures keeps ' + inFamily);
  await p.evaluate('document.querySelector("#run-rows .family-chip").click()');
  const rowCount = () => p.evaluate('document.querySelectorAll("#run-rows tr.run").length');
  for (let i = 0; i < 100 && (await p.evaluate('location.hash')) !== '#family=' + family; i++) await sleep(50);
  check((await p.evaluate('location.hash')) === '#family=' + family, 'the hash does not hold the family: ' + await p.evaluate('location.hash'));
  const activeChip = () => p.evaluate('(document.querySelector("#chips .chip.active") || {}).textContent || ""');
  for (let i = 0; i < 100 && ((await rowCount()) !== inFamily || !(await activeChip()).startsWith('family ')); i++) await sleep(50);
  check((await activeChip()) === 'family ' + family.slice(0, 8) + ' ×', 'the active filter chip reads "' + await activeChip() + '"');
  check((await rowCount()) === inFamily, 'family ' + family + ' shows ' + await rowCount() + ' runs, the server ' + inFamily);
  await p.evaluate('document.querySelector("#chips .chip.active").click()');
  for (let i = 0; i < 100 && (await rowCount()) !== 2; i++) await sleep(50);
  check((await rowCount()) === 2 && (await p.evaluate('location.hash')) === '', 'dropping the family filter does not list both runs');
  await p.evaluate('[...document.querySelectorAll("#run-rows .chip")].find((c) => c.textContent === "week2").click()');
  for (let i = 0; i < 100 && (await p.evaluate('document.querySelectorAll("#run-rows tr.run").length')) !== 1; i++) await sleep(50);
  check((await p.evaluate('location.hash')) === '#tag=week2', 'the hash does not hold the tag: ' + await p.evaluate('location.hash'));
  await shot(p, 'db-runs');
  const target = Number(await p.evaluate('document.querySelector("#run-rows tr.run").dataset.run'));
  const summary = listed.runs.find((r) => r.run === target);
  await p.evaluate('document.querySelector("#run-rows tr.run").click()');
  let st = null;
  for (let i = 0; i < 200 && !(st && st.run === target); i++) { await sleep(50); st = await p.state().catch(() => null); }
  st = await p.settle('a database run opened from the list', 60000);
  check(st.run === target && st.totals.inView > 0, 'clicking run ' + target + ' opened ' + (st && st.run));
  let fs = null;
  for (let i = 0; i < 600; i++) {
    fs = await p.evaluate('window.__viewer.findings()');
    if (fs.state !== 'running' && fs.state !== 'loading') break;
    await sleep(50);
  }
  const api = await apiJson(server.origin, 'runs/' + target + '/findings');
  check(api.source === 'database', 'the findings of a stored run come from ' + api.source);
  check(api.total === summary.findings && fs.state === 'ready' && fs.list.length === api.total,
    'the lane holds ' + (fs.list || []).length + ' findings (' + fs.state + '), the database ' + summary.findings);
  await shot(p, 'db-run');
  console.log('database runs: ' + listed.total + ' listed, family ' + family.slice(0, 8) + ' keeps ' + inFamily +
    ', tag week2 keeps run ' + target + ', opened with ' + api.total +
    ' findings from the database');
}

// A kernel with a launching call: click it, see "Launched by", jump there and back.
// The last run of the generated case holds the 4 ranks on one time axis:
// meta's groups name every rank, and "align clocks" draws a rank's lanes
// shifted by its clock offset (off again: raw clocks).
async function ranksInOneRun(p, server, shot) {
  const st = await p.state();
  const meta = await apiJson(server.origin, 'runs/' + st.run + '/meta');
  check((meta.ranks || []).length === 4, 'the directory of 4 ranks is not one run of 4 ranks: ' + JSON.stringify(meta.ranks));
  for (let k = 0; k < 4; k++) {
    check(meta.tracks.some((t) => t.group[0] === 'rank ' + k), 'no lane of rank ' + k + ' in the job run');
  }
  const offsets = meta.clock_offsets || [];
  console.log('job run: ' + meta.ranks.length + ' ranks, ' + meta.rows.length + ' rows, clock offsets ' +
    JSON.stringify(offsets.map((o) => o.offset_ns)) + (meta.clock_offsets_note ? ' (' + meta.clock_offsets_note + ')' : ''));
  if (!check(offsets.length === 4, 'no clock offsets for the job run: ' + meta.clock_offsets_note)) return;
  const moved = offsets.find((o) => o.offset_ns !== 0);
  if (!check(moved, 'every clock offset is 0')) return;
  const span = meta.ranks.find((r) => r.rank === moved.rank);
  const row = meta.rows.findIndex((r) => r.track >= span.first_track && r.track < span.first_track + span.tracks);
  const t = Math.floor(meta.end_ns / 2);
  const raw = await p.evaluate('window.__viewer.rowX(' + row + ', ' + t + ')');
  check(await p.evaluate('window.__viewer.rowShift(' + row + ')') === 0, 'clocks are aligned by default');
  await p.evaluate('window.__viewer.setAligned(true)');
  const q = await p.evaluate('window.__viewer.query()');
  const expected = moved.offset_ns * q.width / (q.t1 - q.t0);
  const aligned = await p.evaluate('window.__viewer.rowX(' + row + ', ' + t + ')');
  check(Math.abs((raw - aligned) - expected) < 1e-6 * Math.max(1, Math.abs(expected)),
    'align clocks moved rank ' + moved.rank + ' by ' + (raw - aligned) + ' px, not ' + expected);
  await p.settle('aligned');
  await shot(p, 'aligned');
  await p.evaluate('window.__viewer.setAligned(false)');
  check(await p.evaluate('window.__viewer.rowShift(' + row + ')') === 0, 'align clocks off does not restore raw clocks');
}

async function kernelAndLaunch(p, server, meta, shot) {
  const gpuTracks = new Set(meta.tracks.filter((t) => t.kind === 'gpu_stream').map((t) => t.track));
  const gpuRows = meta.rows.filter((r) => gpuTracks.has(r.track)).map((r) => r.row);
  if (!gpuRows.length) {
    check(!args['expect-launch'], 'no GPU stream track in the meta');
    console.log('no GPU stream track: launch check not applicable');
    return;
  }
  const vp = drawnEvents(await api(server.origin, 'runs/0/viewport?t0=0&t1=' + meta.end_ns + '&width=20000&rows=' + gpuRows.join(',')));
  let kernel = null, details = null;
  const candidates = vp.events.filter((e) => e.dur > 0).slice(0, 400);
  for (let i = 0; i < candidates.length && !kernel; i += Math.max(1, Math.floor(candidates.length / 40))) {
    const d = await apiJson(server.origin, 'runs/0/events/' + candidates[i].id);
    if (d.launch) { kernel = candidates[i]; details = d; }
  }
  if (!kernel) {
    check(!args['expect-launch'], 'no kernel with a launching call among ' + candidates.length + ' drawn GPU events');
    console.log('no kernel with a launching call: launch check not applicable');
    return;
  }
  // Put the kernel and its launch in view through the URL, then click on the kernel.
  const launch = await apiJson(server.origin, 'runs/0/events/' + details.launch.id);
  const lo = Math.min(kernel.start, launch.start_ns), hi = Math.max(kernel.start + kernel.dur, launch.start_ns + launch.dur_ns);
  const pad = Math.max((hi - lo) / 4, 1000);
  await p.evaluate(`location.hash = 'run=0&t0=${Math.floor(lo - pad)}&t1=${Math.ceil(hi + pad)}'`);
  const clickEvent = async (e, modifiers) => {
    await p.evaluate(`window.__viewer.scrollToRow(${e.row})`);
    await p.settle('event ' + e.id + ' in view');
    const xy = await p.evaluate(`window.__viewer.pagePoint(${e.start + e.dur / 2}, ${e.row})`);
    await p.click(xy.x, xy.y, modifiers);
    await sleep(300);
    return xy;
  };
  const xy = await clickEvent(kernel);
  let st = await p.state();
  check(st.selection.length === 1 && st.selection[0] === kernel.id, 'clicking kernel ' + kernel.id + ' at ' + JSON.stringify(xy) +
    ' selected ' + JSON.stringify(st.selection));
  const text = await p.evaluate('document.getElementById("details").innerText');
  check(/launched by/i.test(text) && text.includes(details.launch.name), 'the details pane does not show the launch: ' + text.slice(0, 300));
  await shot(p, 'kernel');
  // Ctrl+click adds the launch: a summary table (name, count, total, min, max).
  // Framed first: far from its kernel a launch can be narrower than a pixel
  // (merged into a bucket), and a view change keeps the selection.
  const lpad = Math.max(launch.dur_ns, 1000);
  await p.evaluate(`window.__viewer.setView(${launch.start_ns - lpad}, ${launch.start_ns + launch.dur_ns + lpad})`);
  await clickEvent({id: launch.id, row: launch.row, start: launch.start_ns, dur: launch.dur_ns}, 2);
  st = await p.state();
  check(st.selection.length === 2 && st.selection.includes(launch.id), 'Ctrl+click did not add the launch: ' + JSON.stringify(st.selection));
  const rows = await p.evaluate('document.querySelectorAll("#details table.summary tr").length');
  check(rows >= 2, 'no summary table for two selected events');
  await shot(p, 'summary');
  await p.evaluate(`window.__viewer.setView(${Math.floor(lo - pad)}, ${Math.ceil(hi + pad)})`);
  await clickEvent(kernel);
  const box = await p.evaluate(`(() => { const b = document.querySelector('button.jump[data-jump="${details.launch.id}"]');
    if (!b) return null; const r = b.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
  if (!check(box, 'no "jump to launch" button')) return;
  await p.click(box.x, box.y);
  await sleep(300);
  st = await p.settle('jump to launch');
  check(st.selection[0] === details.launch.id, 'the jump did not select the launch ' + details.launch.id + ': ' + JSON.stringify(st.selection));
  check(st.t0 <= details.launch.start_ns && st.t1 >= details.launch.start_ns, 'the jump did not bring the launch into view');
  const launchText = await p.evaluate('document.getElementById("details").innerText');
  check(launchText.includes(details.name), 'the launch\'s details do not list the kernel ' + details.name);
  const back = await p.evaluate(`(() => { const b = document.querySelector('button.jump[data-jump="${kernel.id}"]');
    if (!b) return null; const r = b.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
  if (check(back, 'no "jump to kernel" button on the launch')) {
    await p.click(back.x, back.y);
    await sleep(300);
    st = await p.settle('jump to kernel');
    check(st.selection[0] === kernel.id && st.t0 <= kernel.start && st.t1 >= kernel.start, 'the jump back to the kernel failed');
  }
  console.log('kernel ' + kernel.id + ' "' + kernel.name.slice(0, 60) + '" launched by ' + details.launch.id + ' "' + details.launch.name + '"');
}

// A search for a name whose first hit lies after the view frames that hit:
// among names drawn in the run, the one whose first hit starts latest; the
// view is the run's start up to half way to that hit.
async function searchOutside(p, server, meta, shot) {
  const end = meta.end_ns;
  let names = [];
  for (const [a, b] of [[0, end], [Math.floor(end / 2), Math.floor(end / 2) + Math.max(1000, Math.floor(end / 1000))]]) {
    const vp = drawnEvents(await api(server.origin, 'runs/0/viewport?t0=' + a + '&t1=' + b + '&width=4000&rows=all'));
    names = names.concat(vp.events.map((e) => e.name));
  }
  names = [...new Set(names)].slice(0, 80);
  let target = null;
  for (const name of names) {
    const r = await apiJson(server.origin, 'runs/0/search?q=' + encodeURIComponent(name) + '&mode=substring&bins=10&limit=1');
    // Names with several hits first (so "select all" selects several), then the latest first hit.
    const better = (c) => !target || (c.total > 1) > (target.total > 1) ||
      ((c.total > 1) === (target.total > 1) && c.hit.start_ns > target.hit.start_ns);
    const c = r.hits.length && {name, hit: r.hits[0], total: r.hits_total};
    if (c && c.hit.start_ns >= 400 && better(c)) target = c;
  }
  if (!check(target && target.hit.start_ns >= 400, 'no name whose first hit starts after 400 ns')) return;
  await p.evaluate(`location.hash = 'run=0&t0=0&t1=${Math.floor(target.hit.start_ns / 2)}'`);
  let st = await p.settle('start of the trace');
  check(st.t1 < target.hit.start_ns, 'the hit is in view before the search');
  await p.evaluate(`(() => { const i = document.getElementById('search'); i.focus(); i.value = ''; })()`);
  await p.s('Input.insertText', {text: target.name});
  await p.s('Input.dispatchKeyEvent', {type: 'keyDown', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r'});
  await p.s('Input.dispatchKeyEvent', {type: 'keyUp', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13});
  for (let i = 0; i < 60 && !((await p.state()).search || {}).total; i++) await sleep(50);
  st = await p.settle('search');
  console.log('search "' + target.name.slice(0, 60) + '": ' + target.total + ' hits, first at ' + target.hit.start_ns + ' ns');
  check(st.search && st.search.total === target.total, 'the search shows ' + JSON.stringify(st.search) + ', the server has ' + target.total);
  check(st.selection[0] === target.hit.id, 'the first hit is not selected');
  check(st.t0 <= target.hit.start_ns && st.t1 >= target.hit.start_ns + target.hit.dur_ns, 'the first hit is not framed');
  await shot(p, 'search');
  // "select all hits" selects them (up to its limit) with a summary table.
  await p.evaluate('document.getElementById("select-hits").click()');
  for (let i = 0; i < 40 && (await p.state()).selection.length < Math.min(2, target.total); i++) await sleep(50);
  st = await p.state();
  check(st.selection.length === Math.min(target.total, 5000), 'select all hits selected ' + st.selection.length + ' of ' + target.total);
  if (target.total > 1) {
    const summary = await p.evaluate('document.querySelectorAll("#details table.summary tr").length');
    check(summary >= 2, 'no summary table for the selected hits');
  }
  // f frames the selection; m marks it.
  await p.evaluate('document.activeElement.blur()');
  await p.key('f');
  await p.key('m');
  st = await p.settle('f and m');
  check(st.marker && st.marker.t0 <= target.hit.start_ns, 'm does not mark the selection');
}

// The page's URL opened in a new page gives the same viewport and selection.
async function copiedUrl(cdp, p, server) {
  await p.key('w');
  const before = await p.settle('before copying the URL');
  await sleep(300);
  const url = await p.evaluate('location.href');
  check(url.startsWith(server.origin + '/'), 'odd URL ' + url);
  const q = await page(cdp, url);
  const after = await q.settle('the copied URL');
  console.log('copied URL ' + url.replace(server.origin, '') + ' -> view ' + after.t0 + '..' + after.t1);
  check(Math.abs(after.t0 - Math.floor(before.t0)) <= 1 && Math.abs(after.t1 - Math.ceil(before.t1)) <= 1,
    'the copied URL gives another viewport: ' + JSON.stringify([before.t0, before.t1, after.t0, after.t1]));
  const inUrl = before.selection.slice(0, 200);  // the URL holds the first 200 selected ids
  check(JSON.stringify(after.selection.slice().sort()) === JSON.stringify(inUrl.sort()),
    'the copied URL lost the selection: ' + after.selection.length + ' of ' + inUrl.length + ' ids');
  // The HTML report's links give the window on the trace's own clock (abs0/abs1).
  const origin = BigInt((await apiJson(server.origin, 'runs/0/meta')).origin_ns);
  const t0 = Math.floor(before.t0), t1 = Math.ceil(before.t1);
  const abs = url.replace(/#.*$/, '') + '#run=0&abs0=' + (origin + BigInt(t0)) + '&abs1=' + (origin + BigInt(t1));
  const r = await page(cdp, abs);
  const viaAbs = await r.settle('a link with abs0/abs1');
  check(Math.abs(viaAbs.t0 - t0) <= 1 && Math.abs(viaAbs.t1 - t1) <= 1,
    'abs0/abs1 give another viewport: ' + JSON.stringify([t0, t1, viaAbs.t0, viaAbs.t1]));
}

// Heap after panning and zooming (8 rounds: 30 x W at a point, 12 x D, 30 x S),
// and the frame time on cached tiles at the overview and zoomed in.
async function bench(p, meta) {
  const heap = async () => {
    await p.s('HeapProfiler.collectGarbage').catch(() => {});
    const h = await p.s('Runtime.getHeapUsage');
    const mem = await p.evaluate('performance.memory ? performance.memory.usedJSHeapSize : 0');
    console.log('heap: ' + JSON.stringify(h) + ' performance.memory.usedJSHeapSize=' + mem);
    return h.usedSize / 1048576;
  };
  await p.evaluate(`location.hash = 'run=0&t0=0&t1=${meta.end_ns}'`);
  await p.settle('bench overview');
  const frameOverview = await p.evaluate('window.__viewer.drawMs(40)');
  const heapStart = await heap();
  let frameZoomed = 0, drawnZoomed = 0;
  for (let round = 0; round < 8; round++) {
    await p.mouse('mouseMoved', 300 + 80 * round, 300);
    for (let i = 0; i < 30; i++) await p.key('w');
    await p.settle('bench zoom');
    for (let i = 0; i < 12; i++) { await p.key('d'); await p.settle('bench pan'); }
    if (round === 0) {
      frameZoomed = await p.evaluate('window.__viewer.drawMs(40)');
      drawnZoomed = (await p.state()).totals.drawn;
    }
    for (let i = 0; i < 30; i++) await p.key('s');
    await p.settle('bench zoom out');
  }
  const heapEnd = await heap();
  const st = await p.state();
  console.log('BENCH events=' + meta.events + ' rows=' + meta.rows.length + ' heap_mb_start=' + heapStart.toFixed(1) +
    ' heap_mb_end=' + heapEnd.toFixed(1) + ' tiles_cached=' + st.tiles + ' tile_columns_mb=' + st.tileMb.toFixed(2) + ' requests=' + st.requests +
    ' frame_ms_overview=' + frameOverview.toFixed(2) + ' frame_ms_zoomed=' + frameZoomed.toFixed(2) + ' drawn_zoomed=' + drawnZoomed);
}

main().catch((e) => {
  console.log('FAIL: ' + (e && e.stack || e));
  process.exit(1);
});
