#!/usr/bin/env python3
"""Per-instruction FLOPs, transcendentals and bytes accessed of the HLO modules
in the XSpace captures of ../shared/data, by the rules of XLA's
HloCostAnalysis (xla/service/hlo_cost_analysis.cc; GpuHloCostAnalysis for
cuBLAS GEMM and cuDNN convolution custom-calls), implemented here
independently of tracehound. Writes xla_cost_reference.json.

Run once (Debian: python3-protobuf, protobuf-compiler):
  python3 make_xla_cost_reference.py /path/to/shared/data > xla_cost_reference.json

The HLO protos are read from each capture's /host:metadata plane ("Hlo Proto"
stats) with a proto description written below (field numbers of
xla/service/hlo.proto, xla/xla_data.proto and the XSpace protos), compiled
with protoc into a temporary directory.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

CAPTURES = [
    "tracelens/tests/traces/mi300/jax08_gemm/tw003.xplane.pb",
    "tracelens/tests/traces/mi300/jax08_elementwise/tw003.xplane.pb",
    "tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb",
    "tracelens/tests/traces/mi300/jax_conv_minimal_legacy/"
    "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
    "xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb",
    "tracelens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb",
]

PROTO = r'''
syntax = "proto3";
package ref;
message XSpace { repeated XPlane planes = 1; }
message XPlane { int64 id = 1; string name = 2; map<int64, XEventMetadata> event_metadata = 4;
                 map<int64, XStatMetadata> stat_metadata = 5; }
message XStat { int64 metadata_id = 1; bytes bytes_value = 6; }
message XEventMetadata { int64 id = 1; string name = 2; repeated XStat stats = 5; }
message XStatMetadata { int64 id = 1; string name = 2; }
message HloProto { HloModuleProto hlo_module = 1; }
message HloModuleProto { string name = 1; repeated HloComputationProto computations = 3; int64 id = 5;
                         int64 entry_computation_id = 6; }
message HloComputationProto { string name = 1; repeated HloInstructionProto instructions = 2;
                              int64 id = 5; int64 root_id = 6; }
message LayoutProto { repeated int64 minor_to_major = 1; }
message ShapeProto { int32 element_type = 2; repeated int64 dimensions = 3;
                     repeated ShapeProto tuple_shapes = 4; LayoutProto layout = 5; }
message WindowDimension { int64 size = 1; int64 stride = 2; int64 padding_low = 3; int64 padding_high = 4;
                          int64 window_dilation = 5; int64 base_dilation = 6; bool window_reversal = 7; }
message Window { repeated WindowDimension dimensions = 1; }
message ConvolutionDimensionNumbers { int64 input_batch_dimension = 7; int64 input_feature_dimension = 8;
  repeated int64 input_spatial_dimensions = 11; int64 kernel_input_feature_dimension = 3;
  int64 kernel_output_feature_dimension = 4; repeated int64 kernel_spatial_dimensions = 6;
  int64 output_batch_dimension = 9; int64 output_feature_dimension = 10;
  repeated int64 output_spatial_dimensions = 12; }
message DotDimensionNumbers { repeated int64 lhs_contracting_dimensions = 1;
  repeated int64 rhs_contracting_dimensions = 2; repeated int64 lhs_batch_dimensions = 3;
  repeated int64 rhs_batch_dimensions = 4; }
message HloInstructionProto { string name = 1; string opcode = 2; ShapeProto shape = 3;
  Window window = 15; ConvolutionDimensionNumbers convolution_dimension_numbers = 16;
  string custom_call_target = 28; DotDimensionNumbers dot_dimension_numbers = 30; int64 id = 35;
  repeated int64 operand_ids = 36; repeated int64 called_computation_ids = 38;
  bytes backend_config = 43; int64 feature_group_count = 50; int64 batch_group_count = 58; }
'''

# xla.PrimitiveType -> bits per element (PRED 1 byte as XLA stores it).
BITS = {1: 8, 2: 8, 3: 16, 4: 32, 5: 64, 6: 8, 7: 16, 8: 32, 9: 64, 10: 16, 11: 32, 12: 64,
        15: 64, 16: 16, 18: 128, 19: 8, 20: 8, 23: 8, 24: 8, 25: 8, 28: 8, 29: 8, 33: 8}
TUPLE = 13
POINTER = 8  # GPU shape size function: ByteSizeOf(shape, pointer size 8)

# HLO text spellings (HloOpcodeString): kExp is "exponential", kSin "sine"...
TRANSCENDENTAL = {"exponential", "log", "logistic", "power", "sqrt", "cbrt", "rsqrt", "tanh",
                  "sine", "cosine", "tan", "erf", "atan2", "exponential-minus-one",
                  "log-plus-one"}
ELEMENTWISE = TRANSCENDENTAL | {
    "abs", "add", "and", "ceil", "clamp", "compare", "complex", "convert",
    "count-leading-zeros", "divide", "floor", "imag", "is-finite", "maximum", "minimum",
    "multiply", "negate", "not", "or", "popcnt", "real", "reduce-precision", "remainder",
    "round-nearest-afz", "round-nearest-even", "select", "shift-left",
    "shift-right-arithmetic", "shift-right-logical", "sign", "stochastic-convert", "subtract",
    "xor"}
FREE = {"parameter", "constant", "get-tuple-element", "bitcast"}


def elements(shape):
    return math.prod(shape.dimensions)


def leaf_elements(shape):
    if shape.element_type == TUPLE:
        return sum(leaf_elements(s) for s in shape.tuple_shapes)
    return elements(shape)


def size(shape):
    """HloCostAnalysis::GetShapeSize with the GPU shape size function."""
    if shape.element_type == TUPLE:
        return POINTER * len(shape.tuple_shapes)
    if not shape.HasField("layout"):
        return 0
    return elements(shape) * BITS.get(shape.element_type, 0) // 8


def first_array(shape):
    while shape.element_type == TUPLE and shape.tuple_shapes:
        shape = shape.tuple_shapes[0]
    return shape


def dot_flops(lhs, out, contracting):
    width = math.prod(lhs.dimensions[d] for d in contracting)
    return 2 * elements(out) * width


def conv_flops(ins, lhs, rhs, out):
    d = ins.convolution_dimension_numbers
    fgc = ins.feature_group_count or 1
    bgc = ins.batch_group_count or 1
    positions = 1
    for s, w in enumerate(ins.window.dimensions):
        k_lim = rhs.dimensions[d.kernel_spatial_dimensions[s]]
        o_lim = out.dimensions[d.output_spatial_dimensions[s]]
        i_lim = lhs.dimensions[d.input_spatial_dimensions[s]]
        valid = 0
        for k in range(k_lim):
            for o in range(o_lim):
                undilated = o * w.stride - w.padding_low + k * w.window_dilation
                idx = undilated // w.base_dilation if w.base_dilation > 1 else undilated
                if undilated != idx * max(w.base_dilation, 1):
                    continue
                if 0 <= idx < i_lim:
                    valid += 1
        positions *= valid
    fma = (lhs.dimensions[d.input_feature_dimension] // fgc) * \
        out.dimensions[d.output_feature_dimension] * \
        (lhs.dimensions[d.input_batch_dimension] // bgc) * positions
    return 2 * fma


class Module:
    def __init__(self, proto):
        self.proto = proto
        self.comps = {c.id: c for c in proto.computations}
        self.by_id = {}
        self.users = {}
        for c in proto.computations:
            for i in c.instructions:
                self.by_id[i.id] = i
                for o in i.operand_ids:
                    self.users.setdefault(o, []).append(i)

    def operands(self, ins):
        return [self.by_id[o] for o in ins.operand_ids]

    def sub(self, comp_id):
        """Summed properties of a called computation (reducers, fusion bodies)."""
        f = t = 0
        for i in self.comps[comp_id].instructions:
            c = self.cost(i)
            f += max(c["flops"], 0)
            t += c["transcendentals"]
        return f, t

    def param_read_bytes(self, p):
        """HloCostAnalysis::FusionParameterReadBytes; second value: a special rule applied."""
        total, trivial, special = 0, False, False
        for u in self.users.get(p.id, []):
            op = u.opcode
            if op == "fusion":
                body = self.comps[u.called_computation_ids[0]]
                for k, o in enumerate(u.operand_ids):
                    if o == p.id:
                        fp = [x for x in body.instructions if x.opcode == "parameter"][k]
                        b, s = self.param_read_bytes(fp)
                        total, special = total + b, True
            elif op == "slice":
                total, special = total + size(u.shape), True
            elif op == "dynamic-slice":
                if u.operand_ids[0] == p.id:
                    total, special = total + size(u.shape), True
                elif not trivial:
                    trivial, total = True, total + size(p.shape)
            elif op == "dynamic-update-slice":
                special = True
                if u.operand_ids[0] != p.id and not trivial:
                    trivial, total = True, total + size(p.shape)
            elif op in ("broadcast", "reshape"):
                if trivial:
                    special = True
                total += size(p.shape)
                trivial = True
            else:
                if not trivial:
                    trivial, total = True, total + size(p.shape)
        return total, special

    def fusion_cost(self, ins):
        body = self.comps[ins.called_computation_ids[0]]
        f, t = self.sub(body.id)
        root = next(x for x in body.instructions if x.id == body.root_id)
        notes = []
        out = 0
        if ins.shape.element_type == TUPLE:
            for k, s in enumerate(ins.shape.tuple_shapes):
                r = self.by_id[root.operand_ids[k]] if root.opcode == "tuple" else None
                if r is not None and r.opcode == "dynamic-update-slice":
                    out += size(self.by_id[r.operand_ids[1]].shape)
                    notes.append("dynamic-update-slice output")
                else:
                    out += size(s)
        elif root.opcode == "dynamic-update-slice":
            out = size(self.by_id[root.operand_ids[1]].shape)
            notes.append("dynamic-update-slice output")
        else:
            out = size(ins.shape)
        reads = 0
        params = sorted((x for x in body.instructions if x.opcode == "parameter"),
                        key=lambda x: ins_param_number(x, body))
        for p in params:
            b, s = self.param_read_bytes(p)
            reads += b
            if s:
                notes.append("parameter read through slice/broadcast/nested fusion")
            if b == 0:
                notes.append("parameter not read")
        consts = sum(size(x.shape) for x in body.instructions
                     if x.opcode == "constant" and elements(x.shape) > 1)
        if consts:
            notes.append("large constant")
        return f, t, out + reads + consts, notes

    def cost(self, ins):
        op = ins.opcode
        ops = self.operands(ins)
        flops = trans = 0
        notes = []
        nbytes = size(ins.shape) + sum(size(o.shape) for o in ops)
        if ins.shape.element_type == TUPLE:
            notes.append("tuple output counted as pointers")
        if any(o.shape.element_type == TUPLE for o in ops):
            notes.append("tuple operand counted as pointers")
        if op in FREE:
            return {"flops": 0, "transcendentals": 0, "bytes": 0, "notes": ["no memory access"]}
        if op in ELEMENTWISE:
            if op in TRANSCENDENTAL:
                trans = leaf_elements(ins.shape)
            else:
                flops = leaf_elements(ins.shape)
        elif op == "dot":
            flops = dot_flops(ops[0].shape, ins.shape,
                              ins.dot_dimension_numbers.lhs_contracting_dimensions)
        elif op == "convolution":
            flops = conv_flops(ins, ops[0].shape, ops[1].shape, ins.shape)
        elif op == "reduce":
            f, t = self.sub(ins.called_computation_ids[0])
            n = elements(first_array(ops[0].shape)) - elements(first_array(ins.shape))
            flops, trans = f * n, t * n
        elif op == "reduce-window":
            f, t = self.sub(ins.called_computation_ids[0])
            dims = ins.window.dimensions
            window = math.prod(d.size for d in dims)
            out = elements(first_array(ins.shape))
            n = (window - 1) * out
            # A reduce-window that is a reduce followed by a broadcast of one
            # dimension counts as that reduce.
            reducing = [k for k, d in enumerate(dims) if d.size != 1]
            padded = [k for k, d in enumerate(dims) if d.padding_low or d.padding_high]
            if len(reducing) == 1 and len(padded) == 1 and ins.shape.element_type != TUPLE:
                for k, d in enumerate(dims):
                    if (d.size != 1 and d.padding_low and d.padding_high and
                            d.padding_low == d.padding_high and d.size == 2 * d.padding_low + 1):
                        if d.padding_low == ins.shape.dimensions[k] - 1:
                            w = ins.shape.dimensions[k]
                            n = out // w + (w - 1)
                            notes.append("reduce-window counted as a reduce")
                        break
            flops, trans = f * n, t * n
        elif op == "fusion":
            flops, trans, nbytes, fnotes = self.fusion_cost(ins)
            notes = fnotes
        elif op == "custom-call":
            target = ins.custom_call_target
            if target.startswith("__cublas$"):
                cfg = json.loads(ins.backend_config.decode())
                dd = cfg["gemm_backend_config"]["dot_dimension_numbers"]
                contracting = [int(x) for x in dd.get("lhs_contracting_dimensions", [])]
                flops = dot_flops(ops[0].shape, first_array(ins.shape), contracting)
            elif target.startswith("__cudnn$conv"):
                flops = conv_flops(ins, ops[0].shape, ops[1].shape, first_array(ins.shape))
            else:
                return {"flops": -1, "transcendentals": 0, "bytes": -1,
                        "notes": ["custom-call: unknown cost"]}
        elif op == "slice":
            nbytes = 2 * size(ins.shape)
            notes.append("slice reads only its output's worth")
        elif op == "dynamic-slice":
            nbytes = 2 * size(ins.shape) + size(ops[1].shape)
            notes.append("dynamic-slice reads only its output's worth")
        elif op == "dynamic-update-slice":
            nbytes = 2 * size(ops[1].shape) + size(ops[2].shape)
            notes.append("dynamic-update-slice writes only its update")
        elif op == "gather":
            nbytes = 2 * size(ins.shape) + size(ops[1].shape)
            notes.append("gather reads only its output's worth")
        elif op == "tuple":
            nbytes = size(ins.shape)
        elif op == "sort":
            n = elements(ops[0].shape)
            flops = n * math.ceil(math.log2(n)) if n > 1 else 0
        elif op in ("rng", "rng-bit-generator"):
            trans = leaf_elements(ins.shape)
        return {"flops": flops, "transcendentals": trans, "bytes": nbytes, "notes": notes}


def ins_param_number(x, body):
    # Parameters in instruction order are parameter 0, 1, ... in XLA's
    # fused computations; the proto's parameter_number is not decoded here.
    return [i.id for i in body.instructions if i.opcode == "parameter"].index(x.id)


def main():
    data = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "ref.proto"), "w") as f:
            f.write(PROTO)
        subprocess.run(["protoc", "--python_out=" + tmp, "-I", tmp, "ref.proto"], check=True)
        sys.path.insert(0, tmp)
        import ref_pb2 as pb
        result = {}
        for rel in CAPTURES:
            space = pb.XSpace()
            with open(os.path.join(data, rel), "rb") as f:
                space.ParseFromString(f.read())
            ops = {}
            for plane in space.planes:
                if plane.name != "/host:metadata":
                    continue
                hlo_stat = [k for k, v in plane.stat_metadata.items() if v.name == "Hlo Proto"]
                for em in plane.event_metadata.values():
                    for st in em.stats:
                        if st.metadata_id not in hlo_stat:
                            continue
                        proto = pb.HloProto()
                        proto.ParseFromString(st.bytes_value)
                        m = Module(proto.hlo_module)
                        # Fusion bodies and reducers run inside their caller's kernel.
                        fused = {cid for c in m.proto.computations for i in c.instructions
                                 if i.opcode not in ("call", "while", "conditional")
                                 for cid in i.called_computation_ids}
                        for c in m.proto.computations:
                            if c.id in fused:
                                continue
                            for i in c.instructions:
                                if i.opcode in FREE or i.opcode == "tuple":
                                    continue
                                key = "%s(%d)/%s" % (m.proto.name, m.proto.id, i.name)
                                cost = m.cost(i)
                                cost["opcode"] = i.opcode
                                cost["notes"] = sorted(set(cost["notes"]))
                                ops[key] = cost
            result[rel] = dict(sorted(ops.items()))
    json.dump({"generator": "make_xla_cost_reference.py", "captures": result}, sys.stdout,
              indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
