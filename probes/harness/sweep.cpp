#include "probes/harness/sweep.hpp"

#include <map>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "base/quantity.hpp"
#include "base/units.hpp"
#include "probes/probe.hpp"

namespace ga::sweep {
namespace {

double factor_one(int) { return 1.0; }
double factor_allreduce(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0.0; }
double factor_share(int n) { return n > 0 ? double(n - 1) / n : 0.0; }

// Whole buffers: every rank sends and receives `elements`.
Counts counts_whole(std::size_t e, int) { return {e, e, e}; }
// all_gather: each rank brings its share of the gathered buffer.
Counts counts_gather(std::size_t e, int n) {
  const std::size_t per = e / static_cast<std::size_t>(n);
  return {per, per * static_cast<std::size_t>(n), per};
}
// reduce_scatter: each rank keeps its share of the reduced buffer.
Counts counts_scatter(std::size_t e, int n) {
  const std::size_t per = e / static_cast<std::size_t>(n);
  return {per * static_cast<std::size_t>(n), per, per};
}
// alltoall: one block per peer in both buffers; the call's count is one block.
Counts counts_alltoall(std::size_t e, int n) {
  const std::size_t per = e / static_cast<std::size_t>(n);
  return {per * static_cast<std::size_t>(n), per * static_cast<std::size_t>(n), per};
}

const std::array<CollectiveDesc, 7> kDescs{{
    {Collective::all_reduce, "all_reduce", false, true, counts_whole, factor_allreduce},
    {Collective::all_gather, "all_gather", false, false, counts_gather, factor_share},
    {Collective::reduce_scatter, "reduce_scatter", false, true, counts_scatter, factor_share},
    {Collective::broadcast, "broadcast", true, false, counts_whole, factor_one},
    {Collective::reduce, "reduce", true, true, counts_whole, factor_one},
    {Collective::alltoall, "alltoall", false, false, counts_alltoall, factor_share},
    {Collective::sendrecv, "sendrecv", false, false, counts_whole, factor_one},
}};

std::uint64_t as_bytes(const nlohmann::json& v, const char* key) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (v.is_string()) {  // "64K", "16M", "1G" like nccl-tests -b/-e
    const std::string s = v.get<std::string>();
    std::size_t pos = 0;
    unsigned long long n = 0;
    try {
      n = std::stoull(s, &pos);
    } catch (const std::exception&) {
      throw std::invalid_argument(std::string("sweep param ") + key + ": \"" + s + "\" is not a size");
    }
    const std::string suffix = s.substr(pos);
    if (suffix.empty() || suffix == "B") return n;
    if (suffix == "K" || suffix == "KiB") return n << 10;
    if (suffix == "M" || suffix == "MiB") return n << 20;
    if (suffix == "G" || suffix == "GiB") return n << 30;
    throw std::invalid_argument(std::string("sweep param ") + key + ": unknown size suffix in \"" + s + "\"");
  }
  throw std::invalid_argument(std::string("sweep param ") + key + ": " + v.dump() + " is not a size in bytes");
}

int as_int(const nlohmann::json& v, const char* key, int min) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < min || v.get<std::int64_t>() > 1'000'000'000)
    throw std::invalid_argument(std::string("sweep param ") + key + ": " + v.dump() + " is not an integer >= " +
                                std::to_string(min));
  return v.get<int>();
}

bool as_bool(const nlohmann::json& v, const char* key) {
  if (!v.is_boolean()) throw std::invalid_argument(std::string("sweep param ") + key + ": " + v.dump() + " is not true/false");
  return v.get<bool>();
}

}  // namespace

std::string_view to_string(Collective c) { return describe(c).name; }

std::optional<Collective> collective_from_string(std::string_view s) {
  std::string bare;
  for (char ch : s)
    if (ch != '_') bare += ch;
  for (const auto& d : kDescs) {
    std::string name;
    for (char ch : d.name)
      if (ch != '_') name += ch;
    if (bare == name) return d.kind;
  }
  return std::nullopt;
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all{Collective::all_reduce, Collective::all_gather,
                                           Collective::reduce_scatter, Collective::broadcast,
                                           Collective::reduce, Collective::alltoall, Collective::sendrecv};
  return all;
}

