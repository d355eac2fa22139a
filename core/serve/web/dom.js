// A small DOM builder: el('td', {class: 'x'}, 'text', child...). Text is set
// as text, never parsed as HTML.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// A two-column table of [key, value] pairs.
export function kvTable(pairs, cls) {
  return el('table', {class: cls || 'kv'}, pairs.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v))));
}
