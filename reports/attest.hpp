// Evidence a buyer can check (issue 14 items 1 and 2): a digest manifest of a run directory and
// an Ed25519 signature over it, through libsodium, in formats common tools read.
//
//   manifest.json         every file of the run directory (paths relative to it, so a copied
//                         directory verifies the same) with its sha256, the sha256 of the
//                         criteria text and of each host's topology record, and the accepted
//                         hardware: hostnames, each GPU's PCI bus id, UUID and serial, each
//                         NIC's firmware and node GUID, the chassis serial (what was measured,
//                         so nodes swapped after signing do not match).
//   signature.dsse.json   a DSSE envelope (github.com/secure-systems-lab/dsse) around an
//                         in-toto Statement v1 (github.com/in-toto/attestation): one subject per
//                         file with its sha256, the predicate the manifest's criteria, topology
//                         and hardware and the judged summary; signed with Ed25519 over DSSE's
//                         pre-authentication encoding, so `openssl pkeyutl -verify -rawin`
//                         checks it too (docs/report-format.md, step by step).
//   PREFIX.key/.pub       PKCS#8 / SubjectPublicKeyInfo PEM, as openssl writes Ed25519 keys.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/report.hpp"

namespace ga::attest {

inline constexpr const char* kManifest = "manifest.json";
inline constexpr const char* kSignature = "signature.dsse.json";
inline constexpr const char* kPayloadType = "application/vnd.in-toto+json";

std::string sha256_hex(const std::string& bytes);
// Throws std::runtime_error naming the path when it cannot be read.
std::string sha256_file(const std::string& path);
// The sha256 of what `write` writes, hashed as it streams (report.json of 4096 hosts is never
// held in memory to be checked).
std::string sha256_of(const std::function<void(std::ostream&)>& write);
// Runs `write` into `out` and returns the sha256 of what it wrote, hashed on the way: a report
// file is read once, as it is written, not again for the manifest.
std::string write_hashed(std::ostream& out, const std::function<void(std::ostream&)>& write);

struct Manifest {
  std::map<std::string, std::string> files;  // relative path -> sha256 (hex)
  std::string criteria_sha256;
  // The journal's last chain (probes/journal_chain.hpp), "" for a journal before the chain: a
  // line deleted at the end of samples.jsonl, which no chain inside the file shows, shows here.
  std::string journal_chain;
  std::map<std::string, std::string> topology_sha256;  // host -> sha256 of its topology record
  nlohmann::json hardware = nlohmann::json::array();   // [{host, gpus[], nics[], system_serial}]
};

// The files a manifest of `dir` lists, as paths relative to it: every regular file under it
// but the manifest, the signature and `leave_out`.
std::vector<std::string> manifest_files(const std::string& dir, const std::set<std::string>& leave_out = {});
// The manifest of `dir` as it is now: every file manifest_files lists, and what the report's
// journal and metrics say was measured.
Manifest make_manifest(const std::string& dir, const Report& report);
// The same over `files` (relative to `dir`) only. The report writer lists the directory before
// it writes and hashes what was there (the journal, NCCL's logs) while it writes; it adds the
// files it wrote, hashed as they were written (write_hashed).
Manifest make_manifest(const std::string& dir, const Report& report, const std::vector<std::string>& files);
nlohmann::json manifest_to_json(const Manifest&);
// Throws std::runtime_error on a document that is not a manifest.
Manifest manifest_from_json(const nlohmann::json&);
// manifest.json's text, or the file at `path`: errors name it ("PATH: not JSON (...)", "PATH:
// not a gpuaccept manifest ..."). What verify, sign and run --rerun read (and fuzz.manifest).
Manifest parse_manifest(const std::string& text, const std::string& name);
Manifest read_manifest(const std::string& path);

// What in `dir` differs from the manifest: one line per file ("samples.jsonl: sha256 differs
// from the manifest", "report.md: listed in the manifest, missing"; a listed path that is a
// symbolic link or not a regular file is named, never opened); files the manifest does not
// list go to `extra`.
std::vector<std::string> check_manifest(const std::string& dir, const Manifest&, std::vector<std::string>* extra);

// What in `dir` a run did not write, found without opening anything: a file the manifest does
// not list (but the manifest and the signature), a symbolic link (never followed), a device,
// FIFO or socket, a folder no listed file is in (but nccl-debug/, which a run makes before NCCL
// writes into it). One line each, naming the path.
std::vector<std::string> foreign_entries(const std::string& dir, const Manifest&);

// Ed25519 keys: PREFIX.key (mode 0600) and PREFIX.pub. Throws naming the file on failure.
void keygen(const std::string& prefix);
// "SHA256:<hex of the 32-byte public key's sha256, first 32 hex digits>"
std::string key_fingerprint_of_pub(const std::string& pub_path);

// The in-toto Statement of a manifest, with the judged `summary` (report.json's) as context.
nlohmann::json statement_of(const Manifest&, const nlohmann::json& summary);
// A DSSE envelope of `statement` signed with the private key file.
nlohmann::json sign_statement(const nlohmann::json& statement, const std::string& key_path);

struct SignatureCheck {
  bool valid = false;
  std::string fingerprint;           // of the key it was checked against
  std::string why;                   // when not valid
  nlohmann::json statement;          // the payload, when valid
};
SignatureCheck check_signature(const nlohmann::json& envelope, const std::string& pub_path);

}  // namespace ga::attest
