// Passing verdicts counted as the judge makes them (issue 36): past kFoldPassingAbove hosts a
// criterion's passes at one kind of place become one PassingFold, not a Verdict each. Internal
// to suites/: the public contract is Judgement::passing in suites/judge.hpp.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "suites/judge.hpp"

namespace ga::judging {

// Takes the foldable passes out of batches of verdicts, counting them; what is left of a batch
// stays in order. Used by one thread at a time. A pass is foldable unless it is at a place on
// a host in `keep` (the suspects a re-test re-judges: their passes are the evidence that clears
// them), or, while the fabric analyses have not explained the verdicts yet (`early`), on a
// metric whose passes they may still turn inconclusive or add words to.
class PassFolder {
 public:
  // `keep` outlives the folder (one set for every slot's folder).
  explicit PassFolder(const std::set<std::string>& keep) : keep_(keep) {}
  // Whether a pass at `place` of `metric` would be folded (take, early or not).
  bool folds(const std::string& metric, const std::string& place, bool early) const;
  // Compacts verdicts[from..] to what is not folded, in order. The judge makes the passes it
  // knows will fold without their reason text (a few million strings at 4096 hosts no file
  // shows); `remake` gives one its reason when it becomes its fold's worst, the one shown.
  void take(std::vector<Verdict>& verdicts, bool early, std::size_t from = 0,
            const std::function<void(Verdict&)>& remake = {});
  // Another folder's folds added to this one's, as if its verdicts had come after these.
  void merge(PassFolder&& other);
  std::size_t folded() const { return folded_; }
  const std::set<std::string>& keep() const { return keep_; }
  // The folds into j.passing (their hosts in natural order), ordered by `order` (criterion ->
  // its position in the criteria; those not in it last, in the order they came), j.folded set.
  void finish(Judgement& j, const std::map<std::string, std::size_t>& order = {});

 private:
  struct HostCount {
    std::size_t places = 0;
    std::optional<double> worst;
  };
  bool kept(const std::string& place) const;
  std::size_t fold_of(const std::string& criterion, const std::string& kind, Severity severity);

  const std::set<std::string>& keep_;
  std::vector<PassingFold> folds_;
  std::vector<std::unordered_map<std::string, HostCount>> hosts_;  // per fold
  std::map<std::pair<std::string, std::string>, std::size_t> at_;  // (criterion, kind) -> fold
  std::size_t folded_ = 0;
};

}  // namespace ga::judging
