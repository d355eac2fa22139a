#!/usr/bin/env node
// Loads redacted traces in Chrome's own Trace Event importer and checks they
// load exactly like their originals.
//
// chrome://tracing is gone from current Chromium (Debian's 156 has no such
// page); the importer Chrome ships today is the DevTools Performance panel's
// trace engine (models/trace, bundled at devtools://devtools/bundled/). Each
// original and its redacted copy are parsed there with JSON.parse (strict, as
// Perfetto's and the Performance panel's loaders are) and
// TraceModel.Model.createWithAllHandlers().parse(): both must parse without
// an error, with the same time bounds, processes, threads and entries per
// thread, and no planted secret may be among the redacted copy's strings.
// Networking off; talks to Chromium over --remote-debugging-pipe (no
// download of anything). Exit 77 (ctest SKIP_RETURN_CODE) without chromium.
//
// Usage: redact_browser_test.js --tracehound BIN --work DIR [--input REAL_TRACE]
'use strict';
const childProcess = require('child_process');
const {findChromium, Cdp} = require('./devtools_pipe.js');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const SKIP = 77;
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) continue;
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
  else args[a.slice(2)] = process.argv[++i];
}
function fail(msg) {
  console.log('FAIL: ' + msg);
  process.exitCode = 1;
}

// Phase 1: inputs (a generated 2-rank job, a trace with planted secrets, a
// real one when given) and their redacted copies.
const SECRETS = ['alice', 'gpu-node-17', 'corp.example.com', 'bob@example.org', '10.1.2.3',
  'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789', 'secret_proj', 'carol'];
function plantedTrace() {
  const ev = [
    {ph: 'M', name: 'process_name', pid: 1, tid: 0, args: {name: 'python3 on gpu-node-17.corp.example.com'}},
    {ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: {name: 'thread 1 (python)'}},
  ];
  for (let i = 0; i < 20; i++) {
    const ts = 1000 + i * 100;
    ev.push({ph: 'X', cat: 'python_function', name: '/home/alice/proj/train.py(' + i + '): step', pid: 1, tid: 1, ts, dur: 80});
    ev.push({ph: 'X', cat: 'cpu_op', name: 'aten::addmm', pid: 1, tid: 1, ts: ts + 1, dur: 50.125,
      args: {'Input Dims': [[32, 128], [128, 256]], 'Call stack': '/srv/secret_proj/m.py(3): f;C:\\Users\\carol\\x.py(1): g',
        note: 'mail bob@example.org from 10.1.2.3 with ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 \u00e9\u{1F600} "q"'}});
    ev.push({ph: 'X', cat: 'kernel', name: 'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >', pid: 0, tid: 7, ts: ts + 10, dur: 20});
  }
  ev.push({ph: 'i', name: 'upload to bob@example.org', pid: 1, tid: 1, ts: 5000, s: 't'});
  return JSON.stringify({traceEvents: ev, host_name: 'gpu-node-17.corp.example.com', traceName: '/home/alice/t.json'});
}
function prepare() {
  const work = path.resolve(args.work);
  fs.rmSync(work, {recursive: true, force: true});
  const input = path.join(work, 'in');
  fs.mkdirSync(input, {recursive: true});
  const g = childProcess.spawnSync(args.tracehound, ['generate', '--out', path.join(input, 'generated'), '--ranks', '2', '--steps', '4'], {encoding: 'utf8'});
  if (g.status !== 0) throw new Error('tracehound generate failed: ' + g.stdout + g.stderr);
  fs.writeFileSync(path.join(input, 'planted.json'), plantedTrace());
  if (args.input && fs.existsSync(args.input)) fs.copyFileSync(args.input, path.join(input, path.basename(args.input)));
  else console.log('note: no real trace (' + args.input + '): generated and planted traces only');
  const out = path.join(work, 'out');
  fs.writeFileSync(path.join(work, 'key'), 'browser-test-key-0123456789');
  const r = childProcess.spawnSync(args.tracehound, ['redact', input, '-o', out, '--key-file', path.join(work, 'key')], {encoding: 'utf8'});
  if (r.status !== 0) throw new Error('tracehound redact failed (' + r.status + '): ' + r.stdout + r.stderr);
  console.log(r.stdout.trim());
  const pairs = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e.name)) {
        const rel = path.relative(input, p);
        const red = path.join(out, rel);
        if (!fs.existsSync(red)) throw new Error('no redacted copy of ' + rel);
        pairs.push({name: rel, original: p, redacted: red});
      }
    }
  };
  walk(input);
  return pairs;
}
const text = (p) => {
  const b = fs.readFileSync(p);
  return (p.endsWith('.gz') ? zlib.gunzipSync(b) : b).toString('utf8');
};

