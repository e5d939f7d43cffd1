#include "probes/sample.hpp"

#include <stdexcept>

#include "base/json_file.hpp"
#include "base/units.hpp"

namespace ga {

Sample value_sample(std::string place, std::string metric, double v, std::string unit, nlohmann::json params,
                    int iter) {
  Sample s;
  s.place = std::move(place);
  s.metric = std::move(metric);
  s.value = v;
  s.unit = std::move(unit);
  s.params = std::move(params);
  s.iter = iter;
  return s;
}

Sample text_sample(std::string place, std::string metric, std::string t, nlohmann::json params) {
  Sample s;
  s.place = std::move(place);
  s.metric = std::move(metric);
  s.text = std::move(t);
  s.unit = unit::text;
  s.params = std::move(params);
  return s;
}

nlohmann::json to_json(const Sample& s) {
  nlohmann::json j = {{"probe", s.probe}, {"place", s.place}, {"metric", s.metric}, {"unit", s.unit},
                      {"params", s.params}, {"rank", s.rank}, {"iter", s.iter}};
  if (s.value) j["value"] = *s.value;
  if (s.text) j["text"] = *s.text;
  return j;
}

Sample sample_from_json(const nlohmann::json& j) {
  Sample s;
  auto need = [&](const char* k) -> const nlohmann::json& {
    if (!j.contains(k)) throw std::runtime_error(std::string("sample without \"") + k + "\"");
    return j.at(k);
  };
  s.place = need("place").get<std::string>();
  s.metric = need("metric").get<std::string>();
  s.probe = j.value("probe", s.metric.substr(0, s.metric.find('.')));
  s.unit = j.value("unit", "");
  if (j.contains("value") && !j["value"].is_null()) {
    if (!j["value"].is_number()) throw std::runtime_error("sample \"value\" is not a number");
    s.value = j["value"].get<double>();
  }
  if (j.contains("text") && !j["text"].is_null()) s.text = j["text"].get<std::string>();
  if (!s.value && !s.text) throw std::runtime_error("sample has neither \"value\" nor \"text\"");
  if (j.contains("params")) s.params = j["params"];
  s.rank = base::integer_or(j, "rank", 0);
  s.iter = base::integer_or(j, "iter", 0);
  return s;
}

}  // namespace ga
