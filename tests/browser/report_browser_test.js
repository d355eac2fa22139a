#!/usr/bin/env node
// Opens a tracehound HTML report in headless Chromium (Debian's `chromium`,
// networking off) and checks it as a user would see it: no console error, no
// network request, every section present, charts drawn (non-blank canvases),
// W/S/A/D move the swimlane, a click on a finding brings its place into the
// swimlane's view; keeps screenshots as test artefacts.
//
// Talks to Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: fd 3 in, fd 4 out, messages NUL-separated), so it
// needs nothing but node and chromium. Exit 77 (ctest SKIP_RETURN_CODE) when
// chromium or the input is absent, with the reason on stdout.
//
// Usage: report_browser_test.js --tracehound BIN --config DEFAULT_YAML --work DIR
//          --artefacts DIR --case NAME (--generate | --input TRACE | --report HTML)
//          [--expect-drawn id,id,...] [--expect-data section,section,...]
//          [--expect-click] [--expect-links] [--section-shots]
'use strict';
const childProcess = require('child_process');
const {findChromium, Cdp} = require('./devtools_pipe.js');
const fs = require('fs');
const path = require('path');

const SKIP = 77;
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) continue;
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
  else args[a.slice(2)] = process.argv[++i];
}
const SECTIONS = ['verdict', 'findings', 'breakdown', 'swimlane', 'efficiency', 'stragglers', 'memory',
  'kernels', 'ops', 'tables', 'checks', 'trust', 'reductions'];

function fail(msg) {
  console.log('FAIL: ' + msg);
  process.exitCode = 1;
}

// Phase 1: the report.
function makeReport() {
  if (args.report) return path.resolve(args.report);  // an existing report (benchmarks)
  const work = path.resolve(args.work);
  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  let input = args.input;
  if (args.generate) {
    input = path.join(work, 'traces');
    const g = childProcess.spawnSync(args.tracehound, ['generate', '--out', input, '--ranks', '4', '--steps', '6',
      '--gzip', '--straggler-rank', '2'], {encoding: 'utf8'});
    if (g.status !== 0) throw new Error('tracehound generate failed: ' + g.stdout + g.stderr);
  } else if (!input || !fs.existsSync(input)) {
    console.log('SKIP: input trace absent: ' + input + ' (../shared/data is not on this machine)');
    process.exit(SKIP);
  }
  const report = path.join(work, 'report.html');
  const pipeline = path.join(work, 'pipeline.yaml');
  fs.writeFileSync(pipeline, 'version: 1\ninclude: ' + JSON.stringify(path.resolve(args.config)) +
    '\noutputs:\n  - {type: html, path: ' + JSON.stringify(report) + '}\nfail_on: null\n');
  const r = childProcess.spawnSync(args.tracehound, ['run', pipeline, input], {encoding: 'utf8'});
  if (r.status !== 0 || !fs.existsSync(report)) {
    throw new Error('tracehound run failed (' + r.status + '): ' + r.stdout + r.stderr);
  }
  console.log('report: ' + report + ' (' + fs.statSync(report).size + ' bytes)');
  return report;
}

