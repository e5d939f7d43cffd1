// A re-test campaign (`gpuaccept run --rerun DIR`, issue 13 item 5): the run that re-tests
// DIR's node-fault and inconclusive hosts against hosts that passed there, merged with DIR.
//
// Per host, the run that last measured it decides, but only on evidence of the same kind: a
// suspect of DIR is *cleared* only when the re-test has a passing verdict at the same place for
// every criterion it failed (failed_at), those verdicts being the evidence; judged but without
// such a verdict for some (a narrower suite, other criteria, a link to another partner) it is
// *not re-tested*, those criteria named, and keeps DIR's outcome, as does a host the re-test
// did not run on. One that fails again is *confirmed* (*still inconclusive* when its worst now
// is not a node fault); a partner that fails now is *new*; one that passed both is *passed*. Every outcome and every line of evidence says
// which run it comes from. DIR may itself be a re-test: its campaign.json carries the history
// of every earlier run, so the campaign is repeatable until nothing is left to re-test.
//
// The re-test's directory gets campaign.json and campaign.md, and its bad-hosts.txt is the
// campaign's (the hosts still bad after every run so far, the union of judged hosts), because
// that is what `drain`, `undrain` and the next `rerun-plan` act on; the re-test's own verdicts
// stay in its report.json. Pure: what DIR said was copied into the re-test's journal when it
// began (campaign_of_run), and nothing outside the re-test's own directory is read again.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/bad_hosts.hpp"
#include "reports/report.hpp"

namespace ga {

struct CampaignStep {                 // what one run said about one host
  std::string run;                    // the run's id (bad-hosts.txt's `run`)
  OutcomeClass outcome = OutcomeClass::none;
  std::vector<std::string> criteria;
  std::string evidence;
};

struct CampaignHost {
  std::string host;
  OutcomeClass outcome = OutcomeClass::none;  // now
  std::string status;                 // cleared, confirmed, still inconclusive, new, passed, not re-tested
  std::string decided_by;             // the run whose measurement stands
  std::vector<std::string> criteria;  // of that outcome, from that run
  std::string evidence;               // "[run] CRITERION at PLACE: reason"; for a cleared host, the re-test's passes
  std::vector<std::string> actions;
  std::vector<std::string> failed_at; // CRITERION@PLACE of that outcome (bad-hosts.txt's failed_at)
  bool failed_at_cut = false;
  std::vector<CampaignStep> history;  // oldest run first
};

struct Campaign {
  struct Run {
    std::string id, dir;
  };
  std::vector<Run> runs;              // oldest first; the last is this re-test
  std::vector<std::string> retested;  // the previous suspects this run measured
  std::vector<std::string> partners;  // the hosts this run measured that had passed before
  std::vector<CampaignHost> hosts;    // every host any run judged, natural order
  std::string overall;                // FAIL (a node fault), INCONCLUSIVE, TOOL ERROR or PASS, over the hosts
};

// DIR/campaign.json parsed, or nullopt when DIR is no re-test; throws std::runtime_error naming
// the file when it does not parse. The one reader of the file (campaign, drain, undrain).
std::optional<nlohmann::json> read_campaign_json(const std::string& dir);

// A run directory as a campaign: its campaign.json when it was a re-test itself, else one run
// made from its bad-hosts.txt. What `run --rerun DIR` copies into its own journal (run_start's
// rerun_of.campaign), so that the re-test's directory holds everything its campaign is made of
// and judge and verify never read another directory. Throws std::runtime_error naming the file
// when DIR's bad-hosts.txt or campaign.json cannot be read.
Campaign campaign_of_run(const std::string& dir);
// campaign_to_json read back (the previous campaign a re-test recorded); throws
// std::runtime_error on a document that is not one.
Campaign campaign_from_json(const nlohmann::json&);
// campaign.json's text as a campaign; errors name `name` (the one parser of the file's text,
// fuzzed as fuzz.campaign).
Campaign parse_campaign(const std::string& text, const std::string& name);

// The previous campaign (campaign_of_run of the run re-tested, as the re-test's journal
// recorded it) merged with `now`, the re-test. This run's entry in `runs` has no directory: the
// campaign files are the same wherever the re-test's directory is copied.
Campaign merge_campaign(Campaign previous, const Report& now);
nlohmann::json campaign_to_json(const Campaign&);
std::string campaign_to_markdown(const Campaign&);
// The campaign's hosts that are still bad, as bad-hosts.txt says them.
BadHosts campaign_bad_hosts(const Campaign&);

}  // namespace ga
