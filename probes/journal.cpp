#include "probes/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <type_traits>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>

#include "base/both.hpp"
#include "base/file_io.hpp"
#include "base/json_file.hpp"
#include "base/prefault.hpp"
#include "base/sha256.hpp"
#include "probes/journal_chain.hpp"
#include "topology/topology.hpp"

namespace ga {

namespace {

std::vector<RankRef> rank_refs(const nlohmann::json& a) {
  std::vector<RankRef> out;
  if (!a.is_array()) return out;
  for (const auto& r : a) out.push_back({base::integer_or(r, "rank", -1), r.value("host", "")});
  return out;
}

// sample_from_json, moving the strings and params out of the parsed record instead of
// copying them (millions of samples at scale). A record of any other shape than the writer's
// goes to sample_from_json, so its errors read the same.
Sample sample_from_record(nlohmann::json&& r, SharedParamsPool& pool) {
  std::string absent;  // stands for a key the record does not have
  auto str = [&](const char* k, bool required) -> std::string* {
    auto it = r.find(k);
    if (it == r.end()) return required ? nullptr : &absent;
    return it->is_string() ? it->get_ptr<std::string*>() : nullptr;
  };
  auto num = [&](const char* k) {
    auto it = r.find(k);
    return it == r.end() || it->is_null() || it->is_number();
  };
  auto whole = [&](const char* k) {
    auto it = r.find(k);
    return it == r.end() || it->is_number_integer();
  };
  std::string *place = str("place", true), *metric = str("metric", true), *probe = str("probe", false),
              *unit = str("unit", false);
  auto text = r.find("text");
  const bool text_ok = text == r.end() || text->is_null() || text->is_string();
  if (!place || !metric || !probe || !unit || !num("value") || !text_ok || !whole("rank") || !whole("iter"))
    return sample_from_json(r);
  Sample s;
  if (auto v = r.find("value"); v != r.end() && !v->is_null()) s.value = v->get<double>();
  if (text != r.end() && !text->is_null()) s.text = std::move(*text->get_ptr<std::string*>());
  if (!s.value && !s.text) return sample_from_json(r);  // its error
  s.place = std::move(*place);
  s.metric = std::move(*metric);
  s.probe = probe == &absent ? s.metric.substr(0, s.metric.find('.')) : std::move(*probe);
  if (unit != &absent) s.unit = std::move(*unit);
  if (auto p = r.find("params"); p != r.end()) s.params = pool.intern(std::move(*p));
  s.rank = base::integer_or(r, "rank", 0);
  s.iter = base::integer_or(r, "iter", 0);
  return s;
}

ProbeRecord* find_open_probe(JournalData& d, const std::string& name) {
  for (auto it = d.probes.rbegin(); it != d.probes.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

}  // namespace

namespace {
// How long a writer waits for the journal's lock before it writes unlocked: another process
// holds it for one write, so a wait this long means that process is stuck, and a record is
// worth more than the chain's order (the reader then names the line where the chain forks).
constexpr double kLockWaitS = 10;
}  // namespace

JournalWriter::JournalWriter(const std::string& path) : path_(path) {
  // Read as well as written: the chain continues from the file's last record (read_chain_tail).
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open journal " + path + ": " + base::errno_text(errno));
}

JournalWriter::~JournalWriter() {
  if (fd_ < 0) return;
  try {
    write_held();
  } catch (const std::exception&) {
    // Being destroyed: nothing to tell; the reader sees the run end where the file does.
  }
  ::fsync(fd_);
  ::close(fd_);
}

void JournalWriter::append(const nlohmann::json& record) {
  held_.push_back(record.dump());
  held_bytes_ += held_.back().size();
  if (held_bytes_ >= (std::size_t{8} << 20)) write_held();
}

void JournalWriter::write_held() {
  if (held_.empty()) return;
  base::FileLock lock(fd_, kLockWaitS);
  // Where another process appended since this writer's last write, the chain goes on from its
  // record; a last line that is not a chained record (a torn write) leaves this writer's own.
  const ChainTail tail = read_chain_tail(fd_, path_);
  if (tail.kind == ChainTail::Kind::chained) {
    seq_ = tail.seq;
    chain_ = tail.chain;
  }
  std::string out;
  out.reserve(held_bytes_ + held_.size() * (24 + kChainSuffix));
  base::Digest c;
  for (const auto& dump : held_) {
    out += chained_line(dump, ++seq_, chain_ ? &*chain_ : nullptr, sha_, c);
    chain_ = c;
  }
  base::write_all(fd_, out.data(), out.size(), path_);
  held_.clear();
  held_bytes_ = 0;
}

void JournalWriter::flush() {
  write_held();
  base::fsync_or_throw(fd_, path_);
}

void append_record_once(const std::string& path, const nlohmann::json& record) {
  base::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) return;  // best effort: called while the job is being torn down
  const std::string dump = record.dump();
  std::string line;
  {
    base::FileLock lock(fd.get(), kLockWaitS);
    try {
      const ChainTail tail = read_chain_tail(fd.get(), path);
      if (tail.kind == ChainTail::Kind::chained) {
        base::Sha256 h;
        base::Digest c;
        line = chained_line(dump, tail.seq + 1, &tail.chain, h, c);
      }
    } catch (const std::exception&) {
      // Unreadable tail: the record unchained, and the reader names the line.
    }
    // An empty journal (no run_start yet) or one whose last line is not a chained record: the
    // record as it is; the reader of a chained journal names it.
    if (line.empty()) line = dump + "\n";
    [[maybe_unused]] ssize_t n = ::write(fd.get(), line.data(), line.size());
    ::fsync(fd.get());
  }
}

namespace {

// Every record but a sample, in file order.
void read_record(JournalData& d, nlohmann::json&& r, const std::string& name, int lineno) {
  try {
    const std::string type = r.at("type").get<std::string>();
    if (type == "run_start") {
      int v = base::integer_or(r, "schema_version", 0);
      if (v != kJournalSchemaVersion && v != kJournalSchemaBeforeChain)
        throw JournalError(name, lineno, "journal schema_version " + std::to_string(v) + ", expected " +
                                             std::to_string(kJournalSchemaVersion) + " (or " +
                                             std::to_string(kJournalSchemaBeforeChain) + ", before the chain)");
      d.run_start = r;
      for (const auto& rk : r.value("ranks", nlohmann::json::array()))
        d.ranks.push_back({base::integer_or(rk, "rank", 0), rk.value("host", ""), base::integer_or(rk, "local_rank", 0),
                           base::integer_or(rk, "pid", 0L), rk.value("boot_id", "")});
      if (r.contains("criteria") && r["criteria"].is_object()) {
        d.criteria_source = r["criteria"].value("source", "");
        d.criteria_text = r["criteria"].value("text", "");
      }
      if (r.contains("expected_topology") && r["expected_topology"].is_object())
        d.expected_topology = topo::host_from_json(r["expected_topology"]);
    } else if (type == "topology") {
      auto h = topo::host_from_json(r.at("topology"));
      h.hostname = r.value("host", h.hostname);
      d.topology.hosts.push_back(std::move(h));
    } else if (type == "probe_begin") {
      ProbeRecord p;
      p.name = r.at("probe").get<std::string>();
      p.begin_time = r.value("time", "");
      p.deadline_s = r.value("deadline_s", 0.0);
      d.probes.push_back(std::move(p));
    } else if (type == "outcome") {
      const auto probe = r.at("probe").get<std::string>();
      ProbeRecord* p = find_open_probe(d, probe);
      if (!p) throw JournalError(name, lineno, "outcome for probe \"" + probe + "\" before its probe_begin");
      auto st = probe_status_from_string(r.value("status", ""));
      if (!st) throw JournalError(name, lineno, "unknown outcome status \"" + r.value("status", "") + "\"");
      p->outcomes.push_back({base::integer_or(r, "rank", 0), r.value("host", ""), *st, r.value("reason", "")});
    } else if (type == "probe_end") {
      const auto probe = r.at("probe").get<std::string>();
      ProbeRecord* p = find_open_probe(d, probe);
      if (!p) throw JournalError(name, lineno, "probe_end for \"" + probe + "\" before its probe_begin");
      p->ended = true;
      p->end_time = r.value("time", "");
      p->elapsed_s = r.value("elapsed_s", 0.0);
    } else if (type == "incomplete") {
      IncompleteRecord inc;
      inc.probe = r.value("probe", "");
      inc.reason = r.value("reason", "");
      inc.missing_ranks = rank_refs(r.value("missing_ranks", nlohmann::json::array()));
      inc.waiting_ranks = rank_refs(r.value("waiting_ranks", nlohmann::json::array()));
      inc.detected_by = base::integer_or(r, "detected_by", -1);
      d.incomplete.push_back(std::move(inc));
    } else if (type == "signal") {
      d.signals.push_back({base::integer_or(r, "rank", 0), r.value("host", ""), r.value("signal", ""),
                           r.value("probe", ""), r.value("time", "")});
    } else if (type == "run_end") {
      d.run_ended = true;
      d.end_time = r.value("time", "");
    } else {
      throw JournalError(name, lineno, "unknown record type \"" + type + "\"");
    }
  } catch (const JournalError&) {
    throw;
  } catch (const std::exception& e) {
    throw JournalError(name, lineno, e.what());
  }
}

}  // namespace

namespace {

// One line made into what the reader keeps: a sample (most lines), another record, or why not.
struct ParsedLine {
  int lineno = 0;
  bool is_sample = false;
  Sample sample;
  nlohmann::json record;
  std::string parse_error;  // not JSON
  std::string error;        // JSON, but not a good sample
  std::optional<long long> seq;  // the writer's "seq" (absent in journals before it)
  // The chain (schema 2), checked by the thread that parses the line: none when the line does
  // not end as a chained record; ok when its chain is the one its body and the previous line's
  // chain give; broken when not, or when the previous line has none.
  enum class Link : unsigned char { none, ok, broken } link = Link::none;
  base::Digest chain{};  // its own, when link is not none
};

// nlohmann::json copies, compares and writes a value recursively: a line of a few hundred
// kilobytes of '[' parses (its parser keeps a stack of its own) but overflows the stack the
// moment the record is copied. The deepest record the writer makes is a run_start's suite
// params (suites/suite_file.cpp bounds those at 32 levels below the record's 5).
constexpr int kMaxJsonDepth = 64;

// A sample line read straight into a Sample by nlohmann's SAX interface, without a DOM of the
// record: 3.3 M of the 3.6 M lines at 4096 hosts are samples, and building and tearing down a
// map of nine keys per line was most of reading. Only the params object is built (it is
// interned). Anything but a well-formed sample of the writer's shape (another record type, a
// field of another type, a parse error) says so, and the line goes the DOM way, so its
// handling and its error messages are the DOM reader's.
class SampleSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override {
    if (in_params()) return add(nlohmann::json(std::move(v)));
    if (depth_ != 1) return true;
    switch (field_) {
      case Field::type: type_ = std::move(v); break;
      case Field::probe: s.probe = std::move(v), has_probe_ = true; break;
      case Field::place: s.place = std::move(v), has_place_ = true; break;
      case Field::metric: s.metric = std::move(v), has_metric_ = true; break;
      case Field::unit: s.unit = std::move(v); break;
      case Field::text: s.text = std::move(v); break;
      case Field::value: case Field::rank: case Field::iter: case Field::params: case Field::seq: odd_ = true; break;
      case Field::other: break;
    }
    return true;
  }
  bool binary(binary_t&) override { odd_ = true; return true; }
  bool start_object(std::size_t) override {
    if (++depth_ > kMaxJsonDepth) return deep();
    if (depth_ == 2 && field_ == Field::params) {
      params_ = nlohmann::json::object();
      stack_.push_back(&params_);
      has_params_ = true;
      ++params_objects_;
      return true;
    }
    if (in_params()) return open(nlohmann::json::object());
    if (depth_ == 2) odd_ = odd_ || field_ != Field::other;
    return true;
  }
  bool key(string_t& k) override {
    if (in_params()) {
      key_ = std::move(k);
      return true;
    }
    if (depth_ == 1) field_ = field_of(k);
    return true;
  }
  bool end_object() override {
    if (in_params()) stack_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (++depth_ > kMaxJsonDepth) return deep();
    if (in_params()) return open(nlohmann::json::array());
    if (depth_ == 2) odd_ = odd_ || field_ != Field::other;
    return true;
  }
  bool end_array() override { return end_object(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  // Nested past kMaxJsonDepth: the parse stopped there, and the line must not go the DOM way.
  bool too_deep() const { return too_deep_; }
  // A sample of the writer's shape: place and metric strings, value a number or text a string.
  bool good() const { return type_ == "sample" && !odd_ && has_place_ && has_metric_ && (s.value || s.text); }
  std::optional<long long> seq;  // the writer's record number, when the line has one
  // The params objects the line had at its top level ("params" twice: the last one counts).
  int params_objects() const { return params_objects_; }
  bool params_empty() const { return params_.is_object() && params_.empty(); }
  // `known`: the params the caller cut out of the line (replaced by {}) because it has seen
  // their text before; only when the line's one params object is that {}.
  Sample take(SharedParamsPool& pool, const Params* known = nullptr) {
    if (!has_probe_) s.probe = s.metric.substr(0, s.metric.find('.'));
    if (known) s.params = *known;
    else if (has_params_) s.params = pool.intern(std::move(params_));
    return std::move(s);
  }

 private:
  enum class Field { type, probe, place, metric, unit, text, value, rank, iter, params, seq, other };
  // Views, so that a key is compared by its length first: ~8 keys a line and 3.6 M lines at
  // 4096 hosts, and comparing each with every name as a C string (strlen and memcmp) was ~1 s.
  static Field field_of(std::string_view k) {
    static constexpr std::pair<std::string_view, Field> names[] = {
        {"type", Field::type}, {"probe", Field::probe}, {"place", Field::place}, {"metric", Field::metric},
        {"unit", Field::unit}, {"text", Field::text}, {"value", Field::value}, {"rank", Field::rank},
        {"iter", Field::iter}, {"params", Field::params}, {"seq", Field::seq}};
    for (const auto& [n, f] : names)
      if (k == n) return f;
    return Field::other;
  }
  bool in_params() const { return !stack_.empty(); }
  bool deep() {
    too_deep_ = true;
    return false;  // stops sax_parse
  }
  bool add(nlohmann::json v) {
    nlohmann::json& top = *stack_.back();
    if (top.is_array()) top.push_back(std::move(v));
    else top[key_] = std::move(v);
    return true;
  }
  bool open(nlohmann::json v) {
    nlohmann::json& top = *stack_.back();
    nlohmann::json* child;
    if (top.is_array()) {
      top.push_back(std::move(v));
      child = &top.back();
    } else {
      child = &(top[key_] = std::move(v));
    }
    stack_.push_back(child);
    return true;
  }
  template <class T>
  bool scalar(T v) {
    if (in_params()) return add(nlohmann::json(v));
    if (depth_ != 1) return true;
    constexpr bool is_null = std::is_same_v<T, std::nullptr_t>;
    constexpr bool is_int = std::is_same_v<T, number_integer_t> || std::is_same_v<T, number_unsigned_t>;
    constexpr bool is_number = is_int || std::is_same_v<T, number_float_t>;
    switch (field_) {
      case Field::value:
        if constexpr (is_number) s.value = static_cast<double>(v);
        else if constexpr (!is_null) odd_ = true;
        break;
      case Field::text:
        if constexpr (!is_null) odd_ = true;
        break;
      case Field::rank:
      case Field::iter:
        // A whole number an int holds; anything else goes to the DOM reader, whose error names it.
        if constexpr (is_int) {
          if (std::in_range<int>(v)) (field_ == Field::rank ? s.rank : s.iter) = static_cast<int>(v);
          else odd_ = true;
        } else {
          odd_ = true;
        }
        break;
      case Field::params:
        if constexpr (!is_null) odd_ = true;
        break;
      case Field::seq:
        if constexpr (is_int) seq = static_cast<long long>(v);
        else odd_ = true;
        break;
      case Field::other: break;
      default: odd_ = true; break;  // type, probe, place, metric, unit: strings
    }
    return true;
  }

  Sample s;
  std::string type_, key_;
  Field field_ = Field::other;
  int depth_ = 0;
  bool too_deep_ = false, odd_ = false, has_place_ = false, has_metric_ = false, has_probe_ = false, has_params_ = false;
  int params_objects_ = 0;
  nlohmann::json params_;
  std::vector<nlohmann::json*> stack_;
};

// Where the value of a record's top-level "params" key lies in its text, when it is an object:
// [first, last) from its '{' to past its '}'. None for anything else (no such key, its value not
// an object, the key spelled with escapes, text that does not balance): such a line is parsed
// whole. Strings are skipped with their escapes, so no brace or key inside one is taken.
std::optional<std::pair<std::size_t, std::size_t>> params_span(std::string_view t) {
  std::size_t i = t.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || t[i] != '{') return std::nullopt;
  auto past_string = [&](std::size_t at) {  // t[at] is '"'; the index past its closing quote, or npos
    for (std::size_t k = at + 1; k < t.size(); ++k) {
      if (t[k] == '\\') ++k;
      else if (t[k] == '"') return k + 1;
    }
    return std::string_view::npos;
  };
  auto skip_space = [&](std::size_t at) {
    while (at < t.size() && (t[at] == ' ' || t[at] == '\t' || t[at] == '\r' || t[at] == '\n')) ++at;
    return at;
  };
  int depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      const std::size_t end = past_string(i);
      if (end == std::string_view::npos) return std::nullopt;
      if (depth == 1 && t.substr(i, end - i) == "\"params\"") {
        std::size_t v = skip_space(end);
        if (v >= t.size() || t[v] != ':') {
          i = end;  // a value that reads "params", not the key
          continue;
        }
        v = skip_space(v + 1);
        if (v >= t.size() || t[v] != '{') return std::nullopt;
        int d = 0;
        for (std::size_t k = v; k < t.size();) {
          if (t[k] == '"') {
            k = past_string(k);
            if (k == std::string_view::npos) return std::nullopt;
            continue;
          }
          if (t[k] == '{' || t[k] == '[') ++d;
          else if ((t[k] == '}' || t[k] == ']') && --d == 0) return std::pair(v, k + 1);
          ++k;
        }
        return std::nullopt;
      }
      i = end;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') --depth;
    ++i;
  }
  return std::nullopt;
}

// `body`: the line's record without its chain (split_chained), or empty for a line that is not
// chained, which is parsed whole. A chained line is parsed as its body and a closing brace,
// copied into `scratch` (the caller's, reused line after line): the parser never sees the 76
// bytes of the chain it has no use for (lexing them was most of what the chain cost the
// reader), and a copy of ~250 bytes costs less than an iterator that tests at every byte
// whether it is past the body. Params whose text the pool has seen are cut out of that copy
// the same way (replaced by {}) and taken from the pool: lexing them, building their value and
// dumping it again was a fifth of reading.
void parse_line(const std::string& line, std::string_view body, ParsedLine& out, SharedParamsPool& pool,
                std::string& scratch) {
  const bool chained = !body.empty();
  const std::string_view record = chained ? body : std::string_view(line);
  const auto span = params_span(record);
  const std::string_view raw = span ? record.substr(span->first, span->second - span->first) : std::string_view{};
  std::optional<Params> known = span ? pool.find_raw(raw) : std::nullopt;
  if (known) {
    scratch.assign(record.substr(0, span->first)).append("{}").append(record.substr(span->second));
    if (chained) scratch.push_back('}');
    SampleSax sax;
    if (nlohmann::json::sax_parse(scratch, &sax) && sax.good() && sax.params_objects() == 1 && sax.params_empty()) {
      out.seq = sax.seq;
      out.sample = sax.take(pool, &*known);
      out.is_sample = true;
      return;
    }
    // Anything else (another record type, a second params, an error) is read from the line as
    // it is, below, so that what it gives and what its error says do not depend on the cut.
  }
  if (chained) scratch.assign(body).push_back('}');
  const std::string& text = chained ? scratch : line;
  {
    SampleSax sax;
    if (nlohmann::json::sax_parse(text, &sax) && sax.good()) {
      out.seq = sax.seq;
      const bool one_params = sax.params_objects() == 1;
      out.sample = sax.take(pool);
      out.is_sample = true;
      if (span && one_params) pool.remember_raw(raw, out.sample.params);
      return;
    }
    if (sax.too_deep()) {
      out.error = "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (not a gpuaccept record)";
      return;
    }
  }
  try {
    out.record = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    out.parse_error = e.what();
    return;
  }
  if (auto q = out.record.find("seq"); q != out.record.end()) {
    if (!q->is_number_integer()) {
      out.error = "\"seq\" is not a whole number";
      return;
    }
    out.seq = q->get<long long>();
  }
  try {
    auto t = out.record.find("type");
    if (t != out.record.end() && t->is_string() && *t->get_ptr<const std::string*>() == "sample") {
      out.sample = sample_from_record(std::move(out.record), pool);
      out.record = nullptr;
      out.is_sample = true;
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
}

// Lines are parsed in batches by a few threads (parsing is nearly all of reading: 3.6 M lines
// at 4096 hosts), then taken in file order by one, so what depends on order (a probe's begin
// before its outcomes, the line an error names) is as a one-line-at-a-time reader has it.
constexpr std::size_t kBatchLines = 1 << 14;

unsigned reader_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(hw, 1u, 8u);
}

// One batch of lines and what they parse into. Threads claim lines a chunk at a time, so the
// thread that also reads and takes (parse_journal) parses what it has time left for.
struct ReadBatch {
  // Grown as lines come, up to kBatchLines, by the reading thread while no other touches this
  // batch: made whole up front, a journal of a few lines (a health check, a fuzz input)
  // constructed 2 x 16 k empty lines, ~90 ms per call in the sanitizer build.
  std::vector<std::string> lines;
  std::vector<ParsedLine> parsed;
  std::size_t n = 0;           // lines in this batch
  bool has_last = false;       // it holds the stream's last line
  bool has_first = false;      // it holds the stream's first line
  std::optional<base::Digest> chain_before;  // the chain of the line before this batch's first
  std::atomic<std::size_t> claimed{0};
};
constexpr std::size_t kClaimLines = 256;

// The chain of line i checked against its body and the previous line's chain: hashing is a
// third of reading a chained journal, so it is done here, by the parsing threads, each line
// on its own (the previous line's chain is in its text).
// `before`: line i-1 split, where the caller already has it (the previous line of its chunk).
void link_line(ReadBatch& b, std::size_t i, const std::optional<ChainedLine>& own,
               const std::optional<ChainedLine>* before, base::Sha256& h) {
  ParsedLine& pl = b.parsed[i];
  if (!own) return;
  pl.chain = own->chain;
  std::optional<base::Digest> prev;
  if (i > 0) {
    const std::optional<ChainedLine> p = before ? *before : split_chained(b.lines[i - 1]);
    if (p) prev = p->chain;
  } else {
    prev = b.chain_before;
  }
  const bool first = i == 0 && b.has_first;
  if (!first && !prev) {
    pl.link = ParsedLine::Link::broken;
    return;
  }
  pl.link = chain_after(h, first ? nullptr : &*prev, own->body) == own->chain ? ParsedLine::Link::ok
                                                                               : ParsedLine::Link::broken;
}

void parse_some(ReadBatch& b, SharedParamsPool& pool) {
  base::Sha256 h;
  std::string scratch;
  for (;;) {
    std::size_t i = b.claimed.fetch_add(kClaimLines);
    if (i >= b.n) return;
    // Each line split once: its chain is the next line's previous one (split again only at a
    // chunk's first line, whose previous line another thread may hold).
    std::optional<ChainedLine> last;
    bool have_last = false;  // `last` is line i-1 split
    for (const std::size_t end = std::min(i + kClaimLines, b.n); i < end; ++i) {
      if (b.lines[i].empty()) {
        have_last = false;
        continue;
      }
      auto own = split_chained(b.lines[i]);
      parse_line(b.lines[i], own ? own->body : std::string_view{}, b.parsed[i], pool, scratch);
      link_line(b, i, own, have_last ? &last : nullptr, h);
      last = std::move(own);
      have_last = true;
    }
  }
}

}  // namespace

namespace {

std::string string_field(const nlohmann::json& r, const char* key) {
  auto it = r.find(key);
  return it != r.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// The order rank 0 writes in (app/run_loop.cpp): run_start; a topology record per host; the
// run-start readings (samples, no probe open); per suite entry probe_begin, its samples and
// one outcome per rank, probe_end; the run-end readings (samples, no probe open); run_end.
// Only `signal` and `incomplete` records come from other processes (survivors of a signal,
// the watchdog, the deputy), at any time after run_start, after run_end too (a rank lost in
// MPI_Finalize), so they are not checked here. A journal that departs from this order was
// concatenated, edited or corrupted, and judging it would count a measurement twice or put
// samples under a probe that did not take them: it is refused, naming the line.
class OrderCheck {
 public:
  explicit OrderCheck(const std::string& name) : name_(name) {}

  // Before read_record, for every record but a sample. A record whose fields are not of the
  // writer's types is left to read_record, whose errors name them.
  void record(const nlohmann::json& r, int line) {
    const std::string type = string_field(r, "type");
    if (type.empty() || type == "signal" || type == "incomplete") return;
    if (type == "run_start") {
      if (run_start_) fail(line, "a second run_start (the first is line " + std::to_string(run_start_) +
                                     "): two journals in one file");
      run_start_ = line;
      return;
    }
    if (!run_start_) fail(line, type + " before any run_start: not a gpuaccept journal, or not its start");
    if (run_end_) fail(line, type + " after run_end (line " + std::to_string(run_end_) + ")");
    const std::string probe = string_field(r, "probe");
    if (type == "topology") {
      const auto [it, first] = topology_hosts_.emplace(string_field(r, "host"), line);
      if (!first)
        fail(line, "a second topology record for host \"" + it->first + "\" (the first is line " +
                       std::to_string(it->second) + ")");
    } else if (type == "probe_begin") {
      if (probe.empty()) return;
      if (!open_.empty()) fail(line, "probe_begin of \"" + probe + "\" while probe \"" + open_ + "\" (begun line " +
                                         std::to_string(open_line_) + ") has not ended");
      if (between_line_)
        fail(between_line_, "sample of probe \"" + between_probe_ + "\" between the probe_end of \"" + last_end_ +
                                "\" (line " + std::to_string(last_end_line_) + ") and the probe_begin of \"" + probe +
                                "\" (line " + std::to_string(line) + "): outside its probe's begin and end");
      open_ = probe;
      open_line_ = line;
      outcome_lines_.clear();
    } else if (type == "outcome" || type == "probe_end") {
      if (probe.empty()) return;
      if (open_ != probe) {
        if (!open_.empty())
          fail(line, type + " for probe \"" + probe + "\" while probe \"" + open_ + "\" (begun line " +
                         std::to_string(open_line_) + ") is open");
        auto e = ended_.find(probe);
        if (e == ended_.end()) return;  // read_record: "before its probe_begin"
        fail(line, type + " for probe \"" + probe + "\" after its probe_end (line " + std::to_string(e->second) + ")");
      }
      if (type == "outcome") {
        auto rk = r.find("rank");
        if (rk == r.end() || !rk->is_number_integer()) return;
        const auto [it, first] = outcome_lines_.emplace(rk->get<long long>(), line);
        if (!first)
          fail(line, "a second outcome for rank " + std::to_string(it->first) + " of probe \"" + probe +
                         "\" (the first is line " + std::to_string(it->second) + ")");
        return;
      }
      ended_[probe] = line;
      last_end_ = probe;
      last_end_line_ = line;
      open_.clear();
    } else if (type == "run_end") {
      if (!open_.empty())
        fail(line, "run_end while probe \"" + open_ + "\" (begun line " + std::to_string(open_line_) +
                       ") has not ended");
      run_end_ = line;
    }
  }

  // Every record rank 0's writer numbered: each seq once, rising. A line written twice carries
  // its seq twice; lines moved carry theirs out of order. Equal content is no evidence: a
  // probe may measure the same thing twice (the adaptive planner pairs two hosts again in a
  // later round), and a boolean sample of a pair is then the same line but for its seq.
  void seq(long long seq, int line) {
    if (seq <= 0) fail(line, "\"seq\" " + std::to_string(seq) + " is not a record number (1, 2, ...)");
    // The writer numbers its records and nothing else, so a record's seq is at most its line
    // (moved a little, a little more): bounded before anything is sized from it, as one line
    // with seq 10^15 must not allocate. Where a line moved far forward, this names it.
    if (seq > 2LL * line + 1024)
      fail(line, "\"seq\" " + std::to_string(seq) + " on line " + std::to_string(line) +
                     ": not a record number the writer could have given this early in the file");
    const auto at = static_cast<std::size_t>(seq);
    if (at < seq_lines_.size() && seq_lines_[at])
      fail(line, "duplicate of line " + std::to_string(seq_lines_[at]) + " (record seq " + std::to_string(seq) + " twice)");
    if (seq <= last_seq_)
      fail(line, "out of order: record seq " + std::to_string(seq) + " after seq " + std::to_string(last_seq_) +
                     " (line " + std::to_string(last_seq_line_) + ")");
    if (at >= seq_lines_.size()) seq_lines_.resize(std::max(at + 1, seq_lines_.size() * 2), 0);
    seq_lines_[at] = line;
    last_seq_ = seq, last_seq_line_ = line;
  }

  void sample(const Sample& s, int line) {
    if (!run_start_) fail(line, "sample before any run_start: not a gpuaccept journal, or not its start");
    if (run_end_) fail(line, "sample after run_end (line " + std::to_string(run_end_) + ")");
    if (!open_.empty()) {
      // The harness's counters around a fabric probe (probes/harness/net_watch.hpp) are the net
      // probe's, taken during the open one and saying so.
      const bool around = s.probe == "net" && s.params.contains("during") && s.params["during"].is_string() &&
                          s.params["during"].get<std::string>() == open_;
      if (s.probe != open_ && !around)
        fail(line, "sample of probe \"" + s.probe + "\" inside probe \"" + open_ + "\" (begun line " +
                       std::to_string(open_line_) + ")");
    } else if (last_end_line_ && !between_line_) {
      // Legitimate if it is a run-end reading, that is if no probe_begin follows.
      between_line_ = line;
      between_probe_ = s.probe;
    }
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const { throw JournalError(name_, line, what); }

  const std::string& name_;
  int run_start_ = 0, run_end_ = 0;
  std::string open_;  // the probe between its probe_begin and probe_end, "" when none
  int open_line_ = 0;
  std::map<std::string, int> ended_;  // probe -> line of its latest probe_end
  std::string last_end_;
  int last_end_line_ = 0;
  std::map<long long, int> outcome_lines_;  // rank -> line, in the open probe
  std::map<std::string, int> topology_hosts_;
  std::string between_probe_;  // the first sample with no probe open after a probe_end
  int between_line_ = 0;
  long long last_seq_ = 0;
  int last_seq_line_ = 0;
  std::vector<int> seq_lines_;  // seq -> its line (dense: the writer counts 1, 2, ...)
};

}  // namespace

namespace {

// The chain, in file order, from the link each parsing thread found (link_line): a journal
// whose run_start says schema 2 is chained from its first line to its last, every record
// numbered 1, 2, ... in file order. One of schema 1 (before the chain) is read as before, its
// "seq" checked by OrderCheck.
class ChainCheck {
 public:
  ChainCheck(const std::string& name, const std::string& find_hex) : name_(name) {
    base::Digest d;
    if (!find_hex.empty() && base::digest_from_hex(find_hex, d)) wanted_ = d;
  }
  bool chained() const { return state_ == State::chained; }
  const base::Digest& head() const { return head_; }
  std::optional<int> found() const { return found_; }
  int last_line() const { return last_line_; }

  void record(const ParsedLine& pl) {
    if (state_ == State::unknown) {
      auto t = pl.record.find("type");
      if (t == pl.record.end() || !t->is_string() || t->get<std::string>() != "run_start") return;
      auto v = pl.record.find("schema_version");
      if (v == pl.record.end() || !v->is_number_integer() || v->get<long long>() < kJournalSchemaVersion) {
        state_ = State::old;  // or a version read_record refuses
        return;
      }
      if (pl.lineno != 1)
        fail(1, "a chained journal (schema 2) begins with its run_start, line " + std::to_string(pl.lineno) +
                    ": what comes before it was added");
      state_ = State::chained;
    }
    line(pl);
  }

  void line(const ParsedLine& pl) {
    if (state_ != State::chained) return;
    using Link = ParsedLine::Link;
    if (pl.link == Link::none)
      fail(pl.lineno, "no \"chain\": every record of a chained journal (schema 2) ends with its seq and chain; "
                      "this line was written by something else, or edited");
    if (pl.link == Link::broken)
      fail(pl.lineno, pl.lineno == 1 ? "the chain breaks at the first record: its chain is not its own bytes' SHA-256 (edited)"
                                     : "the chain breaks here: this line's chain is not the SHA-256 of line " +
                                           std::to_string(pl.lineno - 1) +
                                           "'s chain and this line's bytes (this line was edited, or a line "
                                           "before it deleted, doubled or moved)");
    const long long want = last_seq_ + 1;
    if (!pl.seq) fail(pl.lineno, "no \"seq\": every record of a chained journal (schema 2) carries one");
    if (*pl.seq != want)
      fail(pl.lineno, "\"seq\" " + std::to_string(*pl.seq) + " where " + std::to_string(want) + " follows " +
                          (last_line_ ? "line " + std::to_string(last_line_) : std::string("the start")));
    last_seq_ = want;
    last_line_ = pl.lineno;
    head_ = pl.chain;
    if (wanted_ && pl.chain == *wanted_) found_ = pl.lineno;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const { throw JournalError(name_, line, what); }
  enum class State { unknown, chained, old };
  const std::string& name_;
  State state_ = State::unknown;
  long long last_seq_ = 0;
  int last_line_ = 0;
  base::Digest head_{};
  std::optional<base::Digest> wanted_;
  std::optional<int> found_;
};

}  // namespace

namespace {

// Room for a batch's `more` samples, and the slots they will fill faulted in at once
// (base/prefault.hpp says why): taking 3 M samples at 4096 hosts into slots faulted one page at
// a time was a large part of the reader's one-thread time. The buffer is reserved once
// (parse_journal); where the stream could not tell its size, or the guess was short, it grows
// as push_back would grow it, the part the samples move into faulted in the same way.
void make_room(std::vector<Sample>& samples, std::size_t more) {
  if (samples.size() + more > samples.capacity()) {
    std::vector<Sample> bigger;
    bigger.reserve(std::max({std::size_t{1024}, 2 * samples.capacity(), samples.size() + more}));
    base::prefault_tail(bigger, samples.size() + more);
    bigger.insert(bigger.end(), std::make_move_iterator(samples.begin()), std::make_move_iterator(samples.end()));
    samples.swap(bigger);
    return;
  }
  base::prefault_tail(samples, more);
}

// Bytes left in the stream where it can tell (a file, a string), else 0.
std::uint64_t bytes_left(std::istream& in) {
  const auto here = in.tellg();
  if (here < 0) return 0;
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  in.clear();
  in.seekg(here);
  return end > here ? static_cast<std::uint64_t>(end - here) : 0;
}

// Fewer bytes than any sample line the writer makes (a line holds type, probe, place, metric,
// value, unit, params, rank, iter and seq; 185 bytes on average at 4096 hosts).
constexpr std::uint64_t kSmallSampleLine = 128;

}  // namespace

JournalData parse_journal(std::istream& in, const std::string& name, const std::string& find_chain) {
  JournalData d;
  OrderCheck order(name);
  ChainCheck chain(name, find_chain);
  // Room for as many samples as the stream could hold, reserved once: growing by doubling
  // moved every sample again at each step, 3 of the reader's 15 s at 4096 hosts. Reserved
  // memory that is never written is never made resident (the slots are faulted in a batch at a
  // time, make_room), so a generous guess costs address space, not memory.
  d.samples.reserve(bytes_left(in) / kSmallSampleLine);
  const unsigned threads = reader_threads();
  // The samples' distinct params, each held once (p2p params name their pair: at 4096 hosts
  // there are hundreds of thousands), interned by the threads as they parse.
  SharedParamsPool params;

  // Batch by batch, one line ahead (to know the last one): a journal of 4096 hosts is 600 MiB,
  // and holding it all as strings besides the samples made of it doubled the reader's peak.
  std::string next;
  bool have = static_cast<bool>(std::getline(in, next));
  int lineno = 0;
  std::optional<base::Digest> chain_carried;  // of the last line read
  auto read_into = [&](ReadBatch& b) {
    b.n = 0;
    b.claimed = 0;
    b.has_first = lineno == 0;
    b.chain_before = chain_carried;
    while (have && b.n < kBatchLines) {
      if (b.n == b.lines.size()) b.lines.emplace_back(), b.parsed.emplace_back();
      b.lines[b.n].swap(next);
      b.parsed[b.n] = ParsedLine{};
      b.parsed[b.n].lineno = ++lineno;
      ++b.n;
      have = static_cast<bool>(std::getline(in, next));
    }
    b.has_last = !have;
    if (b.n > 0) {
      const auto c = split_chained(b.lines[b.n - 1]);
      chain_carried = c ? std::optional(c->chain) : std::nullopt;
    }
  };
  // Takes a parsed batch in file order; false when it stopped at a torn last line.
  auto take = [&](ReadBatch& b) {
    std::size_t samples_in_batch = 0;
    for (std::size_t i = 0; i < b.n; ++i) samples_in_batch += b.parsed[i].is_sample;
    make_room(d.samples, samples_in_batch);
    for (std::size_t i = 0; i < b.n; ++i) {
      ParsedLine& pl = b.parsed[i];
      if (b.lines[i].empty()) {
        // The writer writes none; in a chained journal it is an edit like any other.
        if (chain.chained()) throw JournalError(name, pl.lineno, "an empty line: gpuaccept writes none (the file was edited)");
        continue;
      }
      const bool last = b.has_last && i + 1 == b.n;
      if (!pl.parse_error.empty()) {
        // A crash mid-write tears only the last line; anything else is corruption.
        if (last) return false;
        throw JournalError(name, pl.lineno, "not JSON: " + pl.parse_error);
      }
      if (!pl.error.empty()) throw JournalError(name, pl.lineno, pl.error);
      if (pl.is_sample) {
        chain.line(pl);
        d.samples.push_back(std::move(pl.sample));
        order.sample(d.samples.back(), pl.lineno);
        if (pl.seq && !chain.chained()) order.seq(*pl.seq, pl.lineno);
        continue;
      }
      order.record(pl.record, pl.lineno);  // first: "a second run_start" says more than its seq
      chain.record(pl);
      if (pl.seq && !chain.chained()) order.seq(*pl.seq, pl.lineno);
      read_record(d, std::move(pl.record), name, pl.lineno);
    }
    return true;
  };

  // Three steps overlap: while the other threads parse one batch, this one takes the batch
  // before it (in file order: what depends on order stays as a one-line-at-a-time reader has
  // it), reads the batch after it, and then helps parse. Reading lines and taking samples were
  // ~4 of the reader's ~10 s at 4096 hosts, on this thread alone while the other core waited.
  ReadBatch first, second;
  ReadBatch* parsed = &first;  // parsed, to take (nothing the first time round)
  ReadBatch* fresh = &second;  // read, to parse
  read_into(*fresh);
  bool to_take = false, torn = false;
  while (!torn && (to_take || fresh->n > 0)) {
    auto here = [&] {
      if (to_take && !take(*parsed)) torn = true;
      // Taken: its buffers hold the batch after `fresh` now (nothing follows a torn line).
      if (torn) parsed->n = 0;
      else read_into(*parsed);
      parse_some(*fresh, params);
    };
    if (threads > 1 && fresh->n >= 256) {
      base::both(
          [&] {
            std::vector<std::jthread> more;
            for (unsigned t = 2; t < threads; ++t) more.emplace_back([&] { parse_some(*fresh, params); });
            parse_some(*fresh, params);
          },
          here);
    } else {
      here();
    }
    std::swap(parsed, fresh);
    to_take = parsed->n > 0;
  }
  if (d.run_start.empty()) throw JournalError(name, 1, "no run_start record: not a gpuaccept journal");
  d.schema_version = base::integer_or(d.run_start, "schema_version", 0);
  if (chain.chained()) {
    d.chain_head = base::to_hex(chain.head());
    d.lines = chain.last_line();
    d.line_of_chain = chain.found();
  }
  return d;
}


JournalData read_journal(const std::string& path, const std::string& find_chain) {
  std::ifstream in(path);
  if (!in) throw JournalError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return parse_journal(in, path, find_chain);
}

}  // namespace ga
