#include "base/json_file.hpp"

#include <fstream>
#include <stdexcept>

namespace ga::base {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not JSON (" + std::string(e.what()) + ")");
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(name + ": not JSON (" + std::string(e.what()) + ")");
  }
}

}  // namespace ga::base
