// A DevTools-protocol client over Chromium's --remote-debugging-pipe (fd 3
// in, fd 4 out, NUL-separated JSON messages), and how to start headless
// Debian chromium with networking off except loopback. Needs only node.
'use strict';
const childProcess = require('child_process');

function findChromium() {
  for (const name of [process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome']) {
    if (!name) continue;
    const r = childProcess.spawnSync('sh', ['-c', 'command -v "$0"', name], {encoding: 'utf8'});
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

class Cdp {
  constructor(proc) {
    this.proc = proc;
    this.out = proc.stdio[3];
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    let buf = '';
    proc.stdio[4].on('data', (chunk) => {
      buf += chunk.toString('utf8');
      let end;
      while ((end = buf.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buf.slice(0, end));
        buf = buf.slice(end + 1);
        if (msg.id && this.pending.has(msg.id)) {
          const {resolve, reject, method} = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          if (msg.error) reject(new Error(method + ': ' + JSON.stringify(msg.error)));
          else resolve(msg.result);
        } else if (msg.method) {
          this.listeners.forEach((l) => l(msg));
        }
      }
    });
  }
  send(method, params, sessionId) {
    const id = this.nextId++;
    const msg = {id, method, params: params || {}};
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject, method});
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }
  on(fn) { this.listeners.push(fn); }
}

// Starts chromium headless; any host name fails to resolve and any proxied
// request goes nowhere, so only IP-literal loopback servers are reachable.
function launch(chromium, profileDir, width, height) {
  const proc = childProcess.spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--remote-debugging-pipe', '--user-data-dir=' + profileDir, '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-default-apps', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--proxy-server=127.0.0.1:9',
    '--window-size=' + width + ',' + height, 'about:blank'], {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']});
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  return {proc, cdp: new Cdp(proc), stderr: () => stderr};
}

// A page target attached with flatten sessions: {s(method, params), evaluate(expr), sessionId, targetId}.
async function openPage(cdp, width, height) {
  const {targetId} = await cdp.send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await cdp.send('Target.attachToTarget', {targetId, flatten: true});
  const s = (method, params) => cdp.send(method, params, sessionId);
  for (const d of ['Page', 'Runtime', 'Log', 'Network']) await s(d + '.enable');
  await s('Emulation.setDeviceMetricsOverride', {width, height, deviceScaleFactor: 1, mobile: false});
  const evaluate = async (expr) => {
    const r = await s('Runtime.evaluate', {expression: expr, returnByValue: true, awaitPromise: true});
    if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails).slice(0, 500));
    return r.result.value;
  };
  return {s, evaluate, sessionId, targetId};
}

module.exports = {findChromium, Cdp, launch, openPage};
