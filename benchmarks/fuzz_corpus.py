#!/usr/bin/env python3
"""Seed corpora for the libFuzzer targets (tests/fuzz), made from ../shared/data.

Nothing here is committed: the seeds are cut from the real traces at run time
(small pieces fuzz fast) or built by hand (small XSpace and HLO protos).

    benchmarks/fuzz_corpus.py OUT_DIR [SHARED_DATA]

writes OUT_DIR/<target>/* for kineto_json, xspace, hlo, archive and
pipeline_yaml. Standard library only.
"""
import gzip
import io
import json
import os
import struct
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def read_maybe_gz(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


# ---- Kineto / Chrome-trace JSON: the top-level keys and a few events ----

def kineto_pieces(path):
    """Small documents from one trace: its top-level keys with events from the
    start, the middle and around kernels (the launch/flow/kernel triangle)."""
    try:
        doc = json.loads(read_maybe_gz(path))
    except (ValueError, OSError):
        return []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return []
    events = doc["traceEvents"]
    top = {k: v for k, v in doc.items() if k != "traceEvents"}
    picks = [events[:12], events[len(events) // 2:len(events) // 2 + 12]]
    kernels = [i for i, e in enumerate(events)
               if isinstance(e, dict) and e.get("cat") in ("kernel", "gpu_memcpy", "ac2g")]
    if kernels:
        k = kernels[len(kernels) // 2]
        picks.append(events[max(0, k - 6):k + 6])
    pieces = []
    for evs in picks:
        piece = dict(top)
        piece["traceEvents"] = evs
        text = json.dumps(piece, separators=(",", ":")).encode()
        if len(text) <= 16384:
            pieces.append(text)
    return pieces


def kineto_corpus(data, out):
    n = 0
    for root, _, files in sorted(os.walk(data)):
        if "expected" in root.split(os.sep):
            continue
        for name in sorted(files):
            if not (name.endswith(".json") or name.endswith(".json.gz")):
                continue
            for i, piece in enumerate(kineto_pieces(os.path.join(root, name))):
                n += 1
                write(os.path.join(out, f"seed{n:04d}.json"), piece)
                if i == 0 and n % 4 == 0:  # some gzip members, for the streaming path
                    write(os.path.join(out, f"seed{n:04d}.json.gz"), gzip.compress(piece, 6))
    # Shapes the real traces do not show: a plain array, NaN, escapes, B/E.
    write(os.path.join(out, "array.json"),
          b'[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":9}')
    write(os.path.join(out, "literals.json"),
          b'{"traceEvents":[{"ph":"X","name":"k\\u00e9\\ud83d\\ude00","pid":"1","tid":1,'
          b'"ts":1.5,"dur":2e1,"args":{"a":NaN,"b":[1,{"c":null}],"s":"\\n\\t"}}]}')
    return n + 2


# ---- protobuf wire format, by hand ----

def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def field_double(num, v):
    return varint((num << 3) | 1) + struct.pack("<d", v)


def stat(metadata_id, value):
    body = field_varint(1, metadata_id)
    if isinstance(value, float):
        body += field_double(2, value)
    elif isinstance(value, str):
        body += field_bytes(5, value)
    elif isinstance(value, tuple):  # ("ref", id)
        body += field_varint(7, value[1])
    else:
        body += field_varint(4, value)
    return body


def hlo_module():
    shape = field_varint(2, 11) + field_bytes(3, varint(2) + varint(3)) + \
        field_bytes(5, field_bytes(1, varint(1) + varint(0)))
    md = field_bytes(1, "add") + field_bytes(2, "jit(f)/add") + field_bytes(3, "/src/model.py") + \
        field_varint(4, 42)
    p0 = field_bytes(1, "p0") + field_bytes(2, "parameter") + field_bytes(3, shape) + field_varint(35, 1)
    fusion = field_bytes(1, "fusion.1") + field_bytes(2, "fusion") + field_bytes(3, shape) + \
        field_bytes(7, md) + field_varint(35, 2) + field_bytes(36, varint(1))
    comp = field_bytes(1, "main") + field_bytes(2, p0) + field_bytes(2, fusion) + \
        field_varint(5, 9) + field_varint(6, 2)
    return field_bytes(1, "jit_f") + field_bytes(2, "main") + field_bytes(3, comp) + \
        field_varint(5, 5) + field_varint(6, 9)


def xspace_gpu(with_hlo):
    stat_names = {1: "correlation_id", 2: "hlo_op", 3: "hlo_module", 4: "program_id",
                  5: "device_id", 6: "memcpy_details"}
    smeta = b"".join(
        field_bytes(5, field_varint(1, k) + field_bytes(2, field_varint(1, k) + field_bytes(2, v)))
        for k, v in stat_names.items())
    emeta = b"".join(
        field_bytes(4, field_varint(1, k) + field_bytes(2, field_varint(1, k) + field_bytes(2, v)))
        for k, v in {1: "fusion_kernel", 2: "MemcpyH2D", 3: "cudaLaunchKernel"}.items())
    events = b""
    for i in range(3):
        ev = field_varint(1, 1) + field_varint(2, 1000 * i) + field_varint(3, 500) + \
            field_bytes(4, stat(1, 7 + i)) + field_bytes(4, stat(2, "fusion.1")) + \
            field_bytes(4, stat(3, "jit_f")) + field_bytes(4, stat(4, 5))
        events += field_bytes(4, ev)
    line = field_varint(1, 1) + field_bytes(2, "Stream #1(Compute)") + field_varint(3, 1000) + events
    gpu = field_varint(1, 1) + field_bytes(2, "/device:GPU:0") + field_bytes(3, line) + emeta + smeta
    host_events = b"".join(
        field_bytes(4, field_varint(1, 3) + field_varint(2, 900 * i) + field_varint(3, 50) +
                    field_bytes(4, stat(1, 7 + i))) for i in range(3))
    host_line = field_varint(1, 2) + field_bytes(2, "python") + field_varint(3, 1000) + host_events
    host = field_varint(1, 2) + field_bytes(2, "/host:CPU") + field_bytes(3, host_line) + emeta + smeta
    space = field_bytes(1, gpu) + field_bytes(1, host) + field_bytes(4, "fuzzhost")
    if with_hlo:
        meta_smeta = field_bytes(5, field_varint(1, 1) + field_bytes(2, field_varint(1, 1) +
                                                                      field_bytes(2, "Hlo Proto")))
        meta_emeta = field_bytes(4, field_varint(1, 5) + field_bytes(
            2, field_varint(1, 5) + field_bytes(2, "jit_f(5)") +
            field_bytes(5, field_varint(1, 1) + field_bytes(6, hlo_module()))))
        meta = field_varint(1, 3) + field_bytes(2, "/host:metadata") + meta_emeta + meta_smeta
        space += field_bytes(1, meta)
    return space


def xspace_tpu():
    smeta = field_bytes(5, field_varint(1, 1) + field_bytes(2, field_varint(1, 1) +
                                                            field_bytes(2, "program_id")))
    emeta = field_bytes(4, field_varint(1, 1) + field_bytes(2, field_varint(1, 1) +
                                                            field_bytes(2, "fusion.3")))
    events = b"".join(field_bytes(4, field_varint(1, 1) + field_varint(2, 2000 * i) +
                                  field_varint(3, 1500) + field_bytes(4, stat(1, 5)))
                      for i in range(4))
    ops = field_varint(1, 1) + field_bytes(2, "XLA Ops") + field_varint(3, 10) + events
    mods = field_varint(1, 2) + field_bytes(2, "XLA Modules") + field_varint(3, 10) + events
    steps = field_varint(1, 3) + field_bytes(2, "Steps") + field_varint(3, 10) + events
    tpu = field_varint(1, 1) + field_bytes(2, "/device:TPU:0") + field_bytes(3, ops) + \
        field_bytes(3, mods) + field_bytes(3, steps) + emeta + smeta
    return field_bytes(1, tpu)


def protobuf_corpora(data, xspace_out, hlo_out):
    write(os.path.join(xspace_out, "gpu.xplane.pb"), xspace_gpu(False))
    write(os.path.join(xspace_out, "gpu_hlo.xplane.pb"), xspace_gpu(True))
    write(os.path.join(xspace_out, "tpu.xplane.pb"), xspace_tpu())
    write(os.path.join(hlo_out, "module.hlo_proto.pb"), hlo_module())
    write(os.path.join(hlo_out, "wrapped.hlo_proto.pb"), field_bytes(1, hlo_module()))
    nx, nh = 3, 2
    for root, _, files in sorted(os.walk(data)):
        for name in sorted(files):
            path = os.path.join(root, name)
            size = os.path.getsize(path)
            if name.endswith(".xplane.pb") and size <= 320 * 1024 and "corrupt" not in root:
                nx += 1
                write(os.path.join(xspace_out, f"real{nx:03d}.xplane.pb"), open(path, "rb").read())
            elif name.endswith(".hlo_proto.pb") and size <= 64 * 1024:
                nh += 1
                write(os.path.join(hlo_out, f"real{nh:03d}.hlo_proto.pb"), open(path, "rb").read())
    return nx, nh


# ---- archives of ranks ----

def archive_corpus(kineto_dir, out):
    seeds = sorted(f for f in os.listdir(kineto_dir) if f.endswith(".json"))[:3]
    members = [(f"rank{i}.json", open(os.path.join(kineto_dir, s), "rb").read()[:4096])
               for i, s in enumerate(seeds)]
    for mode, name in (("w:gz", "ranks.tar.gz"), ("w", "ranks.tar")):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode=mode) as tar:
            for member, body in members:
                info = tarfile.TarInfo(member)
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
            link = tarfile.TarInfo("link.json")
            link.type = tarfile.SYMTYPE
            link.linkname = "rank0.json"
            tar.addfile(link)
            hard = tarfile.TarInfo("hard.json")
            hard.type = tarfile.LNKTYPE
            hard.linkname = "rank0.json"
            tar.addfile(hard)
            fifo = tarfile.TarInfo("pipe.json")
            fifo.type = tarfile.FIFOTYPE
            tar.addfile(fifo)
        write(os.path.join(out, name), buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member, body in members:
            z.writestr(member, body)
        z.writestr("rank9.json.gz", gzip.compress(members[0][1]))
    write(os.path.join(out, "ranks.zip"), buf.getvalue())
    return 3


# ---- YAML pipelines ----

def yaml_corpus(out):
    n = 0
    configs = os.path.join(REPO, "configs")
    for name in sorted(os.listdir(configs)):
        if name.endswith(".yaml"):
            n += 1
            write(os.path.join(out, name), open(os.path.join(configs, name), "rb").read())
    extra = {
        "anchors.yaml": b"version: 1\nd: &d {threshold_us: 250}\nplugins:\n  long-kernels: *d\n",
        "env.yaml": b"version: 1\ninputs: [\"${env:TRACE_DIR:-traces}/*.json\"]\n"
                    b"execution: {backend: cpu, threads: 4}\nfail_on: P1\n",
        "set.yaml": b"--set plugins.stragglers.min_ranks=4\nversion: 1\nplugins:\n  stragglers: {}\n",
        "outputs.yaml": b"version: 1\noutputs:\n  - {type: markdown, path: r.md}\n"
                        b"  - {type: json, path: f.json}\n",
    }
    for name, body in extra.items():
        n += 1
        write(os.path.join(out, name), body)
    return n


# ---- the hardening issue's Part A inputs, as regression seeds ----

def regression_seeds(out):
    """Each known defect of Part A as an input, so every fuzz run replays it
    under ASan + UBSan (the unit tests check the exact behaviour)."""
    def events(third):
        evs = [b'{"ph":"X","name":"k%d","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"a":1}}' % (i, 10 * i)
               for i in range(10)]
        evs[2] = third
        return b'{"traceEvents":[' + b",".join(evs) + b"]}"
    k = os.path.join(out, "kineto_json")
    for name, args in {"args_trailing_comma": b'{"a":1,}', "args_missing_comma": b'{"a":1 0}',
                       "args_7f": b'{"a":1\x7f}', "args_nul": b'{"a":1\x00}',
                       "args_nan": b'{"a":NaN}', "args_bad_escape": b'{"a":"x\\q"}'}.items():
        write(os.path.join(k, f"partA_{name}.json"),
              events(b'{"ph":"X","name":"k2","pid":1,"tid":1,"ts":20,"dur":5,"args":' + args + b"}"))
    write(os.path.join(k, "partA_comment.json"),
          events(b'{"ph":"X","name":"k2","pid":1,"tid":1,"ts":20,"dur":5} /* c */'))
    write(os.path.join(k, "partA_ff.json"), b"\xff\xfe not a trace")
    write(os.path.join(k, "partA_whitespace.json.gz"),
          gzip.compress(b'{"traceEvents":[' + events(b"{}")[16:-2] + b"," + b" " * (1 << 20) +
                        b'{"ph":"i","name":"x","pid":1,"tid":1,"ts":1}]}', 9))
    y = os.path.join(out, "pipeline_yaml")
    write(os.path.join(y, "partA_self_alias.yaml"), b"&a [*a]")
    bomb = b"version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x]\n"
    for n in range(1, 10):
        bomb += b"a%d: &a%d [%s]\n" % (n, n, b", ".join([b"*a%d" % (n - 1)] * 9))
    write(os.path.join(y, "partA_alias_bomb.yaml"), bomb + b"inputs: *a9\n")
    write(os.path.join(y, "partA_set_alias.yaml"), b"--set plugins.kernel-stats.top=&a [*a]\nversion: 1\n")
    # A tuple shape nested 50,000 deep (built inside out, sizes first).
    depth = 50000
    inner = field_varint(2, 11)
    sizes = [len(inner)]
    for _ in range(depth):
        sizes.append(2 + 1 + len(varint(sizes[-1])) + sizes[-1])
    shape = bytearray()
    for k_ in range(depth, 0, -1):
        shape += field_varint(2, 13) + varint((4 << 3) | 2) + varint(sizes[k_ - 1])
    shape += inner
    ins = field_bytes(1, "deep") + field_bytes(2, "tuple") + field_bytes(3, bytes(shape))
    module = field_bytes(1, "deep") + field_bytes(2, "main") + \
        field_bytes(3, field_bytes(1, "main") + field_bytes(2, ins))
    write(os.path.join(out, "hlo", "partA_deep_tuple.hlo_proto.pb"), module)
    return 13


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(REPO, "..", "shared", "data")
    if not os.path.isdir(data):
        print(f"fuzz_corpus: {data} is absent: only the hand-made seeds are written", file=sys.stderr)
        data = os.path.join(out, ".no-data")
        os.makedirs(data, exist_ok=True)
    k = kineto_corpus(data, os.path.join(out, "kineto_json"))
    nx, nh = protobuf_corpora(data, os.path.join(out, "xspace"), os.path.join(out, "hlo"))
    a = archive_corpus(os.path.join(out, "kineto_json"), os.path.join(out, "archive"))
    y = yaml_corpus(os.path.join(out, "pipeline_yaml"))
    r = regression_seeds(out)
    print(f"fuzz corpora in {out}: kineto_json {k}, xspace {nx}, hlo {nh}, archive {a}, "
          f"pipeline_yaml {y}, Part A regressions {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
