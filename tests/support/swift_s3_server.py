#!/usr/bin/python3
"""A loopback OpenStack Swift with its S3 middleware (s3api + tempauth), for tests.

  swift_s3_server.py start DIR   writes configs and rings under DIR, starts the
                                 proxy, account, container and object servers,
                                 waits until the proxy answers, prints
                                 "port=N pids=A,B,C,D" and exits (servers keep running)
  swift_s3_server.py put DIR BUCKET KEY=FILE...
                                 stores each FILE as BUCKET/KEY (bucket created when
                                 missing) through Swift's internal client, which
                                 bypasses auth: the S3 side is only ever read
  swift_s3_server.py copies DIR BUCKET PREFIX COUNT FILE
                                 stores FILE COUNT times, as BUCKET/PREFIXrNNNNN/rank0.json
                                 (a fleet's worth of keys for the listing benchmark)
  swift_s3_server.py public DIR BUCKET
                                 lets anyone read BUCKET's objects over Swift's own
                                 API (/v1/AUTH_test/BUCKET/KEY): plain http:// inputs
  swift_s3_server.py serve DIR KIND   (internal) runs one server in the foreground

S3 credentials: access key "test:tester", secret "testing" (tempauth's user).
s3api checks every request's AWS Signature Version 4 against that secret, in
region "auto" (Cloud Storage's, so that gs:// inputs with HMAC keys are read too).
Nothing is written outside DIR; /etc/swift is never read (swift_dir = DIR).
"""
import os
import socket
import subprocess
import sys
import time
import urllib.request

KINDS = ("account", "container", "object")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def use_swift_dir(root):
    from swift.common import utils
    from swift.common import storage_policy
    utils.set_swift_dir(root)
    storage_policy.reload_storage_policies()


def write_configs(root):
    ports = {k: free_port() for k in ("proxy",) + KINDS}
    os.makedirs(os.path.join(root, "srv", "d1"), exist_ok=True)
    with open(os.path.join(root, "swift.conf"), "w") as f:
        f.write("[swift-hash]\nswift_hash_path_suffix = tracehound\n"
                "swift_hash_path_prefix = tracehound\n"
                "[storage-policy:0]\nname = gold\ndefault = yes\n")
    common = ("[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = {port}\nworkers = 0\n"
              "swift_dir = {root}\ndevices = {root}/srv\nmount_check = false\n"
              "disable_fallocate = true\nlog_level = ERROR\nlog_address = {root}/nolog\n")
    for kind in KINDS:
        with open(os.path.join(root, kind + "-server.conf"), "w") as f:
            f.write(common.format(port=ports[kind], root=root))
            f.write("[pipeline:main]\npipeline = {k}-server\n"
                    "[app:{k}-server]\nuse = egg:swift#{k}\n".format(k=kind))
            if kind == "container":
                f.write("[container-sync]\n")
    with open(os.path.join(root, "proxy-server.conf"), "w") as f:
        f.write(common.format(port=ports["proxy"], root=root))
        f.write("[pipeline:main]\n"
                "pipeline = catch_errors proxy-logging cache s3api tempauth proxy-logging "
                "proxy-server\n"
                "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n"
                "[filter:catch_errors]\nuse = egg:swift#catch_errors\n"
                "[filter:proxy-logging]\nuse = egg:swift#proxy_logging\n"
                # No memcached: tempauth's S3 path only needs the middleware.
                "[filter:cache]\nuse = egg:swift#memcache\n"
                "memcache_servers = 127.0.0.1:{nomc}\n"
                # Region "auto": what Cloud Storage's XML API signs with (gs://
                # inputs with HMAC keys); the S3 tests sign with AWS_REGION=auto.
                "[filter:s3api]\nuse = egg:swift#s3api\nlocation = auto\n"
                "max_upload_part_num = 1000\n"
                "[filter:tempauth]\nuse = egg:swift#tempauth\n"
                "user_test_tester = testing .admin\n".format(nomc=free_port()))
    with open(os.path.join(root, "internal-client.conf"), "w") as f:
        f.write("[DEFAULT]\nswift_dir = {root}\nlog_address = {root}/nolog\n"
                "[pipeline:main]\npipeline = catch_errors proxy-server\n"
                "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n"
                "[filter:catch_errors]\nuse = egg:swift#catch_errors\n".format(root=root))
    use_swift_dir(root)
    from swift.common.ring import RingBuilder
    for kind in KINDS:
        b = RingBuilder(4, 1, 0)
        b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1",
                   "port": ports[kind], "device": "d1", "weight": 1})
        b.rebalance()
        b.get_ring().save(os.path.join(root, kind + ".ring.gz"))
    return ports["proxy"]


def start(root):
    root = os.path.abspath(root)
    port = write_configs(root)
    pids = []
    log = open(os.path.join(root, "servers.log"), "ab")
    for kind in ("proxy",) + KINDS:
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", root, kind],
                             stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        pids.append(p.pid)
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/info" % port, timeout=2).read()
            break
        except Exception:
            if time.time() > deadline:
                for pid in pids:
                    try:
                        os.kill(pid, 15)
                    except OSError:
                        pass
                sys.exit("swift proxy did not answer within 60 s; see %s/servers.log" % root)
            time.sleep(0.1)
    print("port=%d pids=%s" % (port, ",".join(map(str, pids))), flush=True)


def serve(root, kind):
    use_swift_dir(root)
    from swift.common.wsgi import run_wsgi
    sys.exit(run_wsgi(os.path.join(root, kind + "-server.conf"), kind + "-server"))


def client(root):
    use_swift_dir(root)
    from swift.common.internal_client import InternalClient
    return InternalClient(os.path.join(root, "internal-client.conf"), "tracehound-tests", 3)


def put(root, bucket, pairs):
    c = client(root)
    c.create_container("AUTH_test", bucket)
    for pair in pairs:
        key, path = pair.split("=", 1)
        with open(path, "rb") as f:
            c.upload_object(f, "AUTH_test", bucket, key)


def copies(root, bucket, prefix, count, path):
    import io
    c = client(root)
    c.create_container("AUTH_test", bucket)
    with open(path, "rb") as f:
        data = f.read()
    for i in range(count):
        c.upload_object(io.BytesIO(data), "AUTH_test", bucket, "%sr%05d/rank0.json" % (prefix, i))


def public(root, bucket):
    c = client(root)
    c.create_container("AUTH_test", bucket)
    # Straight to the container server: the proxy keeps ACL headers only from
    # an authenticated user, and the internal client has none.
    from swift.common.direct_client import direct_put_container
    from swift.common.ring import Ring
    from swift.common.utils import Timestamp
    part, nodes = Ring(root, ring_name="container").get_nodes("AUTH_test", bucket)
    for node in nodes:
        direct_put_container(node, part, "AUTH_test", bucket,
                             headers={"X-Container-Read": ".r:*",
                                      "X-Timestamp": Timestamp.now().internal})


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "start" and len(sys.argv) == 3:
        start(sys.argv[2])
    elif cmd == "serve" and len(sys.argv) == 4:
        serve(sys.argv[2], sys.argv[3])
    elif cmd == "put" and len(sys.argv) >= 5:
        put(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "copies" and len(sys.argv) == 7:
        copies(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
    elif cmd == "public" and len(sys.argv) == 4:
        public(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
