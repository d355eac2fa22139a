// The "share" button: asks the server for a read-only share token for the
// open run (GET /api/v1/share, which only the admin token may ask) and shows
// the link: the token in the query, the run's content key, the view and the
// selected ids in the hash. Nothing of the trace (names, search text) goes
// into it.
import {getJson, tokenKind} from './api.js';
import {el} from './dom.js';

export function shareUrl(token, key, hash) {
  const rest = hash.replace(/^#/, '');
  return location.origin + '/?token=' + encodeURIComponent(token) + '#key=' + key + (rest ? '&' + rest : '');
}

export function attachShare(viewer, button, pane) {
  // Only the admin token signs links; a share link cannot share further.
  button.hidden = tokenKind() !== 'admin';
  button.addEventListener('click', () => viewer.guard((async () => {
    const expires = '7d';
    const answer = await getJson('share', {runs: viewer.run, expires});
    viewer.writeHashNow();
    const url = shareUrl(answer.token, answer.runs[0], location.hash);
    const box = el('input', {id: 'share-url', type: 'text', readonly: true, value: url});
    pane.replaceChildren(el('h3', {}, 'Share link'),
      el('p', {class: 'note'}, 'Read-only, this run only, until ' + answer.expires_utc +
        '. Revoke it with: tracehound serve --revoke ' + answer.id),
      box);
    box.select();
    if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  })()));
}