// Phase 2: DevTools over the pipe (devtools_pipe.js).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What Chrome's importer makes of one trace text (run in the DevTools page).
const SUMMARY = `async (text) => {
  const T = await import('./models/trace/trace.js');
  const json = JSON.parse(text);
  const events = Array.isArray(json) ? json : json.traceEvents;
  const model = T.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const data = model.parsedTrace(0).data;
  const threads = [];
  const strings = new Set();
  for (const [pid, proc] of data.Renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      threads.push(pid + ':' + tid + ' ' + (thread.entries || []).length);
      for (const e of thread.entries || []) strings.add(e.name);
    }
  }
  threads.sort();
  for (const e of events) { if (e.args) strings.add(JSON.stringify(e.args)); if (e.name) strings.add(e.name); }
  return {events: events.length, bounds: [data.Meta.traceBounds.min, data.Meta.traceBounds.max],
    threads, strings: [...strings].join('\\n')};
}`;

async function main() {
  const chromium = findChromium();
  if (!chromium) {
    console.log('SKIP: chromium is not installed (apt-get install chromium; scripts/dev.sh installs it)');
    process.exit(SKIP);
  }
  const pairs = prepare();
  const work = path.resolve(args.work);
  const proc = childProcess.spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--remote-debugging-pipe', '--user-data-dir=' + path.join(work, 'profile'), '--no-first-run',
    '--no-default-browser-check', '--disable-extensions', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND',
    '--proxy-server=127.0.0.1:9', 'about:blank'], {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']});
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const watchdog = setTimeout(() => {
    fail('timed out; chromium said:\n' + stderr.slice(-2000));
    proc.kill('SIGKILL');
    process.exit(1);
  }, 150000);
  const cdp = new Cdp(proc);
  const {targetId} = await cdp.send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await cdp.send('Target.attachToTarget', {targetId, flatten: true});
  const s = (method, params) => cdp.send(method, params, sessionId);
  await s('Page.enable');
  await s('Runtime.enable');
  await s('Page.navigate', {url: 'devtools://devtools/bundled/devtools_app.html'});
  let ready = false;
  for (let i = 0; i < 100 && !ready; i++) {
    await sleep(100);
    const r = await s('Runtime.evaluate', {expression: 'import("./models/trace/trace.js").then(() => true, () => false)', awaitPromise: true, returnByValue: true});
    ready = r.result && r.result.value === true;
  }
  if (!ready) throw new Error('the DevTools trace engine did not load');
  const summarize = async (t) => {
    const r = await s('Runtime.evaluate', {expression: '(' + SUMMARY + ')(' + JSON.stringify(t) + ')', awaitPromise: true, returnByValue: true});
    if (r.exceptionDetails) throw new Error(JSON.stringify(r.exceptionDetails).slice(0, 600));
    return r.result.value;
  };
  for (const p of pairs) {
    let a, b;
    try {
      a = await summarize(text(p.original));
    } catch (e) {
      console.log('note: ' + p.name + ': the original does not load either (' + String(e).slice(0, 200) + ')');
      continue;
    }
    try {
      b = await summarize(text(p.redacted));
    } catch (e) {
      fail(p.name + ': the redacted copy does not load: ' + e);
      continue;
    }
    const same = a.events === b.events && a.bounds[0] === b.bounds[0] && a.bounds[1] === b.bounds[1] &&
      JSON.stringify(a.threads) === JSON.stringify(b.threads);
    console.log(p.name + ': ' + b.events + ' events, ' + b.threads.length + ' threads, bounds ' +
      b.bounds.join('..') + ' us: ' + (same ? 'same as the original' : 'DIFFERENT'));
    if (!same) fail(p.name + ': loads differently: ' + JSON.stringify({a: [a.events, a.bounds, a.threads.slice(0, 5)], b: [b.events, b.bounds, b.threads.slice(0, 5)]}));
    if (a.threads.length === 0) fail(p.name + ': the importer found no thread (the check proves nothing)');
    for (const secret of SECRETS) {
      if (b.strings.includes(secret)) fail(p.name + ': "' + secret + '" is still in the loaded trace');
    }
    if (p.name === 'planted.json') {
      let planted = 0;
      for (const secret of SECRETS) if (a.strings.includes(secret)) planted++;
      if (planted !== SECRETS.length) fail('planted.json: only ' + planted + ' of the secrets were in the original');
    }
  }
  clearTimeout(watchdog);
  await cdp.send('Browser.close').catch(() => {});
  proc.kill();
  if (!process.exitCode) console.log('PASS');
}

main().catch((e) => {
  console.log('FAIL: ' + (e && e.stack || e));
  process.exit(1);
});
