"""On demand and continuous: workers running tracehound.capture.serve, driven
over loopback by `tracehound capture`."""

import json
import os

import pytest

from capture_support import finish, read_json, start_worker, step_numbers, tracehound, wait_for


@pytest.fixture
def workers(tmp_path, request):
    """Two serving workers (ranks 0 and 1); request.param: ring size (0: none)."""
    state = str(tmp_path / "state")
    os.makedirs(state)
    procs = [start_worker("serve", state, r, 2, request.param) for r in range(2)]
    try:
        for r in range(2):
            wait_for(os.path.join(state, "port%d" % r), procs)
        ports = [open(os.path.join(state, "port%d" % r)).read() for r in range(2)]
        yield state, ["127.0.0.1:" + p for p in ports], procs
    finally:
        open(os.path.join(state, "stop"), "w").close()
        finish(procs)


@pytest.mark.parametrize("workers", [0], indirect=True)
def test_trigger_captures_exactly_n_steps_from_both(workers, tmp_path):
    state, endpoints, procs = workers
    out = str(tmp_path / "run")
    r = tracehound("capture", *endpoints, "--steps", "4", "--out", out, "--timeout", "60")
    assert "captured 4 steps of 2 workers" in r.stdout
    for rank in range(2):
        m = read_json(os.path.join(out, "rank%d.tracehound-manifest.json" % rank))
        assert (m["rank"], m["world_size"], m["mode"], m["steps"]) == (rank, 2, "on_demand", 4)
        steps = step_numbers(os.path.join(out, "rank%d.trace.json" % rank))
        assert len(steps) == 4
        assert steps == list(range(m["first_step"], m["first_step"] + 4))
    info = json.loads(tracehound("info", "--json", out).stdout)
    assert info["ranks"] == 2
    assert [t["profiler_step_events"] for t in info["traces"]] == [4, 4]

    # A second capture into the same folder is refused, nothing overwritten.
    again = tracehound("capture", *endpoints, "--steps", "1", "--out", out, check=False)
    assert again.returncode == 2 and "exists already" in again.stderr


@pytest.mark.parametrize("workers", [5], indirect=True)
def test_snapshot_after_20_steps_holds_the_last_n(workers, tmp_path):
    state, endpoints, procs = workers
    for r in range(2):
        wait_for(os.path.join(state, "done%d" % r), procs)
    out = str(tmp_path / "snap")
    tracehound("capture", *endpoints, "--snapshot", "--out", out)
    for rank in range(2):
        m = read_json(os.path.join(out, "rank%d.tracehound-manifest.json" % rank))
        assert (m["mode"], m["steps"], m["first_step"]) == ("snapshot", 5, 15)
        assert step_numbers(os.path.join(out, "rank%d.trace.json" % rank)) == [15, 16, 17, 18, 19]


def test_not_a_capture_server_is_named(tmp_path):
    import http.server
    import threading

    class Plain(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Plain)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        r = tracehound("capture", "127.0.0.1:%d" % httpd.server_address[1], "--steps", "1",
                       "--out", str(tmp_path / "x"), check=False)
    finally:
        httpd.shutdown()
    assert r.returncode == 2
    assert "not a tracehound.capture server" in r.stderr
    assert not os.path.exists(str(tmp_path / "x"))


def test_an_http2_only_server_is_named_as_jax_profiler_server(tmp_path):
    """JAX's profiler server speaks gRPC (HTTP/2 only); JAX is not installed
    here, so a listener that answers the HTTP/2 preface with a SETTINGS frame
    stands in for it."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)

    def answer():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                conn.sendall(b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")  # empty SETTINGS

    threading.Thread(target=answer, daemon=True).start()
    try:
        r = tracehound("capture", "127.0.0.1:%d" % listener.getsockname()[1], "--steps", "1",
                       "--out", str(tmp_path / "x"), check=False)
    finally:
        listener.close()
    assert r.returncode == 2
    assert "likely JAX's profiler server (jax.profiler.start_server)" in r.stderr, r.stderr
    assert not os.path.exists(str(tmp_path / "x"))


def test_bad_arguments_and_a_job_that_does_not_step(tmp_path):
    import tracehound.capture as thc

    out = str(tmp_path / "x")
    r = tracehound("capture", "127.0.0.1:http", "--steps", "1", "--out", out, check=False)
    assert r.returncode == 2 and "the port is not a number from 1 to 65535" in r.stderr
    r = tracehound("capture", "127.0.0.1:1", "--steps", "1", "--snapshot", "--out", out,
                   check=False)
    assert r.returncode == 2 and "give either --steps N or --snapshot" in r.stderr

    cap = thc.serve(port=0)  # served, but the loop never calls step()
    try:
        endpoint = "127.0.0.1:%d" % cap.server.port
        r = tracehound("capture", endpoint, "--steps", "2", "--timeout", "1", "--out", out,
                       check=False)
        assert r.returncode == 2
        assert "the job ran 0 of 2 steps in 1 s (nothing written)" in r.stderr, r.stderr
        r = tracehound("capture", endpoint, "--snapshot", "--out", out, check=False)
        assert r.returncode == 2
        assert "no ring buffer (serve(ring_steps=N) keeps one)" in r.stderr, r.stderr
    finally:
        cap.close()
    assert not os.path.exists(out)
