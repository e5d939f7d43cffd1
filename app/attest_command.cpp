// gpuaccept verify, keygen and sign (issue 14 items 1 and 2): whether a run directory is what
// its run wrote, judged again from its raw samples, and signed by whom. The digests, manifest,
// keys and envelope are reports/attest.hpp's; this file only reads, compares and says.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/commands.hpp"
#include "base/json_file.hpp"
#include "base/file_io.hpp"
#include "reports/attest.hpp"
#include "reports/report.hpp"
#include "suites/criteria.hpp"
#include "suites/judge.hpp"
#include "topology/topology.hpp"

namespace ga::app {

namespace fs = std::filesystem;

using base::read_json_file;

void sign_directory(const std::string& dir, const std::string& key_path) {
  const std::string mpath = (fs::path(dir) / attest::kManifest).string();
  if (!fs::exists(mpath)) throw std::runtime_error("no " + mpath + ": `gpuaccept judge " + dir + "` writes one");
  const auto m = attest::read_manifest(mpath);
  // Only what the manifest says is there may be signed: a directory changed since its
  // manifest is refused rather than signed as it is now.
  const auto bad = attest::check_manifest(dir, m, nullptr);
  if (!bad.empty()) throw std::runtime_error(dir + " differs from its manifest (" + bad.front() + "): not signed");
  const auto report = read_json_file((fs::path(dir) / "report.json").string());
  const auto envelope = attest::sign_statement(attest::statement_of(m, report.value("summary", nlohmann::json::object())), key_path);
  base::write_file_atomic((fs::path(dir) / attest::kSignature).string(), envelope.dump(2) + "\n");
}

int keygen_command(const KeygenOptions& o) {
  try {
    attest::keygen(o.out);
    std::cout << "gpuaccept: " << o.out << ".key (keep it: mode 0600) and " << o.out << ".pub ("
              << attest::key_fingerprint_of_pub(o.out + ".pub") << ")\n";
    return kExitPass;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

int sign_command(const SignOptions& o) {
  try {
    sign_directory(o.dir, o.key);
    std::cout << "gpuaccept: signed " << (fs::path(o.dir) / attest::kSignature).string() << "\n";
    return kExitPass;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

int verify_command(const VerifyOptions& o) {
  std::vector<std::string> tampered, notes;
  if (o.pubkey.empty() && !o.unsigned_only) {
    // Consistency is not authorship: anyone who can write DIR can edit samples.jsonl and run
    // `gpuaccept judge DIR` to make every digest agree. The caller says which one they want.
    std::cerr << "gpuaccept verify: give --pubkey FILE (the signature checked against the signer's key: who wrote " << o.dir
              << ") or --unsigned (consistency only: anyone with write access to " << o.dir
              << " could have produced a consistent directory)\n";
    return kExitUsage;
  }
  try {
    const std::string dir = o.dir;
    const std::string mpath = (fs::path(dir) / attest::kManifest).string();
    std::error_code ec;
    const auto mst = fs::symlink_status(mpath, ec);
    if (!fs::exists(mst)) {
      std::cerr << "gpuaccept verify: no " << mpath << ": nothing vouches for this directory (a run or `gpuaccept judge` "
                << "writes one, and can only vouch for what it finds)\n";
      return kExitUsage;
    }
    if (!fs::is_regular_file(mst)) {
      std::cout << "gpuaccept verify: TAMPERED: " << attest::kManifest << ": not a regular file (not opened)\n";
      return kExitUsage;
    }
    const auto m = attest::read_manifest(mpath);
    // Before anything else is opened: what the run did not write (a link to /dev/zero would
    // hang a digest; an unlisted file is not covered by anything this check proves).
    if (const auto foreign = attest::foreign_entries(dir, m); !foreign.empty()) {
      for (const auto& f : foreign) std::cout << "gpuaccept verify: TAMPERED: " << f << "\n";
      std::cout << "gpuaccept verify: " << dir << " holds what its run did not write (" << foreign.size()
                << " finding(s)); nothing else was checked\n";
      return kExitUsage;
    }
    for (auto& b : attest::check_manifest(dir, m, nullptr)) tampered.push_back(std::move(b));

    // The verdicts, again, from the raw samples: never from what report.json says.
    JournalData journal;
    try {
      journal = read_journal((fs::path(dir) / "samples.jsonl").string());
    } catch (const JournalError& e) {
      // A journal the reader refuses (its chain broken at a line, a line that is not a record):
      // a finding like the others, named as the reader names it, and nothing is judged.
      tampered.push_back("samples.jsonl:" + std::to_string(e.line) + ": " + e.reason);
      for (const auto& n : notes) std::cout << "gpuaccept verify: note: " << n << "\n";
      for (const auto& t : tampered) std::cout << "gpuaccept verify: TAMPERED: " << t << "\n";
      std::cout << "gpuaccept verify: " << dir << " is not what its run wrote (" << tampered.size() << " finding(s))\n";
      return kExitUsage;
    }
    const MetricCatalogue catalogue = builtin_catalogue();
    CriteriaSet criteria;
    const bool contract = !o.criteria.empty() || !o.criteria_profile.empty();
    if (auto c = contract_criteria(o.criteria, o.criteria_profile, catalogue)) {
      criteria = std::move(c->criteria);
    } else {
      criteria = parse_criteria(journal.criteria_text.empty() ? builtin_criteria_text() : journal.criteria_text,
                                journal.criteria_source.empty() ? "builtin" : journal.criteria_source);
    }
    if (journal.chain_head != m.journal_chain)
      tampered.push_back(journal.chain_head.empty()
                             ? "samples.jsonl: a journal before the chain, where the manifest names its last chain " + m.journal_chain
                             : m.journal_chain.empty()
                                 ? "manifest.json: no journal_chain, where samples.jsonl is chained (its last chain " + journal.chain_head + ")"
                                 : "samples.jsonl: its last chain " + journal.chain_head + " is not the manifest's journal_chain " +
                                       m.journal_chain + " (records removed from its end, or the file chained again)");
    else if (journal.chain_head.empty())
      notes.push_back("samples.jsonl is a journal before the chain (schema 1): a line edited, deleted or doubled in it "
                      "shows only through its digest");
    if (attest::sha256_hex(journal.criteria_text) != m.criteria_sha256)
      tampered.push_back("samples.jsonl: its criteria text differs from the manifest's criteria_sha256");
    for (const auto& h : journal.topology.hosts) {
      auto it = m.topology_sha256.find(h.hostname);
      if (it == m.topology_sha256.end() || it->second != attest::sha256_hex(topo::to_json(h).dump()))
        tampered.push_back("samples.jsonl: the topology of " + h.hostname + " differs from the manifest");
    }
    const auto judgement = judge_releasing_samples(journal, criteria, &catalogue);
    const auto report = build_report(journal, judgement);
    if (attest::make_manifest(dir, report).hardware != m.hardware)
      tampered.push_back("manifest.json: the accepted hardware differs from what samples.jsonl measured");
    if (!contract) {
      // With the recorded criteria the report files are a function of the samples: each must be
      // what they give, byte for byte (an edited verdict with a manifest edited to match is caught here).
      for (const auto& f : report_files(report)) {
        const auto p = fs::path(dir) / f.name;
        if (!fs::exists(p)) continue;  // absent: the manifest check named it if it was listed
        if (attest::sha256_of(f.write) != attest::sha256_file(p.string()))
          tampered.push_back(f.name + ": differs from what samples.jsonl gives (recomputed)");
      }
    } else {
      notes.push_back("judged against " + (o.criteria.empty() ? "profile " + o.criteria_profile : o.criteria) +
                      ": the report files (judged against the recorded criteria) "
                      "are checked by their digests only");
    }

    const std::string spath = (fs::path(dir) / attest::kSignature).string();
    if (!o.pubkey.empty()) {
      if (!fs::exists(spath)) {
        tampered.push_back(std::string(attest::kSignature) + ": absent, and --pubkey asks for a signature");
      } else {
        const auto c = attest::check_signature(read_json_file(spath), o.pubkey);
        if (!c.valid) {
          tampered.push_back(std::string(attest::kSignature) + ": " + c.why);
        } else {
          std::cout << "gpuaccept verify: signed by " << c.fingerprint << "\n";
          // The signed subjects are the files as they are now, and the signed hardware the manifest's.
          std::map<std::string, std::string> signed_files;
          for (const auto& s : c.statement.value("subject", nlohmann::json::array()))
            signed_files[s.value("name", "")] = s.value("digest", nlohmann::json::object()).value("sha256", "");
          if (signed_files != m.files) tampered.push_back(std::string(attest::kSignature) + ": its subjects are not the manifest's files");
          const auto predicate = c.statement.value("predicate", nlohmann::json::object());
          if (predicate.value("hardware", nlohmann::json()) != m.hardware)
            tampered.push_back(std::string(attest::kSignature) + ": its hardware is not the manifest's");
          // Signed before the chain existed: no journal_chain key, and nothing to compare.
          if (auto sc = predicate.find("journal_chain"); sc != predicate.end() && *sc != (m.journal_chain.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.journal_chain)))
            tampered.push_back(std::string(attest::kSignature) + ": its journal_chain is not the manifest's");
        }
      }
    } else if (fs::exists(spath)) {
      // Named, not trusted: the key id is what the envelope claims, checked only with --pubkey.
      std::string keyid = "an unreadable key id";
      try {
        const auto env = read_json_file(spath);
        const auto& sigs = env.value("signatures", nlohmann::json::array());
        if (sigs.is_array() && !sigs.empty() && sigs[0].is_object() && sigs[0].contains("keyid") && sigs[0]["keyid"].is_string())
          keyid = sigs[0]["keyid"].get<std::string>();
      } catch (const std::exception&) {
      }
      notes.push_back(std::string(attest::kSignature) + " present, claiming key " + keyid +
                      ", not checked (--unsigned): give --pubkey FILE to check it");
    }

    for (const auto& n : notes) std::cout << "gpuaccept verify: note: " << n << "\n";
    if (!tampered.empty()) {
      for (const auto& t : tampered) std::cout << "gpuaccept verify: TAMPERED: " << t << "\n";
      std::cout << "gpuaccept verify: " << dir << " is not what its run wrote (" << tampered.size() << " finding(s))\n";
      return kExitUsage;
    }
    const auto& s = judgement.summary;
    std::cout << "gpuaccept verify: " << dir << " matches its manifest" << (!contract ? " and its samples" : "")
              << (o.unsigned_only ? " (consistent; not signed, or signature not checked: anyone with write access to " + dir +
                                        " could have produced this)"
                                  : "")
              << "; judged again: " << s.overall << " (" << s.pass << " pass, " << s.fail << " fail, " << s.missing
              << " missing, " << s.tool_error << " tool error, " << s.inconclusive << " inconclusive)\n";
    return s.overall == "PASS" ? kExitPass : kExitNodeFault;
  } catch (const std::exception& e) {
    std::cout << "gpuaccept verify: TAMPERED or unreadable: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
