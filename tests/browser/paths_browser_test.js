#!/usr/bin/env node
// The critical path and the roofline in headless Chromium against `tracehound
// serve` on a generated two-rank job (the one of tests/core/serve/
// serve_paths_test.cc: rank 0 computes 1 ms, rank 1 3 ms, then an all-reduce
// of 0.5 ms transfer; BF16 GEMMs and an FP32 add on an H100): the "critical
// path" toggle highlights exactly the events /critical-path lists for the
// path chosen (across ranks first: 3.5 ms gated by rank 1; then rank 0's),
// outlined on the canvas (also with aligned clocks), the summary names the gating rank, the URL keeps
// the path and reopens it; the roofline chart draws one dot per op row of
// /roofline and one roof per peak row, and hovering a dot shows its numbers
// with units and kinds. With --real TRACE (a record_shapes capture; skipped
// with a message when absent): the chart draws a dot for every op row that
// has F, B and T. No request leaves the server's origin.
// Screenshots: --artefacts/paths-*.png.
//
// Exit 77 (ctest SKIP_RETURN_CODE) without chromium, with the reason.
// Usage: paths_browser_test.js --tracehound BIN --work DIR --artefacts DIR [--real TRACE]
'use strict';
const fs = require('fs');
const path = require('path');
const {launch, openPage} = require('./devtools_pipe.js');
const {parseArgs, startServe, httpGet, sleep, prepareRun} = require('./serve_harness.js');

const W = 1400, H = 900;
const args = parseArgs(process.argv);
let failures = 0;
function check(ok, msg) { if (!ok) { console.log('FAIL: ' + msg); failures++; } return ok; }

// Kineto JSON of the job, µs; rank 1's clock 5 ms later.
function writeJob(dir) {
  fs.mkdirSync(dir, {recursive: true});
  const X = (cat, name, pid, tid, ts, dur, args) => ({ph: 'X', cat, name, pid, tid, ts, dur, args: args || {}});
  const onStream = (stream, c) => ({device: 0, stream, correlation: c});
  const mm = {'Input Dims': [[4096, 4096], [4096, 4096]], 'Input type': ['c10::BFloat16', 'c10::BFloat16']};
  const add = {'Input Dims': [[1024, 1024], [1024, 1024], []], 'Input type': ['float', 'float', 'Scalar']};
  for (const r of [0, 1]) {
    const k = r * 5000, c = r === 0 ? 1000 : 3000;
    const e = [
      X('user_annotation', 'ProfilerStep#1', 1, 1, k, 4500),
      X('cpu_op', 'aten::mm', 1, 1, k, 3, mm),
      X('cuda_runtime', 'cudaLaunchKernel', 1, 1, k, 2, {correlation: 1}),
      X('cuda_runtime', 'cudaLaunchKernel', 1, 1, k + 4, 2, {correlation: 2}),
      X('kernel', 'gemm', 0, 7, k, c, onStream(7, 1)),
      X('kernel', 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)', 0, 7, k + c, 3500 - c,
        onStream(7, 2)),
    ];
    if (r === 0) {
      e.push(X('cpu_op', 'aten::add', 1, 1, k + 7, 2, add));
      e.push(X('cuda_runtime', 'cudaLaunchKernel', 1, 1, k + 8, 1, {correlation: 3}));
      e.push(X('kernel', 'add_kernel', 0, 8, k + 20, 100, onStream(8, 3)));
    }
    fs.writeFileSync(path.join(dir, 'rank' + r + '.json'), JSON.stringify({distributedInfo: {rank: r, world_size: 2},
      deviceProperties: [{id: 0, name: 'NVIDIA H100 80GB HBM3'}], traceEvents: e}));
  }
}

// GET of a JSON answer, asked again while it is 503.
async function answer(url) {
  for (let i = 0; i < 1200; i++) {
    const r = await httpGet(url);
    if (r.status !== 503) {
      if (r.status !== 200) throw new Error(url + ' answered ' + r.status + ' ' + r.body);
      return JSON.parse(r.body.toString('utf8'));
    }
    await sleep(100);
  }
  throw new Error(url + ' stayed 503');
}

async function page(cdp, url) {
  const p = await openPage(cdp, W, H);
  p.hook = (expr) => p.evaluate('window.__viewer.' + expr);
  p.until = async (what, expr) => {
    let v = null;
    for (let i = 0; i < 600; i++) {
      v = await p.evaluate('window.__viewer ? (' + expr + ') : null');
      if (v) return v;
      await sleep(50);
    }
    throw new Error('timed out waiting for ' + what + ': error line ' + await p.evaluate('document.getElementById("error").textContent'));
  };
  await p.s('Page.navigate', {url});
  await p.until('the run', 'window.__viewer.state().idle');
  return p;
}

