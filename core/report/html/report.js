/* tracehound HTML report: draws the sections from the JSON blob in #th-data.
 * No network access of any kind (the page's CSP forbids it); charts are drawn
 * on canvas (uPlot for the memory timelines). Every section says "not in this
 * trace" when its data is absent instead of failing. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('th-data').textContent);
  var app = document.getElementById('app');
  var tooltip = null;

  // ---------- formatting ----------
  function esc(s) {
    return String(s == null ? '' : s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }
  function fmtNs(v) {
    if (v == null || !isFinite(v)) return '–';
    var a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (v / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (v / 1e3).toFixed(2) + ' µs';
    return Math.round(v) + ' ns';
  }
  function fmtBytes(v) {
    if (v == null || !isFinite(v) || v < 0) return '–';
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i ? v.toFixed(2) : String(v)) + ' ' + u[i];
  }
  function fmtNum(v) {
    if (v == null || !isFinite(v)) return '–';
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    if (a >= 100) return v.toFixed(1);
    if (a >= 1) return v.toFixed(3);
    return v.toFixed(Math.min(100, 2 - Math.floor(Math.log10(a))));  // 3 significant digits
  }
  // FLOP/s, B/s and FLOP of 10^4 or more with an SI prefix and 4 significant
  // digits, integral ones only where that is exact (as the Markdown report).
  function fmtSi(v, unit) {
    var p = ['k', 'M', 'G', 'T', 'P', 'E'], i = 0, s = v / 1e3;
    while (Math.abs(s) >= 1e3 && i < p.length - 1) { s /= 1e3; i++; }
    var mag = Math.floor(Math.log10(Math.abs(s))), dec = Math.max(0, Math.min(3, 3 - mag));
    if (Number.isInteger(v) && (Math.abs(v) >= 9e15 || v % Math.pow(10, 3 * (i + 1) - dec) !== 0))
      return String(v) + ' ' + unit;
    var t = s.toFixed(dec);
    if (t.indexOf('.') >= 0) t = t.replace(/0+$/, '').replace(/\.$/, '');
    if (t === '1000' && i < p.length - 1) { t = '1'; i++; }
    return t + ' ' + p[i] + unit;
  }
  function fmtUnit(v, unit) {
    if (v == null || (typeof v === 'number' && !isFinite(v))) return '–';
    if (typeof v !== 'number') return String(v);
    if (unit === 'ns') return fmtNs(v);
    if ((unit === 'FLOP/s' || unit === 'B/s' || unit === 'FLOP') && Math.abs(v) >= 1e4) return fmtSi(v, unit);
    if (unit === 'bytes' || unit === 'B') return fmtBytes(v);
    if (unit === '%') return fmtNum(v) + ' %';
    return fmtNum(v) + (unit && unit !== 'count' ? ' ' + unit : '');
  }
  function kindTag(k) { return k ? '<span class="kind ' + esc(k) + '">' + esc(k) + '</span>' : ''; }
  // A Python file:line becomes a vscode://file link (absolute paths as is).
  function linkify(text) {
    return esc(text).replace(/((?:[A-Za-z]:)?[\w.~\-\/\\]*\.py)(?::|\(|, line )(\d+)\)?/g,
      function (m, file, line) {
        var path = file.replace(/\\/g, '/');
        if (path.charAt(0) !== '/') path = '/' + path;
        return '<a class="src" href="vscode://file' + encodeURI(path) + ':' + line +
          '" title="open in VS Code">' + m + '</a>';
      });
  }
  function el(tag, attrs, html) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (html != null) e.innerHTML = html;
    return e;
  }
  // The finding's place in `tracehound serve` started on this report's traces,
  // in their order, on its default port (the viewer reads run and window from the hash).
  var SERVE_URL = 'http://127.0.0.1:8765/';
  function serveLink(p) {
    var cmd = 'tracehound serve ' + (D.traces || []).map(function (t) { return t.path; }).join(' ');
    return el('a', {'class': 'serve', href: SERVE_URL + '#run=' + p.run + '&abs0=' + p.abs0 + '&abs1=' + p.abs1,
      target: '_blank', rel: 'noopener noreferrer', title: 'the same place in the trace viewer, once `' + cmd + '` runs'},
      'open in tracehound serve');
  }
  function table(name) {
    var t = D.tables && D.tables[name];
    if (!t || !t.columns || !t.shown) return null;
    var cols = {};
    t.columns.forEach(function (c) { cols[c.name] = c; });
    return {rows: t.shown, total: t.rows, cols: cols, columns: t.columns,
      get: function (col, i) { var c = cols[col]; return c ? c.values[i] : undefined; },
      unit: function (col) { var c = cols[col]; return c ? c.unit : ''; }};
  }
  // The table drawn in panel `view` (its schema's view; D.panels lists the
  // columns each panel may read, from core/report/report_panels.cc). A listed
  // column the table lacks, or a read of an unlisted one, is a console error:
  // a renamed column cannot silently empty a panel.
  var panelErrors = {};
  function panelError(msg) {
    if (panelErrors[msg]) return;
    panelErrors[msg] = true;
    console.error(msg);
  }
  function panel(view) {
    var names = Object.keys(D.tables || {}).filter(function (n) { return D.tables[n].view === view; });
    var t = names.length ? table(names[0]) : null;
    if (!t) return null;
    var allowed = (D.panels && D.panels[view]) || [];
    var missing = allowed.filter(function (c) { return !t.cols[c]; });
    if (missing.length) panelError('report panel ' + view + ': table ' + names[0] + ' has no column ' + missing.join(', '));
    function check(col) {
      if (allowed.indexOf(col) < 0) panelError('report panel ' + view + ' reads column ' + col + ', which report_panels.cc does not list');
    }
    var get = t.get, unit = t.unit;
    t.get = function (col, i) { check(col); return get(col, i); };
    t.unit = function (col) { check(col); return unit(col); };
    return t;
  }
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function nameColor(s) { var h = hash(s); return 'hsl(' + (h % 360) + ',55%,' + (48 + (h >> 9) % 18) + '%)'; }
  function showTip(ev, html) {
    tooltip.innerHTML = html;
    tooltip.style.display = 'block';
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var r = tooltip.getBoundingClientRect();
    if (x + r.width > window.innerWidth) x = Math.max(0, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight) y = Math.max(0, ev.clientY - r.height - 14);
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  }
  function hideTip() { tooltip.style.display = 'none'; }
  function setupCanvas(canvas, w, h) {
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    canvas.style.width = w + 'px';
    canvas.style.height = h + 'px';
    var ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }
  function na(body, reason) { body.appendChild(el('p', {'class': 'na'}, 'Not in this trace: ' + esc(reason))); }

  // ---------- page skeleton ----------
  var SECTIONS = [
    ['verdict', 'Verdict'], ['findings', 'Findings'], ['breakdown', 'Step-time breakdown'],
    ['swimlane', 'Swimlane of a representative step'], ['efficiency', 'GPU efficiency and overlap'],
    ['stragglers', 'Stragglers'], ['memory', 'Memory'], ['kernels', 'Kernels'], ['ops', 'Ops'],
    ['tables', 'Other tables'],
    ['checks', 'Reconciliation checks'], ['trust', 'Trust'], ['reductions', 'What this report reduced']];
  var bodies = {};
  function skeleton() {
    var head = el('header', {'class': 'top'});
    head.appendChild(el('h1', null, 'tracehound report'));
    var nav = el('nav');
    SECTIONS.forEach(function (s) { nav.appendChild(el('a', {href: '#' + s[0]}, esc(s[1]))); });
    head.appendChild(nav);
    document.body.insertBefore(head, app);
    var main = el('main');
    SECTIONS.forEach(function (s) {
      var sec = el('section', {id: s[0], 'class': 'th-section'});
      sec.appendChild(el('h2', null, esc(s[1])));
      var body = el('div', {'class': 'body'});
      sec.appendChild(body);
      main.appendChild(sec);
      bodies[s[0]] = body;
    });
    app.appendChild(main);
    tooltip = el('div', {id: 'tooltip'});
    document.body.appendChild(tooltip);
  }

  // ---------- verdict, findings ----------
  var findingById = {};
  function renderVerdict(body) {
    var v = D.verdict || 'UNKNOWN';
    body.appendChild(el('div', {'class': 'verdict ' + esc(v)}, esc(v)));
    var traces = D.traces || [];
    var p = '<b>' + traces.length + '</b> trace' + (traces.length === 1 ? '' : 's') +
      (D.pipeline ? ' · pipeline <code>' + esc(D.pipeline) + '</code>' : '') +
      ' · ' + (D.findings || []).length + ' finding' + ((D.findings || []).length === 1 ? '' : 's');
    body.appendChild(el('p', null, p));
    var fs = D.findings || [];
    if (fs.length) {
      var sev = {P0: 0, P1: 0, P2: 0, info: 0};
      fs.forEach(function (f) { sev[f.severity] = (sev[f.severity] || 0) + 1; });
      var rank = {P0: 0, P1: 1, P2: 2, info: 3};
      // The cause is a problem; info findings say what the trace is.
      var onPath = ((D.changes_by_path || {}).causes || []).filter(function (c) { return c.share_median > 0; });
      var cause = onPath.length ? findingById[onPath[0].finding] :
        (D.changes || []).length ? findingById[D.changes[0].finding] : fs.filter(function (f) {
        return f.severity !== 'info';
      }).sort(function (a, b) {
        return rank[a.severity] - rank[b.severity];
      })[0];
      body.appendChild(el('p', null, ['P0', 'P1', 'P2', 'info'].map(function (s) {
        return '<span class="sev ' + s + '">' + s + '</span> ' + sev[s];
      }).join(' &nbsp; ') + (cause ? ' &nbsp;·&nbsp; <b>Cause:</b> <a href="#f-' + esc(cause.id) + '">' + esc(cause.severity) +
        ' ' + esc(cause.plugin) + ' · ' + esc(cause.title) + '</a>' : '')));
    }
    if (traces.length) {
      var rows = traces.map(function (t) {
        var count = {}, order = [];
        (t.devices || []).forEach(function (d) {
          var k = (d.name || 'device') + (d.memory > 0 ? ' (' + fmtBytes(d.memory) + ')' : '');
          if (!count[k]) order.push(k);
          count[k] = (count[k] || 0) + 1;
        });
        var devs = order.map(function (k) { return (count[k] > 1 ? count[k] + ' × ' : '') + esc(k); }).join(', ');
        return '<tr><td class="num">' + t.rank + '</td><td class="name">' + esc(t.path) + '</td><td>' +
          esc(t.format) + '</td><td class="num">' + t.events + '</td><td>' + (devs || '–') + '</td></tr>';
      }).join('');
      body.appendChild(el('div', {'class': 'table-wrap'}, '<table class="data"><tr><th>rank</th><th>trace</th>' +
        '<th>format</th><th class="num">events</th><th>devices</th></tr>' + rows + '</table>'));
    }
    var byPath = D.changes_by_path || {available: false, causes: []};
    if (byPath.available) {
      body.appendChild(el('h3', null, 'Changes ranked by the critical path'));
      body.appendChild(el('p', {'class': 'note'}, byPath.causes.length ? 'Ranked by the share of the critical path ' +
        'each cause covers (median and range over the steps and ranks it reaches); the step time after is inferred ' +
        'from the what-if of its category, scaled to its share of that category on the path.' :
        'No cause maps to the critical path.'));
      if (byPath.causes.length) {
        var pct = function (x) { return (x * 100).toFixed(1) + ' %'; };
        body.appendChild(el('table', {'class': 'data'}, '<tr><th>cause</th><th>path category</th>' +
          '<th class="num">share of path</th><th class="num">step</th><th class="num">step after</th>' +
          '<th>assumption</th><th>try</th></tr>' + byPath.causes.map(function (c) {
            return '<tr><td><a href="#f-' + esc(c.finding) + '">' + esc(c.plugin + ': ' + c.title) + '</a></td><td>' +
              esc(c.categories.join(', ')) + '</td><td class="num">' + pct(c.share_median) + ' (' + pct(c.share_min) +
              '–' + pct(c.share_max) + ', ' + c.paths + (c.paths === 1 ? ' path' : ' paths') + ')</td><td class="num">' +
              fmtNs(c.step_ns) + kindTag('measured') + '</td><td class="num">' + fmtNs(c.step_after_ns) +
              kindTag('inferred') + '</td><td>' + esc(c.assumption) + '</td><td>' + esc(c.knob) + '</td></tr>';
          }).join('')));
      }
    } else if ((D.changes || []).length) {
      body.appendChild(el('p', {'class': 'note'}, 'No critical path in this run (the critical-path plugin is not ' +
        'in the pipeline): the changes below are ranked by saving.'));
    }
    var changes = byPath.available ? [] : (D.changes || []);
    if (changes.length) {
      var r = changes.map(function (c) {
        var f = findingById[c.finding];
        return '<tr><td><a href="#f-' + esc(c.finding) + '">' + esc(f ? f.title : c.finding) + '</a></td><td class="num">' +
          fmtNs(c.saving_ns) + kindTag('inferred') + '</td><td class="num">' + (c.steps ? fmtNs(c.median_step_ns) : '–') +
          '</td><td class="num">' + (c.steps ? fmtNs(c.step_after_ns) + kindTag('inferred') : '–') + '</td></tr>';
      }).join('');
      body.appendChild(el('h3', null, 'Estimated impact of the suggested changes'));
      body.appendChild(el('p', {'class': 'note'}, 'Ranked by the saving each finding infers (not run); the step time ' +
        'after a change assumes the saving spreads evenly over the captured steps.'));
      body.appendChild(el('table', {'class': 'data'}, '<tr><th>change</th><th class="num">saving</th>' +
        '<th class="num">median step</th><th class="num">step after</th></tr>' + r));
    }
    var q = D.open_questions || [];
    if (q.length) {
      body.appendChild(el('h3', null, 'Needs a new capture'));
      body.appendChild(el('table', {'class': 'data'}, '<tr><th>question</th><th>capture that would answer it</th></tr>' +
        q.map(function (x) { return '<tr><td>' + esc(x.question) + '</td><td>' + esc(x.capture) + '</td></tr>'; }).join('')));
    }
  }
  function scopeText(s) {
    var out = [];
    if (!s) return 'all';
    if (s.rank != null) out.push('rank ' + s.rank);
    if (s.device != null) out.push('device ' + s.device);
    if (s.stream != null) out.push('stream ' + s.stream);
    if (s.step_first != null) out.push('steps ' + s.step_first + '–' + s.step_last);
    return out.length ? out.join(', ') : 'all';
  }
  // One card per cause (a group of findings of one plugin and title), its
  // worst scope in full; the other scopes are listed, expandable.
  function renderFindings(body) {
    var fs = (D.findings || []).slice();
    if (!fs.length) {
      body.appendChild(el('p', null, D.verdict === 'NOT_ASSESSED' ?
        'Not assessed: no plugin could measure or check anything in this trace (see the notes).' :
        'No finding: nothing the plugins look for was found.'));
      return;
    }
    if (D.findings_left_out) body.appendChild(el('p', {'class': 'note'}, D.findings_left_out +
      ' findings are left out of this page by its output filter (min_severity / max_findings).'));
    var groups = D.groups || fs.map(function (f) { return {id: f.id, findings: [f.id], summary: null}; });
    groups.forEach(function (g) {
      var members = g.findings.map(function (id) { return findingById[id]; }).filter(Boolean);
      if (!members.length) return;
      var f = members[0];
      var card = el('div', {'class': 'finding ' + esc(f.severity), id: 'f-' + f.id, 'data-finding': f.id,
        'data-group': g.id});
      var h = el('h3', {title: 'show on the swimlane'}, '<span class="sev ' + esc(g.severity || f.severity) + '">' +
        esc(g.severity || f.severity) + '</span> ' + esc(f.plugin) + ' · ' + linkify(f.title) +
        (members.length > 1 ? ' <span class="note">(' + members.length + ' scopes)</span>' : ''));
      card.appendChild(h);
      if (g.summary) card.appendChild(el('div', {'class': 'what'}, '<b>' + esc(g.summary) + '</b>'));
      if (members.length > 1) {
        var det = el('details', {'class': 'scopes'});
        det.appendChild(el('summary', null, 'All ' + members.length + ' scopes'));
        det.appendChild(el('table', {'class': 'data'}, '<tr><th>scope</th><th>severity</th><th>what</th></tr>' +
          members.map(function (m) {
            return '<tr' + (m === f ? '' : ' id="f-' + esc(m.id) + '"') + ' data-finding="' + esc(m.id) + '"><td>' +
              esc(scopeText(m.scope)) +
              '</td><td><span class="sev ' + esc(m.severity) + '">' + esc(m.severity) + '</span></td><td>' +
              linkify(m.what) + '</td></tr>';
          }).join('')));
        card.appendChild(det);
        card.appendChild(el('div', {'class': 'note'}, 'The worst scope in full:'));
      }
      var meta = 'Scope: ' + esc(scopeText(f.scope)) + (f.confidence < 1 ? ' · confidence ' + fmtNum(f.confidence) : '');
      card.appendChild(el('div', {'class': 'note'}, meta));
      if (f.what) card.appendChild(el('div', {'class': 'what'}, linkify(f.what)));
      if (f.evidence && f.evidence.length) {
        var rows = f.evidence.map(function (e) {
          return '<tr><td>' + esc(e.name) + '</td><td class="num">' + esc(fmtUnit(e.value, e.unit)) + '</td><td>' +
            kindTag(e.kind) + '</td></tr>';
        }).join('');
        var det = el('details', f.severity === 'P2' || f.severity === 'info' ? null : {open: ''});
        det.appendChild(el('summary', null, 'Evidence (' + f.evidence.length + ')'));
        det.appendChild(el('table', {'class': 'data evidence'}, '<tr><th>evidence</th><th class="num">value</th><th>kind</th></tr>' + rows));
        card.appendChild(det);
      }
      var impact = (D.changes || []).filter(function (c) { return c.finding === f.id; })[0];
      if (impact) {
        card.appendChild(el('div', null, '<b>Estimated impact:</b> saves ' + fmtNs(impact.saving_ns) + kindTag('inferred') +
          (impact.steps ? ' · step ' + fmtNs(impact.median_step_ns) + ' → ' + fmtNs(impact.step_after_ns) : '')));
      }
      if (f.suggestion) card.appendChild(el('div', {'class': 'try'}, '<b>Suggested change:</b> ' + linkify(f.suggestion)));
      var place = f.place || {};
      var jump = el('button', {'class': 'jump', type: 'button'}, place.shown ? 'show on the swimlane' : 'not on the swimlane');
      if (!place.shown) jump.disabled = true;
      card.appendChild(jump);
      if (place.serve) card.appendChild(serveLink(place.serve));
      if (place.note) card.appendChild(el('span', {'class': 'note'}, ' ' + esc(place.note)));
      var go = function () { if (place.shown) Swim.jumpTo(f); };
      h.addEventListener('click', go);
      jump.addEventListener('click', go);
      body.appendChild(card);
    });
  }

  // ---------- step-time breakdown (stacked bars) ----------
  var PARTS = ['kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other'];
  var PART_COLORS = ['#3b6fd4', '#2aa198', '#7fb800', '#d33682', '#e68a00', '#8e5bd1', '#6c8ebf', '#c8ccd4'];
  function legend(names, colors) {
    return '<div class="legend">' + names.map(function (n, i) {
      return '<span><span class="sw" style="background:' + colors[i] + '"></span>' + esc(n) + '</span>';
    }).join('') + '</div>';
  }
  function renderBreakdown(body) {
    var t = panel('step-breakdown');
    if (!t) { na(body, 'no step breakdown (the trace has no steps, or the step-breakdown plugin did not run)'); return; }
    body.appendChild(el('p', {'class': 'note'}, 'Per step and rank: where the step time goes (PyTorch profiler ' +
      'categories; each instant counted once, in this priority). ' + t.rows + ' bars' +
      (t.total > t.rows ? ' of ' + t.total : '') + '. Kind: ' + kindTag('measured') + ' (steps inferred from ' +
      'periodicity are ' + kindTag('inferred') + '). Hover a bar for its numbers.'));
    body.insertAdjacentHTML('beforeend', legend(PARTS, PART_COLORS));
    var bars = [], MAX_BARS = 600;
    for (var i = 0; i < t.rows; i++) bars.push(i);
    bars.sort(function (a, b) { return (t.get('step', a) - t.get('step', b)) || (t.get('rank', a) - t.get('rank', b)); });
    if (bars.length > MAX_BARS) {
      body.appendChild(el('p', {'class': 'note'}, 'The first ' + MAX_BARS + ' of ' + t.total + ' bars are drawn (by step); ' +
        'the summary below covers every step.'));
      bars = bars.slice(0, MAX_BARS);
    }
    var maxDur = 0;
    bars.forEach(function (i) { maxDur = Math.max(maxDur, t.get('dur', i) || 0); });
    var wrap = el('div', {'class': 'chart-wrap'});
    body.appendChild(wrap);
    var canvas = el('canvas', {id: 'breakdown-canvas'});
    wrap.appendChild(canvas);
    var left = 70, bottom = 34, top = 10, H = 280;
    var W0 = Math.max(400, wrap.clientWidth - 4);
    var steps = [], lastStep = null;
    bars.forEach(function (i) { var s = t.get('step', i); if (s !== lastStep) { steps.push(s); lastStep = s; } });
    var gap = 6, barW = Math.max(2, Math.min(28, Math.floor((W0 - left - steps.length * gap) / Math.max(1, bars.length))));
    var W = Math.max(W0, left + bars.length * barW + steps.length * gap + 10);
    var ctx = setupCanvas(canvas, W, H);
    var plotH = H - top - bottom;
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    ctx.strokeStyle = '#d9dee7'; ctx.fillStyle = '#5d6678'; ctx.font = '11px sans-serif';
    for (var g = 0; g <= 4; g++) {
      var y = top + plotH - plotH * g / 4;
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(W, y); ctx.stroke();
      ctx.fillText(fmtNs(maxDur * g / 4), 4, y + 4);
    }
    var boxes = [], x = left, prev = null;
    bars.forEach(function (i) {
      var s = t.get('step', i);
      if (prev !== null && s !== prev) x += gap;
      if (s !== prev) {
        ctx.fillStyle = '#5d6678';
        var warm = t.get('phase', i) === 'warmup';
        ctx.fillText((warm ? 'w' : '') + s, x, H - bottom + 14);
      }
      prev = s;
      var y0 = top + plotH;
      PARTS.forEach(function (p, k) {
        var v = t.get(p, i) || 0;
        var h = maxDur > 0 ? plotH * v / maxDur : 0;
        ctx.fillStyle = PART_COLORS[k];
        ctx.fillRect(x, y0 - h, Math.max(1, barW - 1), h);
        y0 -= h;
      });
      boxes.push({x: x, w: barW, i: i});
      x += barW;
    });
    ctx.fillStyle = '#5d6678';
    ctx.fillText('step (w = warm-up); bars: ranks in order', left, H - 6);
    canvas.addEventListener('mousemove', function (ev) {
      var r = canvas.getBoundingClientRect(), mx = ev.clientX - r.left;
      var b = boxes.filter(function (b) { return mx >= b.x && mx < b.x + b.w; })[0];
      if (!b) { hideTip(); return; }
      var i = b.i, lines = ['rank ' + t.get('rank', i) + ' · step ' + t.get('step', i) + ' (' + t.get('phase', i) + ', ' +
        t.get('kind', i) + ')', 'step time ' + fmtNs(t.get('dur', i))];
      PARTS.forEach(function (p) { lines.push(p + ': ' + fmtNs(t.get(p, i)) + ' (' + fmtNum(t.get(p + '_pct', i)) + ' %)'); });
      if (t.cols.idle) lines.push('GPU idle (HTA): ' + fmtNs(t.get('idle', i)));
      showTip(ev, esc(lines.join('\n')));
    });
    canvas.addEventListener('mouseleave', hideTip);
    var sum = panel('step-breakdown-summary');
    if (sum) body.appendChild(sortableTable(sum, ['phase', 'part', 'kind', 'steps', 'ranks', 'mean', 'min', 'max', 'mean_pct'], 'breakdown-summary'));
  }

  // ---------- swimlane ----------
  var Swim = (function () {
    var S = D.swimlane || {}, E = S.events || {}, lanes = S.lanes || [], names = S.names || [], kinds = S.kinds || [];
    var n = (E.ts || []).length;
    var ROW = 13, GUTTER = 210, AXIS = 22;
    var laneTop = [], laneH = [], laneRange = [], total = AXIS;
    var v0 = 0, v1 = Math.max(1, S.span_ns || 1), W = 800, canvas = null, ctx = null, scroller = null;
    var hover = -1, selected = null, info = null;
    function layout() {
      var pos = 0;
      lanes.forEach(function (l, i) {
        var rows = Math.min(l.depth || 1, 12);
        laneTop[i] = total; laneH[i] = rows * ROW + 4; total += laneH[i];
        var a = pos; while (pos < n && E.lane[pos] === i) pos++;
        laneRange[i] = [a, pos];
      });
    }
    function x(t) { return GUTTER + (t - v0) * (W - GUTTER) / (v1 - v0); }
    function color(i) {
      var k = kinds[E.kind[i]] || 'other';
      if (k === 'kernel') return nameColor(names[E.name[i]] || '');
      if (k === 'memcpy') return '#2aa198';
      if (k === 'memset') return '#7fb800';
      if (k === 'cuda_runtime' || k === 'runtime' || k === 'cuda_driver' || k === 'driver') return '#e68a00';
      if (k === 'python_function') return '#9fb3d9';
      if (k === 'user_annotation' || k === 'gpu_user_annotation') return '#b39ddb';
      if (k === 'cpu_op') return '#6c8ebf';
      return '#a0a7b4';
    }
    var SEV = {P0: '#c62828', P1: '#e65100', P2: '#9e7c00', info: '#24527a'};
    function draw() {
      if (!ctx) return;
      var H = total;
      ctx.clearRect(0, 0, W, H);
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
      // Axis.
      ctx.font = '10.5px sans-serif'; ctx.fillStyle = '#5d6678'; ctx.strokeStyle = '#e3e7ee';
      var span = v1 - v0, step = Math.pow(10, Math.floor(Math.log10(span / 6)));
      if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;
      for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
        var xx = x(t);
        ctx.beginPath(); ctx.moveTo(xx, AXIS - 4); ctx.lineTo(xx, H); ctx.stroke();
        ctx.fillText(fmtNs(t), xx + 2, 12);
      }
      lanes.forEach(function (l, li) {
        var y = laneTop[li];
        ctx.fillStyle = li % 2 ? '#fafbfd' : '#f3f5f9';
        ctx.fillRect(GUTTER, y, W - GUTTER, laneH[li]);
        if (l.density) {
          var bw = (S.span_ns || 1) / l.density.length;
          ctx.fillStyle = 'rgba(59,111,212,0.18)';
          for (var b = 0; b < l.density.length; b++) {
            if (!l.density[b]) continue;
            var bx0 = x(b * bw), bx1 = x((b + 1) * bw);
            if (bx1 < GUTTER || bx0 > W) continue;
            var h = (laneH[li] - 4) * l.density[b] / 100;
            ctx.fillRect(Math.max(GUTTER, bx0), y + laneH[li] - 2 - h, Math.max(1, bx1 - bx0), h);
          }
        }
        var r = laneRange[li];
        for (var i = r[0]; i < r[1]; i++) {
          var ts = E.ts[i], te = ts + E.dur[i];
          if (te < v0 || ts > v1) continue;
          var d = E.depth[i];
          if (d >= 12) continue;
          var x0 = Math.max(GUTTER, x(ts)), x1 = Math.min(W, x(te));
          ctx.fillStyle = color(i);
          ctx.fillRect(x0, y + 2 + d * ROW, Math.max(1, x1 - x0), ROW - 1);
          if (x1 - x0 > 40) {
            ctx.fillStyle = '#fff';
            ctx.save(); ctx.beginPath(); ctx.rect(x0, y + d * ROW, x1 - x0 - 2, ROW + 2); ctx.clip();
            ctx.fillText(names[E.name[i]] || '', x0 + 2, y + 2 + d * ROW + 10);
            ctx.restore();
          }
        }
      });
      // Findings (labels stacked where several start on the same lane).
      var labelsOnLane = {};
      (D.findings || []).forEach(function (f) {
        var p = f.place;
        if (!p || !p.shown || !p.lanes || !p.lanes.length) return;
        var sel = selected && selected.id === f.id;
        var a = Math.max(GUTTER, x(p.t0)), b = Math.min(W, x(p.t1));
        if (b < GUTTER || a > W) return;
        var lo = Math.min.apply(null, p.lanes), hi = Math.max.apply(null, p.lanes);
        var y0 = laneTop[lo], y1 = laneTop[hi] + laneH[hi];
        ctx.strokeStyle = SEV[f.severity] || '#9e7c00';
        ctx.lineWidth = sel ? 3 : 1;
        ctx.setLineDash(sel ? [] : [4, 3]);
        ctx.strokeRect(a, y0 + 1, Math.max(2, b - a), y1 - y0 - 2);
        ctx.setLineDash([]);
        ctx.lineWidth = 1;
        if (sel) { ctx.fillStyle = 'rgba(74,127,224,0.10)'; ctx.fillRect(a, y0, Math.max(2, b - a), y1 - y0); }
        ctx.fillStyle = SEV[f.severity] || '#9e7c00';
        var k = labelsOnLane[lo] = (labelsOnLane[lo] || 0) + 1;
        ctx.fillText('▼ ' + f.severity + ' ' + f.plugin, a + 2 + (k - 1) * 90, y0 + 10);
      });
      // Launch link of the hovered event.
      if (hover >= 0 && E.launch[hover] >= 0) {
        var s = E.launch[hover];
        ctx.strokeStyle = '#c62828'; ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(x(E.ts[s]), laneTop[E.lane[s]] + 2 + E.depth[s] * ROW + ROW / 2);
        ctx.lineTo(x(E.ts[hover]), laneTop[E.lane[hover]] + ROW / 2 + 2);
        ctx.stroke(); ctx.lineWidth = 1;
      }
      // Lane labels.
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, GUTTER, H);
      ctx.fillStyle = '#1d2330'; ctx.font = '11px sans-serif';
      lanes.forEach(function (l, li) {
        ctx.fillStyle = l.gpu ? '#1d2330' : '#5d4a00';
        var label = 'r' + l.rank + ' ' + l.name;
        ctx.save(); ctx.beginPath(); ctx.rect(0, laneTop[li], GUTTER - 4, laneH[li]); ctx.clip();
        ctx.fillText(label, 4, laneTop[li] + 11);
        ctx.restore();
      });
      ctx.strokeStyle = '#d9dee7'; ctx.beginPath(); ctx.moveTo(GUTTER, 0); ctx.lineTo(GUTTER, H); ctx.stroke();
      canvas.setAttribute('data-view-t0', String(Math.round(v0)));
      canvas.setAttribute('data-view-t1', String(Math.round(v1)));
      if (info) info.textContent = 'view ' + fmtNs(v0) + ' – ' + fmtNs(v1) + ' (' + fmtNs(v1 - v0) + ')';
    }
    function setView(a, b) {
      var span = S.span_ns || 1, w = Math.max(1000, b - a);
      w = Math.min(w, span * 1.1);
      a = Math.max(-span * 0.05, Math.min(a, span * 1.05 - w));
      v0 = a; v1 = a + w;
      draw();
    }
    function zoom(f, at) {
      var c = at == null ? (v0 + v1) / 2 : at;
      setView(c - (c - v0) * f, c + (v1 - c) * f);
    }
    function pan(f) { var d = (v1 - v0) * f; setView(v0 + d, v1 + d); }
    function hit(ev) {
      var r = canvas.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
      if (mx < GUTTER) return -1;
      var t = v0 + (mx - GUTTER) * (v1 - v0) / (W - GUTTER), tol = 3 * (v1 - v0) / (W - GUTTER);
      for (var li = 0; li < lanes.length; li++) {
        if (my < laneTop[li] || my >= laneTop[li] + laneH[li]) continue;
        var d = Math.floor((my - laneTop[li] - 2) / ROW), rg = laneRange[li], best = -1;
        for (var i = rg[0]; i < rg[1]; i++) {
          if (E.depth[i] !== d) continue;
          if (E.ts[i] - tol <= t && t <= E.ts[i] + E.dur[i] + tol) { best = i; if (E.ts[i] <= t) continue; break; }
        }
        return best;
      }
      return -1;
    }
    function render(body) {
      if (!S.available) { na(body, S.reason || 'no timeline'); return; }
      body.appendChild(el('p', {'class': 'note'}, 'Shows ' + esc(S.choice) + '. Axis: ' + esc(S.alignment) + '. ' +
        'Every rank × device × stream, with the host threads that launched the work. ' +
        (S.kept_events < S.total_events ? '<b>' + S.kept_events + ' of ' + S.total_events +
          ' events kept (the longest); shaded bars give each lane\'s busy share per pixel bucket from all of them.</b> '
          : S.total_events + ' events, all kept. ') +
        'Times are ' + kindTag('measured') + '. Keys: <b>W/S</b> zoom, <b>A/D</b> pan; drag to pan, hover for ' +
        'details (a kernel\'s launch is linked in red); click a finding to jump to it.'));
      var bar = el('div', {'class': 'swimlane-bar'});
      var reset = el('button', {type: 'button'}, S.step != null ? 'whole step' : 'whole capture');
      reset.addEventListener('click', function () { selected = null; setView(0, S.span_ns || 1); });
      bar.appendChild(reset);
      info = el('span', {id: 'swimlane-view'});
      bar.appendChild(info);
      body.appendChild(bar);
      scroller = el('div', {id: 'swimlane-scroll', tabindex: '0'});
      canvas = el('canvas', {id: 'swimlane-canvas'});
      scroller.appendChild(canvas);
      body.appendChild(scroller);
      layout();
      W = Math.max(600, scroller.clientWidth - 2);
      ctx = setupCanvas(canvas, W, total);
      setView(0, S.span_ns || 1);
      document.addEventListener('keydown', function (ev) {
        var tag = (ev.target && ev.target.tagName) || '';
        if (tag === 'INPUT' || tag === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
        var k = ev.key.toLowerCase();
        if (k === 'w') zoom(0.8); else if (k === 's') zoom(1.25);
        else if (k === 'a') pan(-0.15); else if (k === 'd') pan(0.15);
        else return;
        ev.preventDefault();
      });
      var drag = null;
      canvas.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, a: v0, b: v1}; });
      window.addEventListener('mouseup', function () { drag = null; });
      canvas.addEventListener('mousemove', function (ev) {
        if (drag) {
          var d = (ev.clientX - drag.x) * (drag.b - drag.a) / (W - GUTTER);
          setView(drag.a - d, drag.b - d);
          return;
        }
        var i = hit(ev);
        if (i !== hover) { hover = i; draw(); }
        if (i < 0) { hideTip(); return; }
        var l = lanes[E.lane[i]];
        var lines = [names[E.name[i]] || '', (kinds[E.kind[i]] || '') + ' · rank ' + l.rank + ' · ' + l.name,
          'start ' + fmtNs(E.ts[i]) + ' · duration ' + fmtNs(E.dur[i]) + ' (measured)'];
        if (E.launch[i] >= 0) {
          var s = E.launch[i];
          lines.push('launched by ' + (names[E.name[s]] || '') + ' at ' + fmtNs(E.ts[s]) + ' (delay ' + fmtNs(E.ts[i] - E.ts[s]) + ')');
        }
        showTip(ev, esc(lines.join('\n')));
      });
      canvas.addEventListener('mouseleave', function () { hover = -1; hideTip(); draw(); });
      window.addEventListener('resize', function () {
        var w = Math.max(600, scroller.clientWidth - 2);
        if (w !== W) { W = w; ctx = setupCanvas(canvas, W, total); draw(); }
      });
    }
    function jumpTo(f) {
      var p = f.place;
      if (!p || !p.shown || !canvas) return;
      selected = f;
      document.querySelectorAll('.finding.selected').forEach(function (e) { e.classList.remove('selected'); });
      var card = document.getElementById('f-' + f.id);
      if (card) card.classList.add('selected');
      var w = Math.max(p.t1 - p.t0, 1000), pad = w * 0.08;
      setView(p.t0 - pad, p.t1 + pad);
      var lo = Math.min.apply(null, p.lanes);
      scroller.scrollTop = Math.max(0, laneTop[lo] - AXIS - 4);
      document.getElementById('swimlane').scrollIntoView({block: 'start'});
    }
    function view() {
      return {t0: v0, t1: v1, scrollTop: scroller ? scroller.scrollTop : 0,
        scrollHeight: scroller ? scroller.clientHeight : 0, laneTop: laneTop.slice(), axis: AXIS,
        selected: selected ? selected.id : null};
    }
    return {render: render, jumpTo: jumpTo, view: view};
  })();

  // ---------- GPU efficiency and overlap ----------
  function hbars(id, rows, series) {
    // rows: [{label, values: [..]}], series: [{name, color}] (values in %; <0 unknown)
    var rowH = 14 * series.length + 10, left = 120, H = rows.length * rowH + 30, W = 520;
    var canvas = el('canvas', {id: id});
    var ctx = setupCanvas(canvas, W, H);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    ctx.font = '11px sans-serif'; ctx.strokeStyle = '#e3e7ee';
    for (var g = 0; g <= 4; g++) {
      var gx = left + (W - left - 40) * g / 4;
      ctx.beginPath(); ctx.moveTo(gx, 0); ctx.lineTo(gx, H - 18); ctx.stroke();
      ctx.fillStyle = '#5d6678'; ctx.fillText(g * 25 + ' %', gx - 8, H - 5);
    }
    rows.forEach(function (r, i) {
      var y = i * rowH + 4;
      ctx.fillStyle = '#1d2330'; ctx.fillText(r.label, 4, y + rowH / 2);
      series.forEach(function (s, k) {
        var v = r.values[k];
        ctx.fillStyle = s.color;
        var yy = y + k * 14;
        if (v == null || !isFinite(v) || v < 0) {
          ctx.fillStyle = '#9aa1ad'; ctx.fillText('unknown', left + 2, yy + 10); return;
        }
        var w = (W - left - 40) * Math.min(v, 100) / 100;
        ctx.fillRect(left, yy, Math.max(1, w), 12);
        ctx.fillStyle = '#1d2330'; ctx.fillText(fmtNum(v) + ' %', Math.min(left + w + 3, W - 52), yy + 10);
      });
    });
    return canvas;
  }
  function renderEfficiency(body) {
    var grid = el('div', {'class': 'grid2'});
    body.appendChild(grid);
    var g = panel('gpu-efficiency'), left = el('div'), right = el('div');
    grid.appendChild(left); grid.appendChild(right);
    left.appendChild(el('h3', null, 'GPU efficiency per device'));
    if (!g) na(left, 'no GPU kernels (or the gpu-efficiency plugin did not run)');
    else {
      var series = [{name: 'GPU utilization (measured)', color: '#3b6fd4'}, {name: 'est. SM efficiency (inferred)', color: '#2aa198'},
        {name: 'est. achieved occupancy (read)', color: '#e68a00'}];
      var rows = [];
      for (var i = 0; i < g.rows; i++) {
        rows.push({label: 'rank ' + g.get('rank', i) + ' GPU ' + g.get('device', i),
          values: [g.get('gpu_utilization', i), g.get('est_sm_efficiency', i), g.get('est_achieved_occupancy', i)]});
      }
      left.insertAdjacentHTML('beforeend', legend(series.map(function (s) { return s.name; }), series.map(function (s) { return s.color; })));
      left.appendChild(el('div', {'class': 'chart-wrap'})).appendChild(hbars('efficiency-canvas', rows, series));
      left.appendChild(sortableTable(g, ['rank', 'device', 'window_source', 'window', 'busy', 'kernels', 'sms',
        'gpu_utilization', 'est_sm_efficiency', 'est_achieved_occupancy', 'blocks_per_sm'], 'efficiency-table'));
    }
    var o = panel('overlap');
    right.appendChild(el('h3', null, 'Communication overlapped by computation, per rank'));
    var orows = [];
    if (o) for (var j = 0; j < o.rows; j++) if (o.get('step', j) === -1 && o.get('comm', j) > 0) orows.push(j);
    if (!orows.length) na(right, 'no communication kernel (or the overlap plugin did not run)');
    else {
      var os = [{name: 'overlap % of comm (measured)', color: '#3b6fd4'}, {name: 'exposed comm % of GPU span (measured)', color: '#c62828'}];
      right.insertAdjacentHTML('beforeend', legend(os.map(function (s) { return s.name; }), os.map(function (s) { return s.color; })));
      right.appendChild(el('div', {'class': 'chart-wrap'})).appendChild(hbars('overlap-canvas', orows.map(function (j) {
        return {label: 'rank ' + o.get('rank', j), values: [o.get('overlap_pct', j), o.get('exposed_pct', j)]};
      }), os));
      right.appendChild(sortableTable(o, ['rank', 'step', 'comm', 'comp', 'overlap', 'exposed_comm', 'span', 'overlap_pct', 'exposed_pct'],
        'overlap-table'));
    }
  }

  // ---------- stragglers heat map ----------
  function renderStragglers(body) {
    var t = panel('straggler-steps');
    if (!t) { na(body, 'no straggler analysis (needs two or more ranks with matching collectives)'); return; }
    body.appendChild(el('p', {'class': 'note'}, 'Lateness of each rank at each step: its median arrival at the ' +
      'step\'s collectives after the median rank, clocks corrected by inferred offsets ' + kindTag('inferred') +
      '. Red: late; blue: early. Hover a cell for compute, wait and z.'));
    var ranks = [], steps = [], cell = {}, maxAbs = 0;
    for (var i = 0; i < t.rows; i++) {
      var r = t.get('rank', i), s = t.get('step', i), v = t.get('lateness', i);
      if (ranks.indexOf(r) < 0) ranks.push(r);
      if (steps.indexOf(s) < 0) steps.push(s);
      cell[r + ':' + s] = i;
      if (isFinite(v)) maxAbs = Math.max(maxAbs, Math.abs(v));
    }
    ranks.sort(function (a, b) { return a - b; });
    steps.sort(function (a, b) { return a - b; });
    body.appendChild(el('p', {'class': 'note'}, 'Full colour at ±' + fmtNs(maxAbs) + '; grey: the rank has no cell for the step.'));
    var MAX_STEPS = 300;
    if (steps.length > MAX_STEPS) {
      body.appendChild(el('p', {'class': 'note'}, 'The first ' + MAX_STEPS + ' of ' + steps.length + ' steps are drawn.'));
      steps = steps.slice(0, MAX_STEPS);
    }
    var left = 60, top = 22, cw = Math.max(8, Math.min(60, Math.floor(900 / steps.length))), ch = Math.max(8, Math.min(28, Math.floor(420 / ranks.length)));
    var W = left + steps.length * cw + 10, H = top + ranks.length * ch + 10;
    var wrap = el('div', {'class': 'chart-wrap'});
    body.appendChild(wrap);
    var canvas = el('canvas', {id: 'stragglers-canvas'});
    wrap.appendChild(canvas);
    var ctx = setupCanvas(canvas, W, H);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    ctx.font = '10.5px sans-serif';
    steps.forEach(function (s, k) { if (cw >= 16 || k % 5 === 0) { ctx.fillStyle = '#5d6678'; ctx.fillText(String(s), left + k * cw + 2, 14); } });
    ranks.forEach(function (r, j) {
      ctx.fillStyle = '#1d2330'; ctx.fillText('rank ' + r, 4, top + j * ch + ch / 2 + 4);
      steps.forEach(function (s, k) {
        var i = cell[r + ':' + s];
        if (i == null) { ctx.fillStyle = '#eee'; }
        else {
          var v = t.get('lateness', i), a = maxAbs > 0 && isFinite(v) ? Math.min(1, Math.abs(v) / maxAbs) : 0;
          ctx.fillStyle = v >= 0 ? 'rgba(198,40,40,' + (0.08 + 0.92 * a) + ')' : 'rgba(40,90,198,' + (0.08 + 0.92 * a) + ')';
        }
        ctx.fillRect(left + k * cw, top + j * ch, cw - 1, ch - 1);
      });
    });
    canvas.addEventListener('mousemove', function (ev) {
      var rc = canvas.getBoundingClientRect(), k = Math.floor((ev.clientX - rc.left - left) / cw), j = Math.floor((ev.clientY - rc.top - top) / ch);
      if (k < 0 || j < 0 || k >= steps.length || j >= ranks.length) { hideTip(); return; }
      var i = cell[ranks[j] + ':' + steps[k]];
      if (i == null) { hideTip(); return; }
      showTip(ev, esc('rank ' + ranks[j] + ' · step ' + steps[k] + '\nlateness ' + fmtNs(t.get('lateness', i)) + ' (inferred)\nz ' +
        fmtNum(t.get('z', i)) + '\ncompute ' + fmtNs(t.get('compute', i)) + ' · wait ' + fmtNs(t.get('wait', i)) +
        ' · collectives ' + fmtNs(t.get('collective', i)) + ' (measured)'));
    });
    canvas.addEventListener('mouseleave', hideTip);
    var st = panel('stragglers');
    if (st) body.appendChild(sortableTable(st, ['rank', 'straggler', 'z', 'lateness', 'arrived_last', 'arrived_last_pct', 'p_chance',
      'steps_latest', 'clock_offset', 'clock_residual'], 'stragglers-table'));
  }

  // ---------- memory ----------
  function renderMemory(body) {
    var M = D.memory || {}, series = M.series || [];
    if (!series.length) {
      na(body, 'no allocator events (record with profile_memory=True to see the memory timeline and OOM risk)');
      return;
    }
    body.appendChild(el('p', {'class': 'note'}, 'Allocated and reserved bytes after each allocator event ' + kindTag('measured') +
      ', the maximum per time bucket; capacity is the device\'s memory ' + kindTag('read') + '; the tier is oom-risk\'s ' +
      kindTag('inferred') + '. Drag to zoom, double-click to reset, hover for values.'));
    series.forEach(function (s, idx) {
      var box = el('div', {'class': 'mem-chart'});
      var tier = s.tier || 'not assessed';
      var dev = s.device_name || ('device ' + s.device);
      box.appendChild(el('h4', null, 'rank ' + s.rank + ' · ' + esc(dev) + ' · OOM tier <span class="tier-' + esc(tier) + '">' + esc(tier) +
        '</span> · peak ' + fmtBytes(s.peak) + ' · capacity ' + (s.capacity > 0 ? fmtBytes(s.capacity) : 'unknown') +
        ' · ' + s.events + ' events' + (s.cumulative ? ' · running sum of Bytes (inferred, relative: no Total Allocated)' : '')));
      body.appendChild(box);
      var xs = s.t.map(function (v) { return v / 1e6; });
      var gib = function (v) { return v == null || v < 0 ? null : v / 1073741824; };
      var data = [xs, s.allocated.map(gib), s.reserved.map(gib)];
      var ser = [{label: 'time (ms)'}, {label: 'allocated (GiB)', stroke: '#3b6fd4', width: 1.5, fill: 'rgba(59,111,212,0.08)'},
        {label: 'reserved (GiB)', stroke: '#e68a00', width: 1}];
      if (s.capacity > 0) {
        data.push(xs.map(function () { return s.capacity / 1073741824; }));
        ser.push({label: 'capacity (GiB)', stroke: '#c62828', width: 1.5, dash: [6, 4]});
      }
      if (typeof uPlot !== 'function') { na(box, 'the charting library did not load'); return; }
      var w = Math.max(480, body.clientWidth - 20);
      var plot = new uPlot({width: w, height: 220, scales: {x: {time: false}},
        series: ser, axes: [{label: 'ms from the first allocator event'}, {label: 'GiB'}],
        cursor: {drag: {x: true, y: false}}}, data, box);
      plot.root.id = 'memory-chart-' + idx;
    });
    var o = panel('oom-risk');
    if (o) body.appendChild(sortableTable(o, ['rank', 'device_type', 'device', 'tier', 'peak_allocated', 'capacity', 'headroom_pct',
      'fragmentation_pct', 'leak_slope', 'steps_to_exhaustion', 'reasons'], 'oom-table'));
  }

  // ---------- sortable tables ----------
  function sortableTable(t, cols, id) {
    cols = cols.filter(function (c) { return t.cols[c]; });
    var wrap = el('div', {'class': 'table-wrap'});
    var tbl = el('table', {'class': 'data sortable', id: id});
    wrap.appendChild(tbl);
    var order = [];
    for (var i = 0; i < t.rows; i++) order.push(i);
    var sortCol = null, dir = 1;
    function cell(c, i) {
      var v = t.get(c, i), u = t.unit(c);
      if (typeof v === 'number') {
        if (u === 'bytes') return '<td class="num">' + fmtBytes(v) + '</td>';
        return '<td class="num">' + esc(fmtUnit(v, u)) + '</td>';
      }
      return '<td class="name">' + linkify(v == null ? '' : v) + '</td>';
    }
    function draw() {
      var head = '<tr>' + cols.map(function (c) {
        var numeric = typeof t.get(c, 0) === 'number';
        var cls = (numeric ? 'num' : '') + (sortCol === c ? (dir > 0 ? ' asc' : ' desc') : '');
        return '<th class="' + cls + '" data-col="' + esc(c) + '" title="sort">' + esc(c) + (t.unit(c) && t.unit(c) !== 'count' ? ' (' + esc(t.unit(c)) + ')' : '') + '</th>';
      }).join('') + '</tr>';
      var body = order.map(function (i) { return '<tr>' + cols.map(function (c) { return cell(c, i); }).join('') + '</tr>'; }).join('');
      tbl.innerHTML = head + body;
    }
    tbl.addEventListener('click', function (ev) {
      var th = ev.target.closest('th');
      if (!th) return;
      var c = th.getAttribute('data-col');
      dir = sortCol === c ? -dir : (typeof t.get(c, 0) === 'number' ? -1 : 1);
      sortCol = c;
      order.sort(function (a, b) {
        var x = t.get(c, a), y = t.get(c, b);
        if (x == null) return 1;
        if (y == null) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
      draw();
    });
    draw();
    var outer = el('div');
    if (t.total > t.rows) outer.appendChild(el('p', {'class': 'note'}, 'First ' + t.rows + ' of ' + t.total + ' rows (in the plugin\'s order).'));
    outer.appendChild(wrap);
    return outer;
  }
  function renderKernels(body) {
    var t = panel('kernel-stats');
    if (!t) { na(body, 'no GPU kernels (or the kernel-stats plugin did not run)'); return; }
    body.appendChild(el('p', {'class': 'note'}, 'Per kernel name over every rank; durations ' + kindTag('measured') + '. Click a header to sort.'));
    body.appendChild(sortableTable(t, ['name', 'category', 'count', 'total', 'mean', 'p50', 'p99', 'min', 'max', 'share'], 'kernels-table'));
  }
  function renderOps(body) {
    var t = panel('op-stats'), h = panel('hlo-op-stats');
    if (!t && !h) { na(body, 'no framework ops (or the op-stats plugin did not run)'); return; }
    body.appendChild(el('p', {'class': 'note'}, 'Per framework op over every rank: host time and the device time of ' +
      'the work it launched ' + kindTag('measured') + '; a Python file:line opens in VS Code. Click a header to sort.'));
    if (t) body.appendChild(sortableTable(t, ['kind', 'name', 'calls', 'host_total', 'host_self', 'host_mean', 'device_total',
      'device_self', 'launched', 'call_site', 'call_sites'], 'ops-table'));
    if (h) {
      body.appendChild(el('h3', null, 'HLO ops'));
      body.appendChild(sortableTable(h, ['module', 'hlo_op', 'opcode', 'op_name', 'shape', 'source', 'kernels', 'device_total',
        'kernels_exact', 'kernels_inferred'], 'hlo-ops-table'));
    }
  }

  // Every derived table the sections above do not draw (no panel with
  // columns of its own), collapsed.
  function drawn(n) { var p = D.panels && D.panels[D.tables[n].view]; return !!(p && p.length); }
  function renderOtherTables(body) {
    var names = Object.keys(D.tables || {}).filter(function (n) { return !drawn(n); }).sort();
    var shown = 0;
    names.forEach(function (n) {
      var t = table(n);
      if (!t) return;
      shown++;
      var det = el('details', {'class': 'other-table'});
      det.appendChild(el('summary', null, '<b>' + esc(n) + '</b> (' + esc(D.tables[n].plugin) + ', ' + t.total + ' rows)'));
      var filled = false;
      det.addEventListener('toggle', function () {
        if (filled || !det.open) return;
        filled = true;
        det.appendChild(sortableTable(t, t.columns.map(function (c) { return c.name; }), 'table-' + n));
      });
      body.appendChild(det);
    });
    if (!shown) na(body, 'no other derived table has rows');
    else body.insertBefore(el('p', {'class': 'note'}, 'The other tables the plugins published (see each plugin\'s README ' +
      'for the columns); open one to read it, click a header to sort.'), body.firstChild);
  }

  // ---------- checks, trust, reductions ----------
  function renderChecks(body) {
    var c = D.checks || [];
    if (!c.length) { na(body, 'no check was run'); return; }
    var failed = c.filter(function (x) { return x.status === 'failed'; }).length;
    body.appendChild(el('p', null, (c.length - failed) + ' of ' + c.length + ' checks passed' + (failed ? ', <b>' + failed + ' failed</b>' : '') + '.'));
    body.appendChild(el('div', {'class': 'table-wrap'}, '<table class="data" id="checks-table"><tr><th>status</th><th>by</th><th>check</th><th>detail</th></tr>' +
      c.map(function (x) {
        var cls = x.status === 'n/a' ? 'na' : x.status;
        return '<tr><td class="status-' + cls + '">' + (x.status === 'passed' ? '✔ passed' : x.status === 'failed' ? '✘ failed' : '– n/a') +
          '</td><td>' + esc(x.source) + '</td><td>' + esc(x.name) + '</td><td>' + linkify(x.detail) + '</td></tr>';
      }).join('') + '</table>'));
  }
  function renderTrust(body) {
    var t = D.trust || [];
    body.appendChild(el('p', null, 'Where this trace cannot be trusted, and how much (defects counted while reading; nothing is dropped silently).'));
    if (!t.length) body.appendChild(el('p', null, 'No defect found while reading.'));
    else body.appendChild(el('table', {'class': 'data', id: 'trust-table'}, '<tr><th>severity</th><th class="num">count</th><th>what</th><th>first seen</th></tr>' +
      t.map(function (x) {
        return '<tr><td>' + esc(x.severity) + '</td><td class="num">' + x.count + '</td><td>' + esc(x.what) + '</td><td class="name">' + esc(x.example || '') + '</td></tr>';
      }).join('')));
    var p = D.plugins || [];
    if (p.length) {
      body.appendChild(el('h3', null, 'Plugins that ran'));
      body.appendChild(el('table', {'class': 'data'}, '<tr><th>plugin</th><th>version</th><th>status</th><th class="num">time</th></tr>' +
        p.map(function (x) {
          var skipped = (x.skipped || []).map(function (k) {
            return '; skipped rank ' + k.rank + ': ' + esc(k.reason);
          }).join('');
          return '<tr><td>' + esc(x.id) + '</td><td>' + esc(x.version) + '</td><td>' + (x.ok ? 'ok' : '<b>failed</b>: ' + esc(x.error)) +
            skipped + '</td><td class="num">' + fmtNum(x.seconds) + ' s</td></tr>';
        }).join('')));
    }
    var t = D.timing;
    if (t) {
      var rows = [['import', t.import_seconds], ['kernel classes and catalogs', t.facts_seconds],
        ['plugins (' + p.length + ', ' + fmtNum(t.plugins_summed_seconds) + ' s summed)', t.plugins_seconds]];
      (t.outputs || []).forEach(function (o) { rows.push([o.type + ' ' + (o.path || 'output'), o.seconds]); });
      body.appendChild(el('h3', null, 'Where the time went'));
      body.appendChild(el('p', {'class': 'note'}, 'Wall-clock seconds, measured; the plugins run at the same time where their tables allow; the outputs written before this page.'));
      body.appendChild(el('table', {'class': 'data', id: 'timing-table'}, '<tr><th>phase</th><th class="num">time</th></tr>' +
        rows.map(function (x) { return '<tr><td>' + esc(x[0]) + '</td><td class="num">' + fmtNum(x[1]) + ' s</td></tr>'; }).join('')));
    }
  }
  function renderReductions(body) {
    var r = D.reductions || [];
    if (!r.length) body.appendChild(el('p', null, 'Nothing: every event of the shown step, every allocator event and every table row is in this report.'));
    else body.appendChild(el('ul', {'class': 'reductions'}, r.map(function (x) { return '<li>' + esc(x) + '</li>'; }).join('')));
  }

  // ---------- main ----------
  skeleton();
  (D.findings || []).forEach(function (f) { findingById[f.id] = f; });
  var renderers = {verdict: renderVerdict, findings: renderFindings, breakdown: renderBreakdown, swimlane: Swim.render,
    efficiency: renderEfficiency, stragglers: renderStragglers, memory: renderMemory, kernels: renderKernels, ops: renderOps,
    tables: renderOtherTables,
    checks: renderChecks, trust: renderTrust, reductions: renderReductions};
  SECTIONS.forEach(function (s) {
    try {
      renderers[s[0]](bodies[s[0]]);
    } catch (e) {
      bodies[s[0]].appendChild(el('p', {'class': 'na'}, 'This section could not be drawn: ' + esc(e && e.message)));
      console.error('tracehound report: section ' + s[0] + ': ' + (e && e.stack || e));
    }
  });
  window.tracehoundReport = {swimlane: Swim, data: D};
  document.body.setAttribute('data-ready', '1');
})();