const CollectiveDesc& describe(Collective c) {
  for (const auto& d : kDescs)
    if (d.kind == c) return d;
  throw std::logic_error("sweep: collective without a description");
}

Counts counts_for(Collective c, std::uint64_t bytes, std::size_t type_size, int nranks) {
  if (type_size == 0 || nranks < 1) throw std::invalid_argument("sweep: element size and rank count must be positive");
  return describe(c).counts(static_cast<std::size_t>(bytes / type_size), nranks);
}

Bandwidth bandwidth_of(Collective c, std::uint64_t bytes, double seconds, int nranks) {
  if (!(seconds > 0)) return {};
  const double alg = double(bytes) / seconds;
  return {alg, alg * bus_factor(c, nranks)};
}

std::vector<std::uint64_t> sweep_sizes(const SizeRange& r) {
  if (r.min_bytes == 0) throw std::invalid_argument("sweep: min_bytes must be at least 1");
  if (r.max_bytes < r.min_bytes)
    throw std::invalid_argument("sweep: max_bytes " + std::to_string(r.max_bytes) + " is below min_bytes " +
                                std::to_string(r.min_bytes));
  if (!(r.step_factor > 1.0)) throw std::invalid_argument("sweep: step_factor must be above 1");
  std::vector<std::uint64_t> out;
  // Multiply in doubles but start each step from the rounded size, as nccl-tests does, so a
  // factor of 2 from 8 gives exact powers of two.
  for (std::uint64_t s = r.min_bytes; s <= r.max_bytes;) {
    out.push_back(s);
    const double next = std::floor(double(s) * r.step_factor);
    if (next <= double(s) || next > double(r.max_bytes)) break;
    s = static_cast<std::uint64_t>(next);
  }
  return out;
}

Corruption corruption_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("corrupt: expected {collective, size, rank}, got " + j.dump());
  for (const auto& [k, v] : j.items())
    if (k != "collective" && k != "size" && k != "rank" && k != "in_place")
      throw std::invalid_argument("corrupt: unknown key \"" + k + "\" (allowed: collective, size, rank, in_place)");
  Corruption c;
  const auto name = j.value("collective", std::string("all_reduce"));
  auto coll = collective_from_string(name);
  if (!coll) throw std::invalid_argument("corrupt: unknown collective \"" + name + "\"");
  c.coll = *coll;
  if (!j.contains("size")) throw std::invalid_argument("corrupt: size (bytes of the line) is required");
  c.bytes = as_bytes(j.at("size"), "corrupt.size");
  c.rank = j.contains("rank") ? as_int(j.at("rank"), "corrupt.rank", 0) : 0;
  if (j.contains("in_place")) c.in_place = as_bool(j.at("in_place"), "corrupt.in_place");
  return c;
}

