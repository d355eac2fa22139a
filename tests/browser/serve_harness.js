// What the browser tests of `tracehound serve` share: their command line,
// a server started on a free port, plain HTTP GETs to it, and the run's
// folders (prepareRun).
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');

// --name VALUE pairs; a --flag followed by another --flag (or nothing) is true.
function parseArgs(argv) {
  const args = {};
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
    else args[a.slice(2)] = argv[++i];
  }
  return args;
}

// Spawns `BIN serve --port 0 ARGV...` and resolves with {proc, url, port,
// origin} once it prints the URL it serves (origin: on 127.0.0.1 when it binds
// every address); rejects when it exits first or prints nothing in 60 s.
function startServe(bin, argv) {
  const proc = childProcess.spawn(bin, ['serve', '--port', '0', ...argv], {stdio: ['ignore', 'pipe', 'pipe']});
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve printed no URL in 60 s: ' + out)), 60000);
    const onData = (d) => {
      out += d;
      const m = out.match(/http:\/\/(127\.0\.0\.1|0\.0\.0\.0):(\d+)\/\S*/);
      if (!m) return;
      clearTimeout(timer);
      resolve({proc, url: m[0], port: m[2], origin: 'http://127.0.0.1:' + m[2]});
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error('serve exited (' + code + '): ' + out)));
  });
}

// GET `url` with `headers`: {status, body} with the body as a Buffer.
function httpGet(url, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get(url, {headers}, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({status: res.statusCode, body: Buffer.concat(chunks)}));
    }).on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Chromium's path and the test's fresh work folder and artefacts folder;
// without Chromium the test exits with ctest's skip code (77), saying why.
function prepareRun(args) {
  const {findChromium} = require('./devtools_pipe.js');
  const chromium = findChromium();
  if (!chromium) {
    console.log('SKIP: chromium is not installed (apt-get install chromium; scripts/dev.sh installs it)');
    process.exit(77);
  }
  const work = path.resolve(args.work), artefacts = path.resolve(args.artefacts);
  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  fs.mkdirSync(artefacts, {recursive: true});
  return {chromium, work, artefacts};
}

module.exports = {parseArgs, startServe, httpGet, sleep, prepareRun};
