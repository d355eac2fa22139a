// Placeholder viewer: lists the runs the server holds (the real viewer replaces this file).
'use strict';
(function () {
  var token = new URLSearchParams(location.search).get('token');
  var headers = token ? {Authorization: 'Bearer ' + token} : {};
  fetch('api/v1/runs', {headers: headers})
    .then(function (r) { return r.json(); })
    .then(function (j) { document.getElementById('runs').textContent = JSON.stringify(j, null, 2); });
})();
