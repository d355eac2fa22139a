// The bytes of the diff's JSON and Markdown on the generated pair (A: the
// fixture; B: gemm doubled, aten::mul inserted under Decoder_0), and the
// HTML page's embedded data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/diff/diff_html.h"
#include "core/diff/diff_json.h"
#include "core/diff/diff_text.h"
#include "tests/core/diff/diff_test_support.h"

namespace th::diff {
namespace {

DiffResult PairDiff() {
  th::testing::DiffFixture fb;
  fb.double_gemm = fb.insert_mul = true;
  auto a = testing::FixtureSide({}, "A");
  auto b = testing::FixtureSide(fb, "B");
  DiffOptions o;
  o.max_step_pairs = 1;
  return testing::Diff(*a, *b, o);
}

constexpr const char* kJson = R"json({
  "schema": "tracehound.diff/1",
  "options": {
    "threshold_ns": 1000,
    "all_steps": false,
    "all_classes": false,
    "max_structural": 50,
    "max_step_pairs": 1,
    "hta": false
  },
  "a": {
    "label": "A",
    "inputs": [
      "a.json"
    ],
    "ranks": 1,
    "steps": 3,
    "warmup_left_out": 1,
    "step_source": "profiler_step",
    "kind": "measured",
    "device": "NVIDIA H100 80GB HBM3",
    "world_size": 1
  },
  "b": {
    "label": "B",
    "inputs": [
      "b.json"
    ],
    "ranks": 1,
    "steps": 3,
    "warmup_left_out": 1,
    "step_source": "profiler_step",
    "kind": "measured",
    "device": "NVIDIA H100 80GB HBM3",
    "world_size": 1
  },
  "warnings": [
    "input shapes and dtypes of matched ops are not compared: neither side has Kineto Input Dims / Input type (record_shapes)"
  ],
  "attribution": {
    "available": true,
    "a_step_ns": 1000000,
    "b_step_ns": 1000000,
    "delta_ns": 0,
    "contributors": [
      {
        "category": "cpu_exec",
        "a_ns": 360000,
        "b_ns": 290000,
        "delta_ns": -70000
      },
      {
        "category": "kernel",
        "a_ns": 110000,
        "b_ns": 175000,
        "delta_ns": 65000
      },
      {
        "category": "runtime",
        "a_ns": 20000,
        "b_ns": 25000,
        "delta_ns": 5000
      },
      {
        "category": "memcpy",
        "a_ns": 0,
        "b_ns": 0,
        "delta_ns": 0
      },
      {
        "category": "memset",
        "a_ns": 0,
        "b_ns": 0,
        "delta_ns": 0
      },
      {
        "category": "communication",
        "a_ns": 0,
        "b_ns": 0,
        "delta_ns": 0
      },
      {
        "category": "dataloader",
        "a_ns": 0,
        "b_ns": 0,
        "delta_ns": 0
      },
      {
        "category": "other",
        "a_ns": 510000,
        "b_ns": 510000,
        "delta_ns": 0
      }
    ]
  },
  "totals": [
    {
      "class": "cpu_op",
      "a_count": 12,
      "a_time_ns": 480000,
      "b_count": 15,
      "b_time_ns": 600000
    },
    {
      "class": "gpu_kernel",
      "a_count": 12,
      "a_time_ns": 330000,
      "b_count": 15,
      "b_time_ns": 525000
    }
  ],
  "aggregate": [
    {
      "class": "gpu_kernel",
      "name": "gemm_kernel<0x*>",
      "status": "changed",
      "a_count": 3,
      "a_time_ns": 150000,
      "a_time_per_step_ns": 50000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 300000,
      "b_time_per_step_ns": 100000,
      "b_spread_ns": 0,
      "delta_ns": 50000,
      "delta_pct": 100,
      "noise_ns": 0
    },
    {
      "class": "cpu_op",
      "name": "aten::mul",
      "status": "added",
      "a_count": 0,
      "a_time_ns": 0,
      "a_time_per_step_ns": 0,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 120000,
      "b_time_per_step_ns": 40000,
      "b_spread_ns": 0,
      "delta_ns": 40000,
      "delta_pct": null,
      "noise_ns": 0
    },
    {
      "class": "gpu_kernel",
      "name": "mul_kernel",
      "status": "added",
      "a_count": 0,
      "a_time_ns": 0,
      "a_time_per_step_ns": 0,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 45000,
      "b_time_per_step_ns": 15000,
      "b_spread_ns": 0,
      "delta_ns": 15000,
      "delta_pct": null,
      "noise_ns": 0
    },
    {
      "class": "cpu_op",
      "name": "aten::add",
      "status": "unchanged",
      "a_count": 3,
      "a_time_ns": 120000,
      "a_time_per_step_ns": 40000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 120000,
      "b_time_per_step_ns": 40000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    },
    {
      "class": "cpu_op",
      "name": "aten::linear",
      "status": "unchanged",
      "a_count": 6,
      "a_time_ns": 240000,
      "a_time_per_step_ns": 80000,
      "a_spread_ns": 0,
      "b_count": 6,
      "b_time_ns": 240000,
      "b_time_per_step_ns": 80000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    },
    {
      "class": "cpu_op",
      "name": "aten::relu",
      "status": "unchanged",
      "a_count": 3,
      "a_time_ns": 120000,
      "a_time_per_step_ns": 40000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 120000,
      "b_time_per_step_ns": 40000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    },
    {
      "class": "gpu_kernel",
      "name": "elementwise_kernel",
      "status": "unchanged",
      "a_count": 3,
      "a_time_ns": 60000,
      "a_time_per_step_ns": 20000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 60000,
      "b_time_per_step_ns": 20000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    },
    {
      "class": "gpu_kernel",
      "name": "gemm2_kernel",
      "status": "unchanged",
      "a_count": 3,
      "a_time_ns": 90000,
      "a_time_per_step_ns": 30000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 90000,
      "b_time_per_step_ns": 30000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    },
    {
      "class": "gpu_kernel",
      "name": "relu_kernel",
      "status": "unchanged",
      "a_count": 3,
      "a_time_ns": 30000,
      "a_time_per_step_ns": 10000,
      "a_spread_ns": 0,
      "b_count": 3,
      "b_time_ns": 30000,
      "b_time_per_step_ns": 10000,
      "b_spread_ns": 0,
      "delta_ns": 0,
      "delta_pct": 0,
      "noise_ns": 0
    }
  ],
  "structure": [
    {
      "a_rank": 0,
      "a_step": 1,
      "b_rank": 0,
      "b_step": 1,
      "matched": 10,
      "a_unmatched": 0,
      "b_unmatched": 2,
      "rows_left_out": 0,
      "rows": [
        {
          "kind": "time_changed",
          "level": "kernel",
          "path": [
            "nn.Module: Encoder_0",
            "aten::linear"
          ],
          "a_name": "gemm_kernel<0x*>",
          "b_name": "gemm_kernel<0x*>",
          "a_device_ns": 50000,
          "b_device_ns": 100000,
          "delta_ns": 50000
        },
        {
          "kind": "added",
          "level": "op",
          "path": [
            "nn.Module: Decoder_0"
          ],
          "a_name": "",
          "b_name": "aten::mul",
          "a_device_ns": 0,
          "b_device_ns": 15000,
          "delta_ns": 15000
        }
      ]
    }
  ]
}
)json";

constexpr const char* kMarkdown = R"md(# tracehound diff

| | A | B |
| --- | --- | --- |
| inputs | a.json | b.json |
| ranks | 1 | 1 |
| steps kept | 3 | 3 |
| warm-up steps left out | 1 | 1 |
| step source | profiler_step | profiler_step |
| device | NVIDIA H100 80GB HBM3 | NVIDIA H100 80GB HBM3 |

## Warnings

- input shapes and dtypes of matched ops are not compared: neither side has Kineto Input Dims / Input type (record_shapes)

## Step time

Mean step time: A 1.000 ms, B 1.000 ms, Δ 0 ns (the categories' Δ add up to it exactly).

| category | A / step | B / step | Δ |
| --- | ---: | ---: | ---: |
| cpu_exec | 360.000 us | 290.000 us | -70.000 us |
| kernel | 110.000 us | 175.000 us | +65.000 us |
| runtime | 20.000 us | 25.000 us | +5.000 us |
| memcpy | 0 ns | 0 ns | 0 ns |
| memset | 0 ns | 0 ns | 0 ns |
| communication | 0 ns | 0 ns | 0 ns |
| dataloader | 0 ns | 0 ns | 0 ns |
| other | 510.000 us | 510.000 us | 0 ns |

## Aggregate

| class | A count | A time | B count | B time |
| --- | ---: | ---: | ---: | ---: |
| cpu_op | 12 | 480.000 us | 15 | 600.000 us |
| gpu_kernel | 12 | 330.000 us | 15 | 525.000 us |

| status | class | name | A count | A / step | B count | B / step | Δ / step | Δ % | noise |
| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| changed | gpu_kernel | gemm_kernel<0x*> | 3 | 50.000 us | 3 | 100.000 us | +50.000 us | +100.00 % | 0 ns |
| added | cpu_op | aten::mul | 0 | 0 ns | 3 | 40.000 us | +40.000 us | n/a | 0 ns |
| added | gpu_kernel | mul_kernel | 0 | 0 ns | 3 | 15.000 us | +15.000 us | n/a | 0 ns |
| unchanged | cpu_op | aten::add | 3 | 40.000 us | 3 | 40.000 us | 0 ns | +0.00 % | 0 ns |
| unchanged | cpu_op | aten::linear | 6 | 80.000 us | 6 | 80.000 us | 0 ns | +0.00 % | 0 ns |
| unchanged | cpu_op | aten::relu | 3 | 40.000 us | 3 | 40.000 us | 0 ns | +0.00 % | 0 ns |
| unchanged | gpu_kernel | elementwise_kernel | 3 | 20.000 us | 3 | 20.000 us | 0 ns | +0.00 % | 0 ns |
| unchanged | gpu_kernel | gemm2_kernel | 3 | 30.000 us | 3 | 30.000 us | 0 ns | +0.00 % | 0 ns |
| unchanged | gpu_kernel | relu_kernel | 3 | 10.000 us | 3 | 10.000 us | 0 ns | +0.00 % | 0 ns |

## Structure

### A rank 0 step 1 ↔ B rank 0 step 1

10 nodes aligned; 0 only in A, 2 only in B.

| kind | level | under | A | B | A device | B device | Δ |
| --- | --- | --- | --- | --- | ---: | ---: | ---: |
| time_changed | kernel | nn.Module: Encoder_0 › aten::linear | gemm_kernel<0x*> | gemm_kernel<0x*> | 50.000 us | 100.000 us | +50.000 us |
| added | op | nn.Module: Decoder_0 |  | aten::mul | 0 ns | 15.000 us | +15.000 us |

)md";

// With TH_DIFF_GOLDEN_DIR set, the actual text is also written there (to
// review a change and paste it above); the check still fails on a difference.
void ExpectGolden(const std::string& actual, const char* golden, const char* file) {
  if (const char* dir = std::getenv("TH_DIFF_GOLDEN_DIR"))
    std::ofstream(std::string(dir) + "/" + file) << actual;
  EXPECT_EQ(actual, golden);
}

TEST(DiffOutput, JsonBytes) { ExpectGolden(DiffJson(PairDiff()), kJson, "pair.json"); }

TEST(DiffOutput, MarkdownBytes) { ExpectGolden(DiffMarkdown(PairDiff()), kMarkdown, "pair.md"); }

TEST(DiffOutput, HtmlEmbedsTheJsonAndEscapesNames) {
  DiffResult r = PairDiff();
  r.aggregate[0].name = "a<b>&\"c\"</script>";
  const std::string html = DiffHtml(r);
  EXPECT_NE(html.find("a&lt;b&gt;&amp;&quot;c&quot;&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("</script>\"", 0), std::string::npos);
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"diff-data\">{"), std::string::npos);
}

}  // namespace
}  // namespace th::diff
