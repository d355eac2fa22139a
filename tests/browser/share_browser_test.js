#!/usr/bin/env node
// Share links in headless Chromium against `tracehound serve --bind 0.0.0.0
// --token ADMIN --key-file K` on two generated runs: the admin page's
// "share" button makes a link holding only the token, the run's content key
// and numbers (view, selected ids); that link opened in a new page
// reproduces the run, the view and the selection, hides the button and can
// reach no other run; a link made by `serve --share` opens its run by key;
// once `serve --revoke` names it, the server refuses it. No request leaves
// the server's origin. Screenshots: --artefacts/share-*.png.
//
// Exit 77 (ctest SKIP_RETURN_CODE) without chromium, with the reason.
// Usage: share_browser_test.js --tracehound BIN --work DIR --artefacts DIR
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const {launch, openPage} = require('./devtools_pipe.js');
const {parseArgs, startServe, httpGet, sleep, prepareRun} = require('./serve_harness.js');

const W = 1200, H = 800;
const ADMIN = 'ad0123456789abcdef0123456789abcd';
const args = parseArgs(process.argv);
let failures = 0;
function check(ok, msg) { if (!ok) { console.log('FAIL: ' + msg); failures++; } return ok; }

function run(argv) {
  const r = childProcess.spawnSync(args.tracehound, argv, {encoding: 'utf8'});
  if (r.status !== 0) throw new Error('tracehound ' + argv.join(' ') + ' failed: ' + r.stdout + r.stderr);
  return r;
}

function startServer(inputs, keyFile) {
  return startServe(args.tracehound, ['--bind', '0.0.0.0', '--token', ADMIN, '--key-file', keyFile, '--no-cache',
    '--no-findings', ...inputs]);
}

async function get(url, token) {
  const r = await httpGet(url, {Authorization: 'Bearer ' + token});
  return {status: r.status, body: r.body.toString('utf8')};
}

async function page(cdp, url) {
  const p = await openPage(cdp, W, H);
  p.state = () => p.evaluate('window.__viewer ? window.__viewer.state() : null');
  p.settle = async (what) => {
    let st = null;
    for (let i = 0; i < 400; i++) {
      st = await p.state();
      if (st && st.idle) { await sleep(60); st = await p.state(); if (st.idle) return st; }
      await sleep(50);
    }
    throw new Error('the viewer did not settle (' + what + '): ' + JSON.stringify(st) + ' error: ' +
      await p.evaluate('document.getElementById("error").textContent'));
  };
  await p.s('Page.navigate', {url});
  return p;
}

async function shot(p, dir, name) {
  const s = await p.s('Page.captureScreenshot', {format: 'png'});
  const file = path.join(dir, 'share-' + name + '.png');
  fs.writeFileSync(file, Buffer.from(s.data, 'base64'));
  console.log('screenshot: ' + file);
}

