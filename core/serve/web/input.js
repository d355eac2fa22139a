// Mouse and keyboard: W/S zoom, A/D pan, 1-4 pick the tool (select, pan,
// zoom, timing), f frames the selection, m marks it, v toggles flows, Esc clears; drags by
// tool; the wheel scrolls lanes (Ctrl+wheel zooms, Shift+wheel pans).
import {HEADER_H, LABEL_W} from './timeline.js';

const ZOOM_IN = 0.8, PAN = 0.15;
const TOOL_KEYS = {'1': 'select', '!': 'select', '2': 'pan', '@': 'pan', '3': 'zoom', '#': 'zoom', '4': 'timing', '$': 'timing'};

export function attachInput(v, canvas) {
  const pos = (e) => { const r = canvas.getBoundingClientRect(); return {x: e.clientX - r.left, y: e.clientY - r.top}; };
  const anchor = () => (v.mouse && v.mouse.x > LABEL_W ? v.timeline.tOf(v.mouse.x) : (v.view.t0 + v.view.t1) / 2);

  window.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (e.altKey || (e.ctrlKey && e.key !== 'Control') || e.metaKey) return;
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (TOOL_KEYS[e.key]) v.setTool(TOOL_KEYS[e.key]);
    else if (k === 'w') v.zoom(ZOOM_IN, anchor());
    else if (k === 's') v.zoom(1 / ZOOM_IN, anchor());
    else if (k === 'a') v.pan(-PAN);
    else if (k === 'd') v.pan(PAN);
    else if (k === 'f') v.frameSelection();
    else if (k === 'm') v.markSelection();
    else if (k === 'v') { document.getElementById('flows').checked = !v.flows.enabled; v.flows.toggle(!v.flows.enabled); }
    else if (k === 'c') v.toggleCriticalPath();
    else if (k === 'r') v.roofline.toggle();
    else if (k === 'Escape') v.clearSelection();
    else return;
    e.preventDefault();
  });

  canvas.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    const p = pos(e);
    canvas.focus();
    const t = v.timeline.tOf(p.x);
    v.drag = {tool: v.tool, x: p.x, y: p.y, t0: t, t1: t, view: {...v.view}, scrollY: v.scrollY, moved: false,
      band: false, ctrl: e.ctrlKey || e.metaKey};
  });
  window.addEventListener('mousemove', (e) => {
    const p = pos(e);
    v.mouse = p;
    const d = v.drag;
    if (!d) { v.hover(p); return; }
    if (Math.abs(p.x - d.x) + Math.abs(p.y - d.y) > 3) d.moved = true;
    if (!d.moved) return;
    if (d.tool === 'pan') {
      const dt = (p.x - d.x) * (d.view.t1 - d.view.t0) / v.timeline.plotW;
      v.setView(d.view.t0 - dt, d.view.t1 - dt);
      v.scrollTo(d.scrollY - (p.y - d.y));
    } else if ((d.tool === 'zoom' || d.tool === 'timing') && d.x > LABEL_W) {
      d.band = true;
      d.t1 = v.timeline.tOf(Math.max(LABEL_W, p.x));
      v.requestDraw();
    }
  });
  window.addEventListener('mouseup', (e) => {
    const d = v.drag;
    if (!d) return;
    v.drag = null;
    const p = pos(e);
    if (!d.moved) {
      if (d.y >= HEADER_H) v.click(p.x, p.y, d.ctrl);
    } else if (d.band && Math.abs(d.t1 - d.t0) > 0) {
      const lo = Math.min(d.t0, d.t1), hi = Math.max(d.t0, d.t1);
      if (d.tool === 'zoom') v.setView(lo, hi);
      else v.setMarker(lo, hi);
    }
    v.requestDraw();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const p = pos(e);
    if (e.ctrlKey || e.metaKey) v.zoom(e.deltaY < 0 ? ZOOM_IN : 1 / ZOOM_IN, v.timeline.tOf(Math.max(LABEL_W, p.x)));
    else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) v.pan((e.deltaX || e.deltaY) / v.timeline.plotW);
    else v.scrollTo(v.scrollY + e.deltaY);
  }, {passive: false});
  canvas.addEventListener('mouseleave', () => { v.mouse = null; v.hover(null); });
}
