// The parameters of a sample, a metric or a verdict ({"size": 4194304, "direction": "a->b"}):
// an immutable JSON value shared by every copy, with its canonical text made once.
//
// Why not a plain nlohmann::json: at 4096 hosts the judge holds 4 M metrics and 2 M verdicts
// whose params are a few thousand distinct objects. Each its own nlohmann map was ~40% of the
// judge's memory, and params.dump() (the key of every grouping and ordering) a large part of
// its time. A copy here is a reference count; dump() returns the text made at construction.
#pragma once
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace ga {

class Params {
 public:
  Params();                                 // {}
  Params(nlohmann::json value);             // implicit: value_sample(..., {{"size", n}}) reads as before
  Params(std::initializer_list<nlohmann::detail::json_ref<nlohmann::json>> init)
      : Params(nlohmann::json(init)) {}

  const nlohmann::json& json() const { return e_->json; }
  operator const nlohmann::json&() const { return e_->json; }
  // Canonical: nlohmann objects keep their keys sorted, so equal params have equal text.
  const std::string& dump() const { return e_->text; }

  bool empty() const { return e_->json.empty(); }
  std::size_t size() const { return e_->json.size(); }
  bool is_object() const { return e_->json.is_object(); }
  bool contains(const std::string& key) const { return e_->json.is_object() && e_->json.contains(key); }
  nlohmann::json::const_iterator find(const std::string& key) const { return e_->json.find(key); }
  nlohmann::json::const_iterator begin() const { return e_->json.cbegin(); }
  nlohmann::json::const_iterator end() const { return e_->json.cend(); }
  auto items() const { return e_->json.items(); }
  const nlohmann::json& at(const std::string& key) const { return e_->json.at(key); }
  // Read only, and a missing key throws (nlohmann's const operator[] would be undefined).
  const nlohmann::json& operator[](const std::string& key) const { return e_->json.at(key); }
  template <class T>
  T value(const std::string& key, const T& fallback) const {
    return e_->json.is_object() ? e_->json.value(key, fallback) : fallback;
  }
  std::string value(const std::string& key, const char* fallback) const { return value(key, std::string(fallback)); }

  // A copy with one key set: the only edit callers make (the culprit analysis adds "rail").
  Params with(const std::string& key, nlohmann::json v) const;

  // Same object (shared), else the same canonical text.
  friend bool operator==(const Params& a, const Params& b) { return a.e_ == b.e_ || a.dump() == b.dump(); }
  friend bool operator==(const Params& a, const nlohmann::json& b) { return a.json() == b; }
  friend bool operator<(const Params& a, const Params& b) { return a.e_ != b.e_ && a.dump() < b.dump(); }

 private:
  struct Entry {
    nlohmann::json json;
    std::string text;
  };
  std::shared_ptr<const Entry> e_;
};

void to_json(nlohmann::json& j, const Params& p);

// Identical params made into one shared object: the journal reader interns each sample's, so
// millions of samples (and the metrics and verdicts made of them) share a few thousand.
class ParamsPool {
 public:
  // `text` is the value's canonical text (value.dump()), made by the caller outside any lock.
  Params intern(std::string&& text, nlohmann::json&& value);

 private:
  std::unordered_map<std::string, Params> by_text_;
};

// One pool that several threads intern into at once, locked in shards by the text's hash: the
// journal reader's parsing threads intern each sample's params as they parse it. Before, each
// thread interned into a pool of its own and the one thread that takes the samples in order
// interned every sample again into the pool they keep, 3.3 M lookups at 4096 hosts while the
// other core waited.
//
// It also remembers params by the text they had in the journal line (`raw`, as the writer
// dumped them): a line whose params text was seen before takes that object without building
// a JSON value of them, dumping it and hashing the dump (at 4096 hosts 3.3 M samples share a
// few thousand params, and that was a fifth of the reader's time). Raw text is only a key:
// the Params it finds was made from the parsed value, so two texts of one value (spacing, key
// order) are two keys of equal params.
class SharedParamsPool {
 public:
  Params intern(nlohmann::json&& value);
  std::optional<Params> find_raw(std::string_view raw);
  void remember_raw(std::string_view raw, const Params& p);

 private:
  struct Shard {
    std::mutex mu;
    ParamsPool pool;
  };
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct RawShard {
    std::mutex mu;
    std::unordered_map<std::string, Params, TextHash, std::equal_to<>> by_raw;
  };
  static constexpr std::size_t kShards = 64;  // two to eight threads: a shard is rarely contended
  std::array<Shard, kShards> shards_;
  std::array<RawShard, kShards> raw_shards_;
};

}  // namespace ga