async function shot(p, dir, name) {
  const s = await p.s('Page.captureScreenshot', {format: 'png'});
  const file = path.join(dir, 'paths-' + name + '.png');
  fs.writeFileSync(file, Buffer.from(s.data, 'base64'));
  console.log('screenshot: ' + file);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The outline's colour (#e65100) on the canvas at the left edge of `e`.
async function outlined(p, e) {
  return p.evaluate(`(() => {
    const v = window.__viewer, c = document.getElementById('timeline'), r = c.getBoundingClientRect();
    const x = Math.round(v.rowX(${e.row}, ${e.start_ns})), pt = v.pagePoint(${e.start_ns}, ${e.row});
    if (!pt) return null;
    const d = c.getContext('2d').getImageData(x, Math.round(pt.y - r.top), 1, 1).data;
    return Math.abs(d[0] - 230) < 20 && Math.abs(d[1] - 81) < 30 && d[2] < 40;
  })()`);
}

async function criticalPath(cdp, origin, artefacts) {
  const api = await answer(origin + '/api/v1/runs/0/critical-path');
  const across = api.paths.find((x) => x.rank === -1), rank0 = api.paths.find((x) => x.step === 1 && x.rank === 0);
  check(across && across.path_ns === 3500000 && across.collectives.length === 1 && across.collectives[0].gating_rank === 1,
    'the API\'s path across ranks is not 3.5 ms gated by rank 1: ' + JSON.stringify(across).slice(0, 400));
  const p = await page(cdp, origin + '/');
  await p.evaluate('document.getElementById("cp").click()');
  const on = await p.until('the critical path', 'window.__viewer.criticalPath().path && window.__viewer.criticalPath()');
  await sleep(100);
  const drawn = await p.hook('criticalPath()');
  check(on.path.rank === -1 && on.path.step === 1, 'the first path shown is ' + JSON.stringify(on.path));
  check(same(drawn.ids, across.events.map((e) => e.id)), 'highlighted ' + JSON.stringify(drawn.ids) + ', the API lists ' +
    JSON.stringify(across.events.map((e) => e.id)));
  check(drawn.drawn === across.events.length, drawn.drawn + ' outlines drawn of ' + across.events.length);
  const gemm = across.events.find((e) => e.name === 'gemm');
  check(await outlined(p, gemm), 'no outline at rank 1\'s GEMM');
  const details = await p.evaluate('document.getElementById("details").textContent');
  check(details.includes('rank 1 (ahead by 2.00 ms, transfer 500 µs)'), 'the summary does not name the gating rank: ' + details);
  check(details.includes('3.50 ms (measured)'), 'the summary does not give the length: ' + details);
  await shot(p, artefacts, 'across-ranks');
  // Aligned clocks (when the server estimated offsets): the outlines move with their lanes.
  if (await p.evaluate('!document.getElementById("align-label").hidden')) {
    await p.hook('setAligned(true)');
    await sleep(200);
    console.log('aligned clocks: rank 1\'s lanes shifted by ' + await p.hook('rowShift(' + gemm.row + ')') + ' ns');
    check(await outlined(p, gemm), 'no outline at rank 1\'s GEMM with aligned clocks');
    await p.hook('setAligned(false)');
  } else {
    console.log('SKIP (part): no clock offsets for the job; aligned outlines not checked');
  }

  // Rank 0's path from the select; the URL keeps it and reopens it.
  await p.evaluate('(() => { const s = document.getElementById("cp-path"); s.value = "1:0"; s.dispatchEvent(new Event("change")); })()');
  const r0 = await p.until('rank 0\'s path', 'window.__viewer.criticalPath().path.rank === 0 && window.__viewer.criticalPath()');
  check(same(r0.ids, rank0.events.map((e) => e.id)), 'rank 0: highlighted ' + JSON.stringify(r0.ids) + ', the API lists ' +
    JSON.stringify(rank0.events.map((e) => e.id)));
  await sleep(300);
  const hash = await p.evaluate('location.hash');
  check(/(^#|&)cp=1:0(&|$)/.test(hash), 'the URL does not keep the path: ' + hash);
  const q = await page(cdp, origin + '/' + hash);
  const back = await q.until('the path from the URL', 'window.__viewer.criticalPath().path && window.__viewer.criticalPath()');
  check(back.enabled && back.path.rank === 0 && same(back.ids, r0.ids), 'the URL reopened ' + JSON.stringify(back));
  check(await q.evaluate('document.getElementById("cp").checked'), 'the toggle is off after reopening');
}

async function roofline(cdp, origin, artefacts, name) {
  const api = await answer(origin + '/api/v1/runs/0/roofline');
  const drawable = api.ops.filter((o) => o.flops > 0 && o.bytes > 0 && o.time_ns > 0);
  const p = await page(cdp, origin + '/');
  await p.evaluate('document.getElementById("roofline-button").click()');
  const r = await p.until('the roofline', 'window.__viewer.roofline().state === "ready" && window.__viewer.roofline()');
  check(r.ops === api.ops.length && r.svgDots === drawable.length && r.dots === drawable.length,
    name + ': ' + r.svgDots + ' dots for ' + api.ops.length + ' op rows (' + drawable.length + ' with F, B and T)');
  check(r.svgRoofs === api.roofs.length, name + ': ' + r.svgRoofs + ' roofs for ' + api.roofs.length + ' peak rows');
  check(api.ops.length > 0, name + ': the roofline has no op rows');
  await p.evaluate('document.querySelector("#roofline-panel circle.op-dot").dispatchEvent(new MouseEvent("mouseenter"))');
  const info = await p.evaluate('document.querySelector("#roofline-panel .roofline-info").textContent');
  const o = api.ops[Number(await p.evaluate('document.querySelector("#roofline-panel circle.op-dot").dataset.index'))];
  check(info.startsWith(o.name + ' · ' + o.dtype) && /F .*FLOP \(inferred\) · B .*B \(inferred\) · T .* \(measured\)/.test(info) &&
    info.includes('(read)'), name + ': the hover text lacks units or kinds: ' + info);
  await sleep(300);
  check(/(^#|&)roof=1(&|$)/.test(await p.evaluate('location.hash')), name + ': the URL does not keep the roofline open');
  await shot(p, artefacts, 'roofline-' + name);
  return {api, info};
}

async function main() {
  const {chromium, work, artefacts} = prepareRun(args);
  const job = path.join(work, 'job');
  writeJob(job);
  const servers = [await startServe(args.tracehound, ['--no-cache', '--no-findings', job])];
  const {proc, cdp, stderr} = launch(chromium, path.join(work, 'profile'), W, H);
  const watchdog = setTimeout(() => {
    console.log('FAIL: timed out; chromium said:\n' + stderr().slice(-2000));
    proc.kill('SIGKILL'); servers.forEach((s) => s.proc.kill('SIGKILL'));
    process.exit(1);
  }, 170000);
  const requests = [], errors = [];
  cdp.on((msg) => {
    if (msg.method === 'Network.requestWillBeSent') requests.push(msg.params.request.url);
    if (msg.method === 'Runtime.exceptionThrown') errors.push(JSON.stringify(msg.params.exceptionDetails).slice(0, 500));
    if (msg.method === 'Log.entryAdded' && msg.params.entry.level === 'error' && !/status of (503|404)/.test(msg.params.entry.text))
      errors.push(msg.params.entry.text);
  });
  try {
    await criticalPath(cdp, servers[0].origin, artefacts);
    const g = await roofline(cdp, servers[0].origin, artefacts, 'generated');
    check(g.api.ops.length === 3 && g.api.roofs.length === 2, 'the job has ' + g.api.ops.length + ' op rows and ' +
      g.api.roofs.length + ' roofs, not 3 and 2');
    if (args.real && fs.existsSync(args.real)) {
      servers.push(await startServe(args.tracehound, ['--no-cache', '--no-findings', args.real]));
      const real = await roofline(cdp, servers[1].origin, artefacts, 'real');
      console.log('real trace: ' + real.api.ops.length + ' op rows, ' + real.api.roofs.length + ' roofs; hover: ' + real.info);
    } else {
      console.log('SKIP (part): no real trace' + (args.real ? ' at ' + args.real : ' given') + '; the generated job only');
    }
  } catch (e) {
    check(false, e && e.stack || e);
  } finally {
    clearTimeout(watchdog);
    await cdp.send('Browser.close').catch(() => {});
    proc.kill();
    servers.forEach((s) => s.proc.kill());
  }
  const outside = requests.filter((u) => !servers.some((s) => u.startsWith(s.origin + '/')) && u !== 'about:blank' && !u.startsWith('data:'));
  check(!outside.length, 'requests to another origin: ' + outside.slice(0, 5).join(', '));
  check(!errors.length, 'console errors:\n  ' + errors.join('\n  '));
  if (failures) process.exitCode = 1;
  else console.log('PASS');
}

main().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });
