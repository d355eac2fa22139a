"""The on-demand capture server a job starts with tracehound.capture.serve().

HTTP/1.1 on a daemon thread (the standard library's server):
  GET  /tracehound/capture                  → the worker's facts (JSON)
  POST /tracehound/capture/steps?n=N&timeout_s=T
                                            → waits for the next N steps; their manifest
  POST /tracehound/capture/snapshot         → the ring buffer's steps; their manifest
  GET  /tracehound/capture/trace?id=ID      → a capture's trace (JSON bytes)
Errors are JSON {"error": "..."}: 400 bad request, 404 unknown, 409 busy,
504 the job did not run the steps in time.
"""

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ._session import CaptureBusy, CaptureTimeout

PREFIX = "/tracehound/capture"


def _handler(session):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet: the job's own output stays its own
            pass

        def _send(self, code, body, content_type="application/json"):
            if isinstance(body, (dict, list)):
                body = json.dumps(body, sort_keys=True).encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _route(self):
            url = urllib.parse.urlsplit(self.path)
            return url.path.rstrip("/"), dict(urllib.parse.parse_qsl(url.query))

        def do_GET(self):  # noqa: N802 (http.server's name)
            path, q = self._route()
            if path == PREFIX:
                return self._send(200, session.info())
            if path == PREFIX + "/trace":
                got = session.result(q.get("id", ""))
                if got is None:
                    return self._send(404, {"error": "no capture with id %r" % q.get("id")})
                return self._send(200, got[1])
            return self._send(404, {"error": "unknown path %s" % path})

        def do_POST(self):  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            path, q = self._route()
            try:
                if path == PREFIX + "/steps":
                    try:
                        n = int(q.get("n", ""))
                        timeout_s = float(q.get("timeout_s", "300"))
                    except ValueError:
                        return self._send(400, {"error": "n must be an integer, timeout_s a number"})
                    if n < 1:
                        return self._send(400, {"error": "n must be >= 1"})
                    return self._send(200, session.request_window(n, timeout_s))
                if path == PREFIX + "/snapshot":
                    return self._send(200, session.snapshot())
            except CaptureBusy as e:
                return self._send(409, {"error": str(e)})
            except CaptureTimeout as e:
                return self._send(504, {"error": str(e)})
            return self._send(404, {"error": "unknown path %s" % path})

    return Handler


class CaptureServer:
    """A running server; `port` is the bound port (useful with port=0)."""

    def __init__(self, session, host, port):
        self._httpd = ThreadingHTTPServer((host, port), _handler(session))
        self._httpd.daemon_threads = True
        self.host, self.port = self._httpd.server_address[:2]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        name="tracehound-capture", daemon=True)
        self._thread.start()

    def close(self):
        self._httpd.shutdown()
        self._httpd.server_close()