SweepConfig sweep_config_from_params(const nlohmann::json& p, SweepConfig cfg) {
  if (!p.is_object()) return cfg;
  if (p.contains("min_bytes")) cfg.sizes.min_bytes = as_bytes(p.at("min_bytes"), "min_bytes");
  if (p.contains("max_bytes")) cfg.sizes.max_bytes = as_bytes(p.at("max_bytes"), "max_bytes");
  if (p.contains("step_factor")) {
    const auto& v = p.at("step_factor");
    if (!v.is_number() || !(v.get<double>() > 1.0))
      throw std::invalid_argument("sweep param step_factor: " + v.dump() + " is not a number above 1");
    cfg.sizes.step_factor = v.get<double>();
  }
  if (p.contains("collectives")) {
    const auto& v = p.at("collectives");
    if (!v.is_array() || v.empty())
      throw std::invalid_argument("sweep param collectives: expected a non-empty list of names, got " + v.dump());
    cfg.collectives.clear();
    for (const auto& e : v) {
      auto c = e.is_string() ? collective_from_string(e.get<std::string>()) : std::nullopt;
      if (!c)
        throw std::invalid_argument("sweep param collectives: unknown collective " + e.dump() +
                                    " (all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv)");
      cfg.collectives.push_back(*c);
    }
  }
  if (p.contains("in_place")) cfg.in_place = as_bool(p.at("in_place"), "in_place");
  if (p.contains("out_of_place")) cfg.out_of_place = as_bool(p.at("out_of_place"), "out_of_place");
  if (p.contains("check")) cfg.check = as_bool(p.at("check"), "check");
  if (p.contains("warmup_iters")) cfg.warmup_iters = as_int(p.at("warmup_iters"), "warmup_iters", 0);
  if (p.contains("max_iters")) cfg.max_iters = as_int(p.at("max_iters"), "max_iters", 1);
  if (p.contains("iters")) cfg.min_iters = cfg.max_iters = as_int(p.at("iters"), "iters", 1);
  if (p.contains("root")) cfg.root = as_int(p.at("root"), "root", 0);
  if (p.contains("time_across")) {
    const auto& v = p.at("time_across");
    if (v == "max") cfg.time_across = TimeAcrossRanks::max;
    else if (v == "avg") cfg.time_across = TimeAcrossRanks::avg;
    else throw std::invalid_argument("sweep param time_across: " + v.dump() + " is not \"max\" or \"avg\"");
  }
  if (cfg.min_iters > cfg.max_iters) cfg.min_iters = cfg.max_iters;
  sweep_sizes(cfg.sizes);  // validate the range now, naming the bound
  return cfg;
}

std::vector<Sample> line_samples(const LineResult& r, const SweepConfig& cfg, const std::string& dtype,
                                 int sample_rank) {
  nlohmann::json params = {{"collective", std::string(to_string(r.line.coll))},
                           {"size", r.line.bytes},
                           {"count", r.line.counts.count},
                           {"dtype", dtype},
                           {"in_place", r.line.in_place},
                           {"ranks", r.line.nranks}};
  if (describe(r.line.coll).rooted) params["root"] = r.line.root;
  for (const auto& [k, v] : cfg.extra_params.items()) params[k] = v;
  auto make = [&](const char* name, double value, const char* unit) {
    Sample s = value_sample(cfg.place, cfg.probe + "." + name, value, unit, params);
    s.rank = sample_rank;
    return s;
  };
  std::vector<Sample> out;
  out.push_back(make("time", r.seconds, unit::seconds));
  out.push_back(make("algbw", r.algbw, unit::bytes_per_second));
  out.push_back(make("busbw", r.busbw, unit::bytes_per_second));
  if (r.checked) out.push_back(make("wrong", double(r.wrong), unit::count));
  return out;
}

double average_busbw(const std::vector<LineResult>& lines) {
  if (lines.empty()) return 0;
  double s = 0;
  for (const auto& l : lines) s += l.busbw;
  return s / double(lines.size());
}

namespace {

struct PlannedLine {
  Line line;
};

std::vector<PlannedLine> plan(const SweepConfig& cfg, const Backend& be, int rank, int nranks,
                              std::vector<std::string>& skipped) {
  std::vector<PlannedLine> out;
  const auto sizes = sweep_sizes(cfg.sizes);
  for (auto c : cfg.collectives) {
    std::uint64_t last = 0;
    for (auto req : sizes) {
      Line l;
      l.coll = c;
      l.type_size = be.type_size();
      l.counts = counts_for(c, req, l.type_size, nranks);
      l.bytes = bytes_of(l.counts, l.type_size);
      l.root = describe(c).rooted ? cfg.root % nranks : 0;
      l.rank = rank;
      l.nranks = nranks;
      // Too small to give every rank an element, or the same as the previous line after
      // rounding: nothing new to measure.
      if (l.counts.count == 0 || l.bytes == last) continue;
      last = l.bytes;
      for (bool in_place : {false, true}) {
        if (in_place ? !cfg.in_place : !cfg.out_of_place) continue;
        if (!be.supports(c, in_place)) {
          const std::string why = std::string(to_string(c)) + (in_place ? " in place" : " out of place") +
                                  ": not supported by the backend";
          if (std::find(skipped.begin(), skipped.end(), why) == skipped.end()) skipped.push_back(why);
          continue;
        }
        l.in_place = in_place;
        out.push_back({l});
      }
    }
  }
  return out;
}

}  // namespace

