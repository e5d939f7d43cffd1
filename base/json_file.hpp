// A whole file read as one JSON document, its path in every error ("PATH: cannot be read",
// "PATH: not JSON (...)"): the manifest, a signature envelope, report.json read back.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace ga::base {

nlohmann::json read_json_file(const std::string& path);  // throws std::runtime_error
// `text` as one JSON document; "NAME: not JSON (...)" when it is not.
nlohmann::json parse_json_text(const std::string& text, const std::string& name);

}  // namespace ga::base