// Phase 2: DevTools over the pipe (devtools_pipe.js).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const chromium = findChromium();
  if (!chromium) {
    console.log('SKIP: chromium is not installed (apt-get install chromium; scripts/dev.sh installs it)');
    process.exit(SKIP);
  }
  const report = makeReport();
  const url = 'file://' + report;
  const artefacts = path.resolve(args.artefacts);
  fs.mkdirSync(artefacts, {recursive: true});
  const profile = path.join(path.resolve(args.work), 'profile');
  const proc = childProcess.spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--remote-debugging-pipe', '--user-data-dir=' + profile, '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-default-apps', '--host-resolver-rules=MAP * ~NOTFOUND', '--proxy-server=127.0.0.1:9',
    '--window-size=1400,1000', 'about:blank'], {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']});
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const watchdog = setTimeout(() => {
    fail('timed out; chromium said:\n' + stderr.slice(-2000));
    proc.kill('SIGKILL');
    process.exit(1);
  }, 90000);
  const cdp = new Cdp(proc);
  const requests = [], errors = [];
  let loaded = false;
  cdp.on((m) => {
    if (m.method === 'Network.requestWillBeSent') requests.push(m.params.request.url);
    if (m.method === 'Runtime.exceptionThrown') errors.push('exception: ' + JSON.stringify(m.params.exceptionDetails).slice(0, 800));
    if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'assert')) {
      errors.push('console.' + m.params.type + ': ' + m.params.args.map((a) => a.value || a.description).join(' '));
    }
    if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') {
      errors.push('log (' + m.params.entry.source + '): ' + m.params.entry.text + ' ' + (m.params.entry.url || ''));
    }
    if (m.method === 'Page.loadEventFired') loaded = true;
  });
  const {targetId} = await cdp.send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await cdp.send('Target.attachToTarget', {targetId, flatten: true});
  const s = (method, params) => cdp.send(method, params, sessionId);
  for (const d of ['Page', 'Runtime', 'Log', 'Network']) await s(d + '.enable');
  await s('Emulation.setDeviceMetricsOverride', {width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false});
  const evaluate = async (expr) => {
    const r = await s('Runtime.evaluate', {expression: expr, returnByValue: true, awaitPromise: true});
    if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails).slice(0, 500));
    return r.result.value;
  };
  await s('Page.navigate', {url});
  for (let i = 0; i < 200 && !(loaded && (await evaluate('document.body && document.body.getAttribute("data-ready")')) === '1'); i++) {
    await sleep(100);
  }
  if ((await evaluate('document.body.getAttribute("data-ready")')) !== '1') fail('the report did not finish drawing');
  await sleep(300);

  // Phase 3: what is on the page.
  const page = await evaluate(`(() => {
    const out = {sections: {}, canvases: {}};
    for (const id of ${JSON.stringify(SECTIONS)}) {
      const sec = document.getElementById(id);
      out.sections[id] = sec ? {na: !!sec.querySelector('p.na') && !sec.querySelector('canvas, table'), text: sec.innerText.slice(0, 200)} : null;
    }
    document.querySelectorAll('canvas').forEach((c, i) => {
      const id = c.id || (c.closest('[id]') ? c.closest('[id]').id : 'canvas') + '#' + i;
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colors = new Set();
      for (let k = 0; k < data.length && colors.size < 3; k += 4 * 7) colors.add(data[k] << 24 | data[k + 1] << 16 | data[k + 2] << 8 | data[k + 3]);
      out.canvases[id] = {w: c.width, h: c.height, colors: colors.size};
    });
    out.kernelRows = document.querySelectorAll('#kernels-table tr').length - 1;
    out.findings = document.querySelectorAll('.finding').length;
    out.vscodeLinks = document.querySelectorAll('a[href^="vscode://file/"]').length;
    return out;
  })()`);
  for (const id of SECTIONS) {
    if (!page.sections[id]) fail('section #' + id + ' is missing');
  }
  console.log('sections: ' + SECTIONS.map((id) => id + (page.sections[id] && page.sections[id].na ? ' (not in this trace)' : '')).join(', '));
  for (const [id, c] of Object.entries(page.canvases)) {
    console.log('canvas ' + id + ': ' + c.w + 'x' + c.h + ', ' + (c.colors > 1 ? 'drawn' : 'BLANK'));
    if (c.w < 2 || c.h < 2 || c.colors < 2) fail('canvas ' + id + ' is blank');
  }
  const expectDrawn = args['expect-drawn'] ? String(args['expect-drawn']).split(',') : [];
  for (const id of expectDrawn) {
    const found = Object.keys(page.canvases).filter((k) => k === id || k.startsWith(id));
    if (!found.length) fail('expected chart ' + id + ' is not drawn');
  }
  const expectData = args['expect-data'] ? String(args['expect-data']).split(',') : [];
  for (const id of expectData) {
    if (page.sections[id] && page.sections[id].na) fail('section #' + id + ' says "not in this trace": ' + page.sections[id].text);
  }
  if (page.kernelRows < 1 && expectData.includes('kernels')) fail('the kernel table is empty');
  if (args['expect-links']) {
    const href = await evaluate('(document.querySelector(\'a[href^="vscode://file/"]\') || {}).href || ""');
    if (!/^vscode:\/\/file\/.+\.py:\d+$/.test(href)) fail('no Python file:line became a vscode://file link: "' + href + '"');
    else console.log('first link: ' + href);
  }
  console.log('findings: ' + page.findings + ', vscode links: ' + page.vscodeLinks + ', kernel rows: ' + page.kernelRows);

  // Phase 4: sorting a table changes its order.
  if (page.kernelRows > 1) {
    const sorted = await evaluate(`(() => {
      const first = () => document.querySelector('#kernels-table tr:nth-child(2) td').innerText;
      const th = () => [...document.querySelectorAll('#kernels-table th')].find((t) => t.dataset.col === 'name');
      th().click(); const a = first(); th().click(); const b = first();
      return a !== b;
    })()`);
    if (!sorted) fail('clicking a kernel-table header does not sort it');
  }

  // Opening every other table draws it (errors would show as console errors).
  const others = await evaluate(`(() => { const d = [...document.querySelectorAll('#tables details')];
    d.forEach((x) => { x.open = true; }); return d.length; })()`);
  await sleep(200);
  const otherTables = await evaluate('document.querySelectorAll("#tables details table").length');
  console.log('other tables: ' + otherTables + ' of ' + others + ' opened');
  if (otherTables !== others) fail('opening the other tables did not draw them all');
  // Figures read as people read them: no exponent, rates with an SI prefix.
  const cells = await evaluate('[...document.querySelectorAll("#tables td")].map((td) => td.textContent)');
  const exponent = cells.filter((t) => /\d[eE][+-]?\d/.test(t) && /^[-\d.eE+ ]+[A-Za-z/%]*$/.test(t));
  if (exponent.length) fail('figures written with an exponent: ' + exponent.slice(0, 5).join(', '));
  const rates = cells.filter((t) => / (FLOP|B)\/s$/.test(t) && !/^0 /.test(t));
  const unprefixed = rates.filter((t) => /^-?\d+\.\d+ (FLOP|B)\/s$/.test(t) && parseFloat(t) >= 1e4);
  if (unprefixed.length) fail('rates without an SI prefix: ' + unprefixed.slice(0, 5).join(', '));
  console.log('table cells: ' + cells.length + ', rates: ' + rates.length + ' (e.g. ' + (rates[0] || 'none') + ')');

  // Phase 5: keys move the swimlane; a click on a finding brings it into view.
  const hasSwim = await evaluate('!!document.getElementById("swimlane-canvas")');
  if (hasSwim) {
    const view = () => evaluate('(() => { const v = window.tracehoundReport.swimlane.view(); return v; })()');
    const key = async (k) => {
      const code = 'Key' + k.toUpperCase();
      await s('Input.dispatchKeyEvent', {type: 'keyDown', key: k, code, text: k, windowsVirtualKeyCode: k.toUpperCase().charCodeAt(0)});
      await s('Input.dispatchKeyEvent', {type: 'keyUp', key: k, code, windowsVirtualKeyCode: k.toUpperCase().charCodeAt(0)});
    };
    const v0 = await view();
    for (let i = 0; i < 12; i++) await key('w');
    const v1 = await view();
    if (!(v1.t1 - v1.t0 < 0.2 * (v0.t1 - v0.t0))) fail('W does not zoom in: ' + JSON.stringify([v0.t0, v0.t1, v1.t0, v1.t1]));
    for (let i = 0; i < 30; i++) await key('d');
    const v2 = await view();
    if (!(v2.t0 > v1.t0)) fail('D does not pan right');
    await key('a');
    const v3 = await view();
    if (!(v3.t0 < v2.t0)) fail('A does not pan left');
    await key('s');
    const v4 = await view();
    if (!(v4.t1 - v4.t0 > v3.t1 - v3.t0)) fail('S does not zoom out');
    // Of the findings out of the current view, the one with the narrowest
    // place, lower lanes first (so the lane scroll is exercised too).
    const target = await evaluate(`(() => {
      const v = window.tracehoundReport.swimlane.view();
      const fs = (window.tracehoundReport.data.findings || []).filter((f) => f.place && f.place.shown);
      const out = fs.filter((f) => !(v.t0 <= f.place.t0 && v.t1 >= f.place.t1));
      out.sort((a, b) => (a.place.t1 - a.place.t0) - (b.place.t1 - b.place.t0) ||
        Math.min(...b.place.lanes) - Math.min(...a.place.lanes));
      const f = out[0] || fs[0];
      return f ? {id: f.id, place: f.place} : null;
    })()`);
    if (!target) {
      console.log('no finding has a place on the swimlane: click check not applicable');
      if (args['expect-click']) fail('expected a finding to click');
    } else {
      const before = await view();
      // A real mouse click on the finding's title.
      const box = await evaluate(`(() => {
        const h = document.getElementById('f-' + ${JSON.stringify(target.id)}).querySelector('h3');
        h.scrollIntoView({block: 'center'});
        const r = h.getBoundingClientRect();
        return {x: r.left + Math.min(40, r.width / 2), y: r.top + r.height / 2};
      })()`);
      await sleep(100);
      for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
        await s('Input.dispatchMouseEvent', {type, x: box.x, y: box.y, button: 'left', clickCount: 1});
      }
      await sleep(300);
      const after = await view();
      const p = target.place;
      const firstLane = Math.min(...p.lanes);
      const laneY = after.laneTop[firstLane];
      console.log('finding ' + target.id + ' at ' + p.t0 + '..' + p.t1 + ' ns, lane ' + firstLane +
        '; view before ' + Math.round(before.t0) + '..' + Math.round(before.t1) + ', after ' + Math.round(after.t0) + '..' +
        Math.round(after.t1) + ', lane scroll ' + after.scrollTop);
      if (after.selected !== target.id) fail('the clicked finding is not selected on the swimlane');
      if (!(after.t0 <= p.t0 && after.t1 >= p.t1)) fail('after the click the view does not hold the finding\'s place');
      if (before.t0 <= p.t0 && before.t1 >= p.t1) fail('the finding was already in view: the check proves nothing');
      if (!(laneY >= after.scrollTop && laneY <= after.scrollTop + after.scrollHeight)) fail('the finding\'s lane is scrolled out of view');
      const shot = await s('Page.captureScreenshot', {format: 'png'});
      const file = path.join(artefacts, 'report-' + args.case + '-finding.png');
      fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
      console.log('screenshot: ' + file);
    }
  }
  // One picture per section (--section-shots), for reviewing the layout.
  if (args['section-shots']) {
    for (const id of SECTIONS) {
      const r = await evaluate(`(() => { const r = document.getElementById('${id}').getBoundingClientRect();
        return {x: 0, y: r.top + window.scrollY, width: 1400, height: Math.min(r.height, 3000), scale: 1}; })()`);
      const shot = await s('Page.captureScreenshot', {format: 'png', clip: r, captureBeyondViewport: true});
      fs.writeFileSync(path.join(artefacts, 'report-' + args.case + '-' + id + '.png'), Buffer.from(shot.data, 'base64'));
    }
  }
  // The whole page.
  const size = await evaluate('({w: document.documentElement.scrollWidth, h: Math.min(document.documentElement.scrollHeight, 16000)})');
  await s('Emulation.setDeviceMetricsOverride', {width: 1400, height: size.h, deviceScaleFactor: 1, mobile: false});
  await sleep(300);
  const full = await s('Page.captureScreenshot', {format: 'png'});
  const fullFile = path.join(artefacts, 'report-' + args.case + '.png');
  fs.writeFileSync(fullFile, Buffer.from(full.data, 'base64'));
  console.log('screenshot: ' + fullFile);

  // Phase 6: nothing fetched, nothing failed.
  const fetched = requests.filter((u) => u !== url && u !== 'about:blank' && !u.startsWith('data:'));
  console.log('network requests besides the report itself: ' + fetched.length);
  if (fetched.length) fail('the report made network requests: ' + fetched.join(', '));
  console.log('console errors: ' + errors.length);
  if (errors.length) fail('console errors:\n  ' + errors.join('\n  '));
  clearTimeout(watchdog);
  await cdp.send('Browser.close').catch(() => {});
  proc.kill();
  if (!process.exitCode) console.log('PASS');
}

main().catch((e) => {
  console.log('FAIL: ' + (e && e.stack || e));
  process.exit(1);
});
