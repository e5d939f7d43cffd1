// What a probe emits: one measured value (or one observed fact, as text) keyed to a place.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/optional_text.hpp"
#include "probes/params.hpp"

namespace ga {

struct Sample {
  std::string probe;                    // the emitting probe (filled in by the harness)
  std::string place;                    // TopoKey, see topology/place.hpp
  std::string metric;                   // "<probe>.<name>", e.g. "hostmem.triad_bw"
  std::optional<double> value;          // numeric samples
  base::OptionalText text;              // facts: versions, model names, path classes
  std::string unit;                     // see base/units.hpp
  Params params;                        // e.g. {"size": 4194304, "direction": "a->b"}
  int rank = 0;
  int iter = 0;
};

// The two shapes every probe builds: a measured value, or an observed fact (unit "text").
// probe and rank stay empty: the harness's sink stamps them (app/run_support.hpp).
Sample value_sample(std::string place, std::string metric, double v, std::string unit,
                    nlohmann::json params = nlohmann::json::object(), int iter = 0);
Sample text_sample(std::string place, std::string metric, std::string t,
                   nlohmann::json params = nlohmann::json::object());

nlohmann::json to_json(const Sample&);
Sample sample_from_json(const nlohmann::json&);  // throws std::runtime_error naming the bad field

}  // namespace ga
