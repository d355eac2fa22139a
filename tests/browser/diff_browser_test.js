#!/usr/bin/env node
// Opens the diff view of `tracehound serve` in headless Chromium on the
// generated diff pair (B: the gemm kernel twice as long, aten::mul and
// mul_kernel inserted, its steps 500 µs later on its clock) and uses it as a user would: ticks the two runs in
// the run list and clicks "compare"; the Δ table lists exactly the changed
// rows the server's /api/v1/diff has; hovering a row outlines its events on
// one or both sides; clicking the gemm row frames it on both sides (selected,
// in view, at the same x: the axes are aligned on the step); clicking an
// event selects its row; after W/S/A/D
// the same aligned time is at the same x on both canvases; the step picker
// moves the alignment, "align on selected events" puts the two selected
// kernels at 0; a copied URL reopens the same view; no console error
// and no request to another origin. Screenshots go to --artefacts.
//
// Exit 77 (ctest SKIP_RETURN_CODE) when chromium is absent, with the reason.
//
// Usage: diff_browser_test.js --tracehound BIN --write-pair BIN --work DIR --artefacts DIR
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const {launch, openPage} = require('./devtools_pipe.js');
const {parseArgs, startServe, httpGet, sleep, prepareRun} = require('./serve_harness.js');

const W = 1500, H = 900;
const args = parseArgs(process.argv);
let failures = 0;
function fail(msg) { console.log('FAIL: ' + msg); failures++; }
function check(ok, msg) { if (!ok) fail(msg); return ok; }

function startServer(inputs, work) {
  return startServe(args.tracehound, ['--no-findings', '--cache-dir', path.join(work, 'index-cache'), ...inputs]);
}

async function getJson(url) {
  const r = await httpGet(url);
  return {status: r.status, body: r.body.toString('utf8')};
}

async function page(cdp, url) {
  const p = await openPage(cdp, W, H);
  p.state = () => p.evaluate('window.__diff ? window.__diff.state() : null');
  p.settle = async (what) => {
    let st = null;
    for (let i = 0; i < 300; i++) {
      st = await p.state();
      if (st && st.idle) { await sleep(80); st = await p.state(); if (st.idle) return st; }
      await sleep(50);
    }
    throw new Error('the diff view did not settle (' + what + '): ' + JSON.stringify(st));
  };
  p.key = async (k) => {
    const code = 'Key' + k.toUpperCase(), vk = k.toUpperCase().charCodeAt(0);
    await p.s('Input.dispatchKeyEvent', {type: 'keyDown', key: k, code, text: k, windowsVirtualKeyCode: vk});
    await p.s('Input.dispatchKeyEvent', {type: 'keyUp', key: k, code, windowsVirtualKeyCode: vk});
  };
  p.mouse = async (type, x, y) => p.s('Input.dispatchMouseEvent', {type, x, y, button: 'left', clickCount: 1});
  p.click = async (x, y) => { await p.mouse('mouseMoved', x, y); await p.mouse('mousePressed', x, y); await p.mouse('mouseReleased', x, y); };
  // Centre of the element a selector names (page coordinates), scrolled into view.
  p.centre = (sel) => p.evaluate(`(() => { const e = document.querySelector(${JSON.stringify(sel)}); if (!e) return null;
    e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
  p.clickOn = async (sel) => { const c = await p.centre(sel); if (!c) throw new Error('no element ' + sel); await p.click(c.x, c.y); };
  p.shot = async (file) => {
    const shot = await p.s('Page.captureScreenshot', {format: 'png'});
    fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
    console.log('screenshot: ' + file);
  };
  await p.s('Page.navigate', {url});
  return p;
}

// The page x of aligned time t on each side (t + the side's offset on its clock), on a lane each.
async function xs(p, st, t) {
  const a = await p.evaluate(`window.__diff.pagePoint(0, ${st.a.offset + t}, ${st.a.selection[0].row})`);
  const b = await p.evaluate(`window.__diff.pagePoint(1, ${st.b.offset + t}, ${st.b.selection[0].row})`);
  return [a.x, b.x];
}

async function exercise(cdp, server, artefacts) {
  const shot = (p, name) => p.shot(path.join(artefacts, 'serve-diff-' + name + '.png'));
  // The run list: tick both runs, compare.
  const list = await page(cdp, server.origin + '/assets/runs.html');
  for (let i = 0; i < 200 && !(await list.evaluate('document.querySelectorAll("input.pick").length === 2')); i++) await sleep(50);
  check(await list.evaluate('document.getElementById("compare").disabled'), 'compare is enabled before two runs are ticked');
  await list.clickOn('input.pick[data-run="0"]');
  await list.clickOn('input.pick[data-run="1"]');
  check(!(await list.evaluate('document.getElementById("compare").disabled')), 'compare is disabled with two runs ticked');
  await list.clickOn('#compare');
  let p = list;
  p.state = () => p.evaluate('window.__diff ? window.__diff.state() : null');
  for (let i = 0; i < 100 && !(await p.evaluate('location.pathname')).endsWith('/assets/diff.html'); i++) await sleep(50);
  const href = await p.evaluate('location.href');
  check(/\/assets\/diff\.html#diff=0,1/.test(href), 'compare opened ' + href);
  let st = await p.settle('the diff of runs 0 and 1');

  // The table: exactly the server's rows, the changed ones marked.
  const ans = await getJson(server.origin + '/api/v1/diff?a=0&b=1');
  check(ans.status === 200, '/api/v1/diff answered ' + ans.status);
  const diff = JSON.parse(ans.body);
  const table = await p.evaluate(`[...document.querySelectorAll('#diff-table tr.diff-row')].map((tr) =>
    [tr.children[1].textContent, tr.children[2].textContent])`);
  check(JSON.stringify(table) === JSON.stringify(diff.diff.aggregate.map((r) => [r.name, r.status])),
    'the table differs from /api/v1/diff: ' + JSON.stringify(table));
  const changed = table.filter((r) => r[1] !== 'unchanged');
  console.log('changed rows: ' + JSON.stringify(changed));
  check(JSON.stringify(changed) === JSON.stringify([['gemm_kernel<0x*>', 'changed'], ['aten::mul', 'added'], ['mul_kernel', 'added']]),
    'the changed rows are not the doubled gemm and the inserted mul: ' + JSON.stringify(changed));
  check(st.step === 0 && st.a.offset === diff.pairs[0].a_start_ns && st.b.offset === diff.pairs[0].b_start_ns,
    'not aligned on the first step pair: ' + JSON.stringify([st.a.offset, st.b.offset]));
  // B's steps lie 500 µs later on its own clock (write_diff_pair): the alignment makes up for it.
  check(diff.pairs[0].b_start_ns - diff.pairs[0].a_start_ns === 500000, 'the pair\'s steps are not 500 µs apart: ' +
    JSON.stringify(diff.pairs[0]));
  await shot(p, 'open');

  // Hovering the inserted kernel's row outlines it on B only.
  const mulRow = table.findIndex((r) => r[0] === 'mul_kernel');
  const c = await p.centre(`#diff-table tr[data-index="${mulRow}"]`);
  await p.mouse('mouseMoved', c.x, c.y);
  await sleep(150);
  st = await p.state();
  check(st.a.highlight.length === 0 && JSON.stringify(st.b.highlight) === '["mul_kernel"]' && st.b.highlightDrawn > 0,
    'hovering mul_kernel: A ' + JSON.stringify(st.a.highlight) + ', B ' + JSON.stringify(st.b.highlight) + ' (' + st.b.highlightDrawn + ' drawn)');

  // Clicking the doubled gemm frames its first instance in the step on both sides.
  const gemmRow = table.findIndex((r) => r[0] === 'gemm_kernel<0x*>');
  await p.clickOn(`#diff-table tr[data-index="${gemmRow}"]`);
  await sleep(100);
  st = await p.settle('the gemm row framed');
  const fa = diff.rows[gemmRow].a_first[0], fb = diff.rows[gemmRow].b_first[0];
  const sa = st.a.selection[0], sb = st.b.selection[0];
  if (check(sa && sb, 'clicking the gemm row selected ' + JSON.stringify([st.a.selection, st.b.selection]))) {
    check(sa.name === 'gemm_kernel<0x7f001000>' && sa.id === fa[2] && sa.start === fa[0] && sa.dur === fa[1] - fa[0],
      'A selected ' + JSON.stringify(sa) + ', not ' + JSON.stringify(fa));
    check(sb.name === 'gemm_kernel<0x7f001000>' && sb.id === fb[2] && sb.start === fb[0] && sb.dur === 2 * sa.dur,
      'B selected ' + JSON.stringify(sb) + ', not the doubled kernel ' + JSON.stringify(fb));
    for (const [s, e] of [[st.a, sa], [st.b, sb]]) {
      check(e.start >= s.t0 && e.start + e.dur <= s.t1, 'the kernel ' + JSON.stringify(e) + ' is outside the view ' + s.t0 + '..' + s.t1);
      check(s.highlightDrawn > 0, 'no outlined gemm drawn on run ' + s.run);
    }
    check(st.row === gemmRow, 'the selected row is ' + st.row);
    const [xa, xb] = await xs(p, st, sa.start - st.a.offset);
    check(Math.abs(xa - xb) < 0.5, 'the gemm starts at x ' + xa + ' on A but ' + xb + ' on B (both 40 µs into the step)');
    await shot(p, 'gemm');

    // W/S/A/D move both sides: the same aligned time stays at the same x.
    for (const k of ['w', 'w', 'd', 's', 'a', 'a']) {
      const before = await p.state();
      await p.key(k);
      await sleep(60);
      st = await p.state();
      check(JSON.stringify(st.view) !== JSON.stringify(before.view), 'key ' + k + ' did not move the view');
      const t = (st.view.t0 + st.view.t1) / 2;
      const [ya, yb] = await xs(p, st, t);
      check(Math.abs(ya - yb) < 0.5 && st.a.level === st.b.level, 'after ' + k + ': aligned time ' + t + ' at x ' + ya + ' on A, ' + yb + ' on B');
      check(st.a.t0 - st.a.offset === st.b.t0 - st.b.offset, 'after ' + k + ': the sides\' windows differ');
    }
  }

  // Clicking B's inserted mul_kernel on its lane selects its row: outlined on B, none on A.
  {
    const mulB = diff.rows[mulRow].b_first[0];
    await p.clickOn(`#diff-table tr[data-index="${mulRow}"]`);
    await sleep(100);
    st = await p.settle('the mul_kernel row framed');
    const lane = st.b.selection[0] && st.b.selection[0].row;
    await p.clickOn(`#diff-table tr[data-index="${gemmRow}"]`);  // another row first
    await sleep(100);
    await p.evaluate('window.__diff.setView(-20000, 1020000)');  // the whole step
    st = await p.settle('the gemm row again, the whole step shown');
    check(st.row === gemmRow, 'the gemm row is not selected: ' + st.row);
    const at = await p.evaluate(`window.__diff.pagePoint(1, ${(mulB[0] + mulB[1]) / 2}, ${lane})`);
    await p.evaluate('window.scrollTo(0, 0)');
    if (check(at, 'no lane for mul_kernel on B')) {
      await p.mouse('mouseMoved', at.x, at.y);
      await p.click(at.x, at.y);
      await p.mouse('mouseMoved', 5, 5);
      await sleep(150);
      st = await p.state();
      check(st.row === mulRow && st.b.selection[0] && st.b.selection[0].id === mulB[2] &&
        JSON.stringify(st.b.highlight) === '["mul_kernel"]' && st.a.highlight.length === 0,
        'clicking mul_kernel on B: row ' + st.row + ', selection ' + JSON.stringify(st.b.selection) + ', highlight ' +
        JSON.stringify([st.a.highlight, st.b.highlight]));
    }
  }

  // The step picker aligns on another pair.
  await p.evaluate('(() => { const s = document.getElementById("step"); s.value = "2"; s.dispatchEvent(new Event("change")); })()');
  st = await p.settle('step pair 2');
  check(st.step === 2 && st.a.offset === diff.pairs[2].a_start_ns && st.b.offset === diff.pairs[2].b_start_ns,
    'the step picker did not align on pair 2: ' + JSON.stringify([st.step, st.a.offset, st.b.offset]));
  await p.clickOn(`#diff-table tr[data-index="${gemmRow}"]`);
  await sleep(100);
  st = await p.settle('the gemm row in step pair 2');
  check(st.a.selection[0] && st.a.selection[0].id === diff.rows[gemmRow].a_first[2][2] &&
    st.b.selection[0] && st.b.selection[0].id === diff.rows[gemmRow].b_first[2][2], 'the gemm row in pair 2 selected ' +
    JSON.stringify([st.a.selection, st.b.selection]));

  // "align on selected events": the gemm selected on each side (by its row) is put at 0 on both.
  await p.clickOn('#align-events');
  await sleep(100);
  const ev = await p.settle('aligned on the two gemm kernels');
  check(ev.anchor && ev.anchor.ea === st.a.selection[0].id && ev.anchor.eb === st.b.selection[0].id &&
    ev.a.offset === st.a.selection[0].start && ev.b.offset === st.b.selection[0].start,
    'align on selected events gave ' + JSON.stringify([ev.anchor, ev.a.offset, ev.b.offset]));
  const [za, zb] = await xs(p, ev, 0);
  check(Math.abs(za - zb) < 0.5, 'the two aligned events start at x ' + za + ' and ' + zb);
  st = ev;

  // The other levels. Structure: the rows of the chosen step pair (pair 2);
  // clicking the inserted op's row selects its aggregate row. Attribution:
  // one row per step-breakdown category, as the diff lists them.
  const entry = diff.diff.structure.find((e) => e.a_step === diff.pairs[2].a_step && e.b_step === diff.pairs[2].b_step);
  await p.clickOn('#diff-levels button[data-level="structure"]');
  await sleep(100);
  st = await p.state();
  const hidden = (id) => p.evaluate(`document.getElementById('${id}').hidden`);
  check(st.level === 'structure' && !(await hidden('diff-structure')) && (await hidden('diff-table')),
    'the structure tab shows level ' + st.level);
  const srows = await p.evaluate(`[...document.querySelectorAll('#diff-structure tr.structure-row')].map((tr) =>
    [...tr.children].map((td) => td.textContent))`);
  check(entry && srows.length === entry.rows.length, 'the structure of pair 2 shows ' + srows.length + ' rows, the diff ' +
    (entry ? entry.rows.length : 'none'));
  const ins = entry ? entry.rows.findIndex((r) => r.kind === 'added' && r.b_name === 'aten::mul') : -1;
  if (check(ins >= 0, 'the diff has no added aten::mul in pair 2')) {
    const where = entry.rows[ins].path;
    check(srows[ins][0] === 'added' && srows[ins][1] === 'op' && srows[ins][2] === where[where.length - 1] + ' › aten::mul',
      'the inserted op reads ' + JSON.stringify(srows[ins]));
    await p.clickOn(`#diff-structure tr.structure-row:nth-child(${ins + 1})`);
    await sleep(100);
    st = await p.settle('the inserted op picked in the structure');
    check(st.row === table.findIndex((r) => r[0] === 'aten::mul'), 'the structure row selected table row ' + st.row);
  }
  await p.clickOn('#diff-levels button[data-level="attribution"]');
  await sleep(100);
  const cats = await p.evaluate(`[...document.querySelectorAll('#diff-attribution tr.attribution-row')].map((tr) => tr.children[0].textContent)`);
  check(JSON.stringify(cats) === JSON.stringify(diff.diff.attribution.contributors.map((c) => c.category)),
    'the attribution tab lists ' + JSON.stringify(cats));
  st = await p.settle('the attribution tab');
  check(st.level === 'attribution', 'the attribution tab shows level ' + st.level);
  console.log('levels: ' + srows.length + ' structural rows in pair 2, ' + cats.length + ' categories');

  // A copied link reopens the same view (runs, step, window, row) in a new page.
  await sleep(400);  // the hash is written 150 ms after the last change
  const link = await p.evaluate('location.href');
  check(!/gemm|mul|aten/.test(decodeURIComponent(link)), 'the link holds names: ' + link);
  const q = await page(cdp, link);
  const again = await q.settle('the copied link');
  check(again.step === st.step && again.row === st.row && again.level === st.level && JSON.stringify(again.anchor) === JSON.stringify(st.anchor) &&
    again.a.offset === st.a.offset && again.b.offset === st.b.offset && Math.abs(again.view.t0 - st.view.t0) <= 1 &&
    Math.abs(again.view.t1 - st.view.t1) <= 1, 'the link ' + link + ' reopened ' + JSON.stringify([again.step, again.row, again.view]) +
    ', not ' + JSON.stringify([st.step, st.row, st.view]));
  check(/[#&]ea=\d+&eb=\d+/.test(link), 'the link does not name the two aligned events: ' + link);
  await shot(q, 'link');
}

async function main() {
  const {chromium, work, artefacts} = prepareRun(args);
  const traces = path.join(work, 'traces');
  const w = childProcess.spawnSync(args['write-pair'], [traces], {encoding: 'utf8'});
  if (w.status !== 0) throw new Error('write_diff_pair failed: ' + w.stdout + w.stderr);
  const server = await startServer([path.join(traces, 'a.json'), path.join(traces, 'b.json')], work);
  console.log('serving the pair at ' + server.url);
  const {proc, cdp, stderr} = launch(chromium, path.join(work, 'profile'), W, H);
  const watchdog = setTimeout(() => {
    fail('timed out; chromium said:\n' + stderr().slice(-2000));
    proc.kill('SIGKILL'); server.proc.kill('SIGKILL');
    process.exit(1);
  }, 120000);
  const requests = [], errors = [];
  let waits = 0;
  cdp.on((m) => {
    if (m.method === 'Network.requestWillBeSent') requests.push(m.params.request.url);
    if (m.method === 'Runtime.exceptionThrown') errors.push('exception: ' + JSON.stringify(m.params.exceptionDetails).slice(0, 800));
    if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'assert')) {
      errors.push('console.' + m.params.type + ': ' + m.params.args.map((a) => a.value || a.description).join(' '));
    }
    if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') {
      // 503: a run still importing or the diff still computing; the view polls through it.
      if (/status of 503/.test(m.params.entry.text)) { waits++; return; }
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
  console.log('requests: ' + requests.length + ', to another origin: ' + outside.length + '; 503 answers waited through: ' + waits);
  check(!outside.length, 'requests to another origin: ' + outside.slice(0, 5).join(', '));
  check(!errors.length, 'console errors:\n  ' + errors.join('\n  '));
  if (failures) process.exitCode = 1;
  else console.log('PASS');
}

main().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });
