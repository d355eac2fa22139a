// The table of accelerator peaks (configs/peaks.yaml): per device, dense peak
// FLOP/s per unit (matrix/vector) and data type, and HBM bandwidth, each with
// its source. Plugins see only the SDK, so the file is read by this small
// strict parser of its flat format (one flow mapping per row), not a YAML
// library; anything outside the format is an error naming the line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace th::roofline {

struct PeakDevice {
  std::string id, name;
  std::vector<std::string> match;  // case-insensitive substrings of a device name
};

struct Peak {
  std::string device, unit, dtype;  // unit: matrix | vector
  double flops = 0;                 // per second, dense
  std::string kind, source;         // kind: datasheet | measured
};

struct Bandwidth {
  std::string device;
  double bytes_per_s = 0;
  std::string kind, source;
};

// What applies to one op: the compute peak chosen for its unit and dtype (the
// row it came from) and the bandwidth. flops 0 / bytes_per_s 0: none known.
struct Roof {
  double flops = 0, bytes_per_s = 0;
  std::string peak_row;  // "matrix bf16", "vector fp32", "" when none
  std::string peak_source, bandwidth_source;
};

class PeakTable {
 public:
  // Parses the text of a peaks file; on error returns nullopt and sets
  // `error` to "FILE:LINE: what".
  static std::optional<PeakTable> Parse(std::string_view text, const std::string& file,
                                        std::string* error);

  // The device whose longest match string is in `name` (case-insensitive), or
  // the one whose id equals `name`; nullptr when none.
  const PeakDevice* Match(std::string_view name) const;
  const PeakDevice* ById(std::string_view id) const;

  // The roof for an op on `device` of `unit` and `dtype`. Matrix work without
  // a matrix peak of its dtype uses the vector peak of that dtype; vector work
  // without a vector peak of its dtype uses the vector fp32 peak, then the
  // matrix peak of its dtype.
  Roof For(const std::string& device, const std::string& unit, const std::string& dtype) const;

  const std::vector<PeakDevice>& devices() const { return devices_; }
  const std::vector<Peak>& peaks() const { return peaks_; }
  const std::vector<Bandwidth>& bandwidths() const { return bandwidths_; }

 private:
  const Peak* Find(const std::string& device, const std::string& unit,
                   const std::string& dtype) const;
  std::vector<PeakDevice> devices_;
  std::vector<Peak> peaks_;
  std::vector<Bandwidth> bandwidths_;
};

}  // namespace th::roofline