async function exercise(cdp, server, work, artefacts, keyFile, inputs) {
  const origin = server.origin;
  for (let i = 0; i < 600; i++) {  // both runs imported
    const r = JSON.parse((await get(origin + '/api/v1/runs', ADMIN)).body);
    if (r.runs.every((x) => x.ready)) break;
    await sleep(100);
  }
  const meta = JSON.parse((await get(origin + '/api/v1/runs/1/meta', ADMIN)).body);
  const hits = JSON.parse((await get(origin + '/api/v1/runs/1/search?q=a&limit=3', ADMIN)).body).hits;
  check(hits.length >= 2, 'the generated run has fewer than 2 events named with an "a"');
  const t0 = Math.floor(meta.end_ns * 0.2), t1 = Math.floor(meta.end_ns * 0.6);
  const sel = hits.slice(0, 2).map((h) => h.id);
  // The admin's view: run 1, a window and two selected events.
  const a = await page(cdp, origin + '/?token=' + ADMIN + '#run=1&t0=' + t0 + '&t1=' + t1 + '&sel=' + sel.join(','));
  const before = await a.settle('the admin page');
  check(before.run === 1, 'the admin page shows run ' + before.run);
  check(await a.evaluate('!document.getElementById("share").hidden'), 'the admin page has no share button');
  await a.evaluate('document.getElementById("share").click()');
  let link = '';
  for (let i = 0; i < 100 && !link; i++) {
    link = await a.evaluate('(document.getElementById("share-url") || {}).value || ""');
    if (!link) await sleep(50);
  }
  console.log('share link: ' + link);
  const shape = /^http:\/\/127\.0\.0\.1:\d+\/\?token=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)#key=([0-9a-f]{32})&run=1&t0=(\d+)&t1=(\d+)&sel=([\d,]+)$/;
  const m = link.match(shape);
  if (!check(m, 'the link is not token, key and numbers only: ' + link)) return;
  check(m[2] === meta.content_key, 'the link names content key ' + m[2] + ', the run is ' + meta.content_key);
  for (const h of hits) check(!link.includes(encodeURIComponent(h.name)) && !link.includes(h.name), 'the link holds the name ' + h.name);
  await shot(a, artefacts, 'admin');

  // The link reopened: same run, view and selection; no share button; no other run.
  const b = await page(cdp, link);
  const after = await b.settle('the share link');
  check(after.run === 1, 'the share link opened run ' + after.run);
  check(Math.abs(after.t0 - before.t0) <= 1 && Math.abs(after.t1 - before.t1) <= 1,
    'the share link shows ' + after.t0 + '..' + after.t1 + ', the admin saw ' + before.t0 + '..' + before.t1);
  check(JSON.stringify(after.selection.slice().sort()) === JSON.stringify(before.selection.slice().sort()),
    'the share link selects ' + JSON.stringify(after.selection) + ', the admin had ' + JSON.stringify(before.selection));
  check(await b.evaluate('document.getElementById("share").hidden'), 'a share link shows the share button');
  check(await b.evaluate('document.getElementById("run").options.length') === 1, 'the run selector lists other runs');
  const token = m[1];
  const other = await b.evaluate(`fetch('/api/v1/runs/0/meta', {headers: {Authorization: 'Bearer ${token}'}}).then((r) => r.status)`);
  check(other === 404, 'run 0 answers ' + other + ' to the share link');
  await shot(b, artefacts, 'link');

  // A link from the command line opens its run by content key.
  const cli = run(['serve', '--share', inputs[1], '--bind', '127.0.0.1', '--port', server.port, '--key-file', keyFile]);
  const cliLink = cli.stdout.trim();
  check(/#key=[0-9a-f]{32}$/.test(cliLink), 'serve --share printed ' + cliLink);
  const c = await page(cdp, cliLink);
  const viaCli = await c.settle('the command line link');
  check(viaCli.run === 1, 'the command line link opened run ' + viaCli.run);

  // Revoked: the server refuses it from the next request on.
  run(['serve', '--revoke', link, '--key-file', keyFile]);
  const revoked = await get(origin + '/api/v1/runs/1/meta', token);
  check(revoked.status === 401 && revoked.body === '{"error":"token: this link was revoked"}',
    'a revoked link gets ' + revoked.status + ' ' + revoked.body);
}

async function main() {
  const {chromium, work, artefacts} = prepareRun(args);
  const traces = path.join(work, 'traces');
  run(['generate', '--out', traces, '--ranks', '2', '--steps', '3']);
  const inputs = fs.readdirSync(traces).sort().map((f) => path.join(traces, f));
  const keyFile = path.join(work, 'keys', 'serve-share.key');
  const server = await startServer(inputs, keyFile);
  const {proc, cdp, stderr} = launch(chromium, path.join(work, 'profile'), W, H);
  const watchdog = setTimeout(() => {
    console.log('FAIL: timed out; chromium said:\n' + stderr().slice(-2000));
    proc.kill('SIGKILL'); server.proc.kill('SIGKILL');
    process.exit(1);
  }, 120000);
  const requests = [], errors = [];
  cdp.on((msg) => {
    if (msg.method === 'Network.requestWillBeSent') requests.push(msg.params.request.url);
    if (msg.method === 'Runtime.exceptionThrown') errors.push(JSON.stringify(msg.params.exceptionDetails).slice(0, 500));
    if (msg.method === 'Log.entryAdded' && msg.params.entry.level === 'error' && !/status of (503|404)/.test(msg.params.entry.text))
      errors.push(msg.params.entry.text);
  });
  try {
    await exercise(cdp, server, work, artefacts, keyFile, inputs);
  } catch (e) {
    check(false, e && e.stack || e);
  } finally {
    clearTimeout(watchdog);
    await cdp.send('Browser.close').catch(() => {});
    proc.kill();
    server.proc.kill();
  }
  const outside = requests.filter((u) => !u.startsWith(server.origin + '/') && u !== 'about:blank' && !u.startsWith('data:'));
  check(!outside.length, 'requests to another origin: ' + outside.slice(0, 5).join(', '));
  check(!errors.length, 'console errors:\n  ' + errors.join('\n  '));
  if (failures) process.exitCode = 1;
  else console.log('PASS');
}

main().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });
