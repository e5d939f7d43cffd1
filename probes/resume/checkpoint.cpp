#include "probes/resume/checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/checksum.hpp"
#include "base/file_io.hpp"

namespace ga::resume {

namespace fs = std::filesystem;

namespace {
constexpr char kMagic[8] = {'G', 'A', 'C', 'K', 'P', 'T', '0', '1'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeader = 8 + 4 + 4 + 4 + 4 + 8 + 8;  // magic, version, worker, workers, pad, step, words

template <class T>
void put(std::vector<unsigned char>& b, T v) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof v);
  b.insert(b.end(), raw, raw + sizeof v);
}
template <class T>
T get(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string pad(int v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*d", width, v);
  return buf;
}
}  // namespace

std::string step_dir(const std::string& root, int step) { return (fs::path(root) / ("step-" + pad(step, 8))).string(); }
std::string shard_path(const std::string& root, int step, int worker) {
  return (fs::path(step_dir(root, step)) / ("worker-" + pad(worker, 4) + ".bin")).string();
}
std::string manifest_path(const std::string& root, int step) { return (fs::path(step_dir(root, step)) / "MANIFEST").string(); }

std::vector<unsigned char> encode_shard(const JobConfig& c, int worker, int step, const State& s) {
  if (s.size() != c.state_words) throw std::invalid_argument("encode_shard: state has " + std::to_string(s.size()) + " words, not " + std::to_string(c.state_words));
  std::vector<unsigned char> b;
  b.reserve(kHeader + s.size() * 8 + 8);
  std::uint64_t magic;
  std::memcpy(&magic, kMagic, 8);
  put<std::uint64_t>(b, magic);
  put<std::uint32_t>(b, kVersion);
  put<std::uint32_t>(b, static_cast<std::uint32_t>(worker));
  put<std::uint32_t>(b, static_cast<std::uint32_t>(c.workers));
  put<std::uint32_t>(b, 0);
  put<std::uint64_t>(b, static_cast<std::uint64_t>(step));
  put<std::uint64_t>(b, c.state_words);
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  b.insert(b.end(), p, p + s.size() * 8);
  put<std::uint64_t>(b, base::checksum_of(b.data(), b.size()));
  return b;
}

ShardRead decode_shard(const std::vector<unsigned char>& b, const JobConfig& c, int worker, int step) {
  ShardRead r;
  const std::size_t want = kHeader + c.state_words * 8 + 8;
  if (b.size() != want) {
    r.why = "shard of worker " + std::to_string(worker) + " holds " + std::to_string(b.size()) + " bytes, not " + std::to_string(want) +
            (b.size() < want ? " (torn or truncated)" : "");
    return r;
  }
  if (std::memcmp(b.data(), kMagic, 8) != 0) {
    r.why = "shard of worker " + std::to_string(worker) + " does not start with the checkpoint magic";
    return r;
  }
  const std::uint64_t trailer = get<std::uint64_t>(b.data() + want - 8);
  const std::uint64_t actual = base::checksum_of(b.data(), want - 8);
  if (trailer != actual) {
    r.why = "shard of worker " + std::to_string(worker) + ": checksum " + base::to_hex(actual) + " does not match the recorded " +
            base::to_hex(trailer) + " (corrupted)";
    return r;
  }
  const auto version = get<std::uint32_t>(b.data() + 8), w = get<std::uint32_t>(b.data() + 12), n = get<std::uint32_t>(b.data() + 16);
  const auto st = get<std::uint64_t>(b.data() + 24), words = get<std::uint64_t>(b.data() + 32);
  if (version != kVersion || static_cast<int>(w) != worker || static_cast<int>(n) != c.workers || st != static_cast<std::uint64_t>(step) ||
      words != c.state_words) {
    r.why = "shard of worker " + std::to_string(worker) + " says version " + std::to_string(version) + ", worker " + std::to_string(w) +
            " of " + std::to_string(n) + ", step " + std::to_string(st) + ", " + std::to_string(words) + " words: not the one expected here";
    return r;
  }
  r.state.resize(c.state_words);
  std::memcpy(r.state.data(), b.data() + kHeader, c.state_words * 8);
  r.checksum = trailer;
  r.ok = true;
  return r;
}

ShardRecord write_shard(const std::string& root, const JobConfig& c, int worker, int step, const State& s) {
  std::error_code ec;
  fs::create_directories(step_dir(root, step), ec);  // every worker races to create it; EEXIST is fine
  const auto bytes = encode_shard(c, worker, step, s);
  base::write_file_atomic(shard_path(root, step, worker), bytes.data(), bytes.size());
  return {worker, bytes.size(), get<std::uint64_t>(bytes.data() + bytes.size() - 8)};
}

std::string encode_manifest(const JobConfig& c, int step, const std::vector<ShardRecord>& shards) {
  nlohmann::json j = {{"schema_version", 1}, {"step", step}, {"workers", c.workers}, {"state_words", c.state_words}};
  j["shards"] = nlohmann::json::array();
  for (const auto& s : shards)
    j["shards"].push_back({{"worker", s.worker}, {"file", fs::path(shard_path("", step, s.worker)).filename().string()},
                           {"bytes", s.bytes}, {"checksum", base::to_hex(s.checksum)}});
  const std::string body = j.dump();
  return body + "\nchecksum " + base::to_hex(base::checksum_of(body.data(), body.size())) + "\n";
}

std::optional<Manifest> decode_manifest(const std::string& text, const JobConfig& c, int step, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<Manifest> {
    if (why) *why = "manifest: " + w;
    return std::nullopt;
  };
  const auto nl = text.find('\n');
  if (nl == std::string::npos) return fail("no checksum line (torn)");
  const std::string body = text.substr(0, nl), rest = text.substr(nl + 1);
  std::uint64_t recorded = 0;
  if (rest.size() != 26 || rest.rfind("checksum ", 0) != 0 || rest.back() != '\n' || !base::from_hex(rest.substr(9, 16), recorded))
    return fail("malformed checksum line (torn)");
  if (base::checksum_of(body.data(), body.size()) != recorded) return fail("checksum does not match its contents (corrupted)");
  Manifest m;
  try {
    const auto j = nlohmann::json::parse(body);
    m.step = j.at("step").get<int>();
    if (m.step != step || j.at("workers").get<int>() != c.workers || j.at("state_words").get<std::uint64_t>() != c.state_words)
      return fail("describes step " + std::to_string(m.step) + " of " + std::to_string(j.at("workers").get<int>()) +
                  " workers, not step " + std::to_string(step) + " of " + std::to_string(c.workers));
    for (const auto& s : j.at("shards")) {
      ShardRecord r;
      r.worker = s.at("worker").get<int>();
      r.bytes = s.at("bytes").get<std::uint64_t>();
      if (!base::from_hex(s.at("checksum").get<std::string>(), r.checksum)) return fail("bad checksum field");
      m.shards.push_back(r);
    }
  } catch (const std::exception& e) {
    return fail(std::string("unreadable: ") + e.what());
  }
  std::vector<bool> seen(static_cast<std::size_t>(c.workers), false);
  for (const auto& s : m.shards) {
    if (s.worker < 0 || s.worker >= c.workers || seen[static_cast<std::size_t>(s.worker)]) return fail("bad or repeated worker " + std::to_string(s.worker));
    seen[static_cast<std::size_t>(s.worker)] = true;
  }
  if (static_cast<int>(m.shards.size()) != c.workers) return fail("lists " + std::to_string(m.shards.size()) + " shards, not " + std::to_string(c.workers));
  return m;
}

void write_manifest(const std::string& root, const JobConfig& c, int step, const std::vector<ShardRecord>& shards) {
  const std::string text = encode_manifest(c, step, shards);
  base::write_file_atomic(manifest_path(root, step), text.data(), text.size());
}

CheckpointCheck verify_checkpoint(const std::string& root, const JobConfig& c, int step) {
  CheckpointCheck out;
  out.step = step;
  const std::string mpath = manifest_path(root, step);
  if (!base::file_exists(mpath)) {
    out.why = "no manifest (incomplete: the job stopped before every shard was reported)";
    return out;
  }
  std::string why;
  std::optional<Manifest> m;
  try {
    const auto raw = base::read_whole_file(mpath);
    m = decode_manifest(std::string(raw.begin(), raw.end()), c, step, &why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!m) {
    out.why = why;
    return out;
  }
  for (const auto& rec : m->shards) {
    std::vector<unsigned char> bytes;
    try {
      bytes = base::read_whole_file(shard_path(root, step, rec.worker));
    } catch (const std::exception& e) {
      out.why = e.what();
      return out;
    }
    const ShardRead r = decode_shard(bytes, c, rec.worker, step);
    if (!r.ok) {
      out.why = r.why;
      return out;
    }
    if (bytes.size() != rec.bytes || r.checksum != rec.checksum) {
      out.why = "shard of worker " + std::to_string(rec.worker) + " is intact but not the one the manifest lists (checksum " +
                base::to_hex(r.checksum) + ", manifest " + base::to_hex(rec.checksum) + ")";
      return out;
    }
  }
  out.complete = true;
  return out;
}

ResumeChoice choose_resume(const std::string& root, const JobConfig& c) {
  std::vector<int> steps;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != 13 || name.rfind("step-", 0) != 0) continue;
    if (!std::all_of(name.begin() + 5, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) continue;
    steps.push_back(std::stoi(name.substr(5)));
  }
  std::sort(steps.rbegin(), steps.rend());
  ResumeChoice choice;
  for (int s : steps) {
    auto check = verify_checkpoint(root, c, s);
    if (check.complete) {
      choice.step = s;
      return choice;
    }
    choice.skipped.push_back(std::move(check));
  }
  return choice;  // nothing usable: start from the beginning
}

State load_state(const std::string& root, const JobConfig& c, int worker, int step) {
  if (step == 0) return initial_state(c, worker);
  const auto r = decode_shard(base::read_whole_file(shard_path(root, step, worker)), c, worker, step);
  if (!r.ok) throw std::runtime_error("checkpoint step " + std::to_string(step) + ": " + r.why);
  return r.state;
}

}  // namespace ga::resume