SweepResult run_sweep(Comm& comm, Backend& be, const SweepConfig& cfg, SampleSink* sink) {
  SweepResult res;
  const int rank = comm.rank(), nranks = comm.size();
  std::vector<PlannedLine> lines;
  try {
    lines = plan(cfg, be, rank, nranks, res.skipped);
  } catch (const std::exception& e) {
    res.error = e.what();
    return res;
  }
  auto seconds_to_deadline = [&] {
    if (cfg.deadline == std::chrono::steady_clock::time_point::max()) return 1e30;
    return std::chrono::duration<double>(cfg.deadline - std::chrono::steady_clock::now()).count();
  };

  // The last line run of each collective: its size and the slowest rank's time per operation
  // (the same on every rank), to predict a larger one.
  std::map<std::pair<int, bool>, std::pair<std::uint64_t, double>> last_run;
  auto describe_line = [](const Line& l) {
    return std::string(to_string(l.coll)) + " " + std::to_string(l.bytes) + " B" +
           (l.in_place ? " in place" : " out of place");
  };
  for (std::size_t li = 0; li < lines.size(); ++li) {
    const Line& line = lines[li].line;
    // Every rank must take the same decisions (run the line or not, how many iterations), so
    // each decision is made on values reduced over the communicator.
    const double left = comm.allreduce_min(seconds_to_deadline());
    const double budget = left / double(lines.size() - li);
    // The sweep stops growing when the next size would not fit the time left: its time per
    // operation, scaled from the last line of the collective, times the operations it needs
    // at least (warm-up, the aligning one, the timed minimum, the checked one).
    const auto key = std::make_pair(static_cast<int>(line.coll), line.in_place);
    if (auto it = last_run.find(key); it != last_run.end() && it->second.first > 0 && line.bytes > it->second.first) {
      const double predicted = it->second.second * double(line.bytes) / double(it->second.first);
      const int ops = std::max(1, cfg.warmup_iters) + 1 + cfg.min_iters + (cfg.check ? 1 : 0);
      if (predicted * ops > left) {
        res.not_run.push_back(describe_line(line) + " (would take " + std::to_string(predicted * ops) + " s, " +
                              std::to_string(left) + " s left)");
        continue;
      }
    }
    if (left <= 0) {
      for (std::size_t k = li; k < lines.size(); ++k) {
        const Line& l = lines[k].line;
        res.not_run.push_back(std::string(to_string(l.coll)) + " " + std::to_string(l.bytes) + " B" +
                              (l.in_place ? " in place" : " out of place"));
      }
      break;
    }
    if (cfg.progress) {
      const auto scope = cfg.extra_params.find("scope");
      const std::string where = scope != cfg.extra_params.end() && scope->is_string() ? scope->get<std::string>() + " " : "";
      cfg.progress->step(where + std::string(to_string(line.coll)) + " " + base::format_quantity(double(line.bytes), "B") +
                             (line.in_place ? " in place" : " out of place"),
                         static_cast<int>(li + 1), static_cast<int>(lines.size()), "lines", StepCount::exact);
    }
    // An exception on one rank must not leave the others inside a collective: agree first.
    std::string err;
    try {
      be.prepare(line);
      be.fill(line);
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (comm.allreduce_max(err.empty() ? 0.0 : 1.0) > 0) {
      res.error = err.empty() ? "another rank failed to prepare " + std::string(to_string(line.coll)) : err;
      return res;
    }

    try {
      comm.barrier();
      // Warm-up doubles as the estimate of one operation's time, which sets the iteration
      // count: as many as fit the line's share of the remaining time, within [min, max].
      const int warm = std::max(1, cfg.warmup_iters);
      const double w0 = comm.wtime();
      for (int i = 0; i < warm; ++i) be.launch(line);
      be.synchronize();
      const double per_op = comm.allreduce_max((comm.wtime() - w0) / warm);
      last_run[key] = {line.bytes, per_op};
      int iters = cfg.max_iters;
      if (per_op > 0) {
        const double fit = std::floor(budget * 0.8 / per_op) - warm;
        iters = static_cast<int>(std::clamp(fit, double(cfg.min_iters), double(cfg.max_iters)));
      }
      iters = static_cast<int>(comm.allreduce_min(double(iters)));

      // One more operation just before the clock starts lines the ranks up (a polite barrier
      // releases them up to a millisecond apart; the collective itself does not).
      be.launch(line);
      be.synchronize();
      const double t0 = comm.wtime();
      for (int i = 0; i < iters; ++i) be.launch(line);
      be.synchronize();
      const double mine = (comm.wtime() - t0) / iters;

      LineResult r;
      r.line = line;
      r.iters = iters;
      r.seconds = cfg.time_across == TimeAcrossRanks::max ? comm.allreduce_max(mine)
                                                          : comm.allreduce_sum(mine) / nranks;
      const auto bw = bandwidth_of(line.coll, line.bytes, r.seconds, nranks);
      r.algbw = bw.algbw;
      r.busbw = bw.busbw;
      if (cfg.check) {
        // Checked apart from the timed operations, on freshly filled buffers: in-place
        // operations overwrite their input, so a checked repeat would see a moving target.
        be.fill(line);
        be.launch(line);
        be.synchronize();
        const double wrong_here = double(be.check(line));
        r.wrong = static_cast<std::uint64_t>(comm.allreduce_sum(wrong_here));
        r.checked = true;
        res.wrong_total += r.wrong;
      }
      if (sink && rank == cfg.emit_rank)
        for (auto& s : line_samples(r, cfg, be.dtype(), rank)) sink->emit(std::move(s));
      res.lines.push_back(r);
    } catch (const std::exception& e) {
      // A backend error inside a collective (MPI_ERRORS_RETURN) typically hits every rank; one
      // that hits only some ranks is left to the watchdog, which names the missing ranks.
      res.error = std::string(to_string(line.coll)) + " " + std::to_string(line.bytes) + " B: " + e.what();
      return res;
    }
  }
  return res;
}

std::vector<ParamDecl> sweep_param_decls(const SweepConfig& d, const std::string& max_bytes_note) {
  nlohmann::json colls = nlohmann::json::array();
  for (auto c : d.collectives) colls.push_back(std::string(to_string(c)));
  return {
      {"min_bytes", ParamType::any, d.sizes.min_bytes, {}, {}, {},
       "smallest size of the sweep (nccl-tests -b): bytes (>= 1), or a text such as \"64K\", \"16M\", \"1G\""},
      {"max_bytes", ParamType::any, d.sizes.max_bytes, {}, {}, {},
       "largest size of the sweep (nccl-tests -e): bytes, or a text such as \"64K\", \"16M\", \"1G\"" + max_bytes_note},
      {"step_factor", ParamType::number, d.sizes.step_factor, {}, {}, {},
       "each size is the previous one times this, above 1 (nccl-tests -f)"},
      {"collectives", ParamType::list, colls, {}, {}, {},
       "the collectives swept, a non-empty list of: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
       "sendrecv"},
      {"in_place", ParamType::boolean, d.in_place, {}, {}, {}, "measure every line in place"},
      {"out_of_place", ParamType::boolean, d.out_of_place, {}, {}, {}, "measure every line out of place"},
      {"check", ParamType::boolean, d.check, {}, {}, {}, "check the data of every line (nccl-tests -c)"},
      {"warmup_iters", ParamType::integer, d.warmup_iters, 0, 1e9, {}, "warm-up operations per line (nccl-tests -w)"},
      {"max_iters", ParamType::integer, d.max_iters, 1, 1e9, {},
       "timed operations per line at most; fewer when the deadline is near (nccl-tests -n)"},
      {"iters", ParamType::integer, nullptr, 1, 1e9, {}, "timed operations per line exactly (sets the least and the most)"},
      {"root", ParamType::integer, d.root, 0, 1e9, {}, "root rank of broadcast and reduce (modulo the ranks)"},
      {"time_across", ParamType::string, d.time_across == TimeAcrossRanks::max ? "max" : "avg", {}, {},
       {"max", "avg"}, "a line's time: the slowest rank's (max) or the mean over ranks (avg, nccl-tests' default)"},
  };
}

}  // namespace ga::sweep
