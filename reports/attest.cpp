// Digests, the manifest and Ed25519 signatures of a run directory; see attest.hpp.
#include "reports/attest.hpp"

#include <fcntl.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <streambuf>
#include <stdexcept>
#include <vector>

#include "base/both.hpp"
#include "base/file_io.hpp"
#include "base/json_file.hpp"
#include "base/sha256.hpp"
#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace ga::attest {

namespace fs = std::filesystem;

namespace {

void need_sodium() {
  // Idempotent and thread-safe; fails only when the system has no entropy source.
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

std::string b64(const std::string& bin) {
  std::string out(sodium_base64_ENCODED_LEN(bin.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bin.data()), bin.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.resize(std::strlen(out.c_str()));
  return out;
}

std::string unb64(const std::string& text, const std::string& what) {
  std::string out(text.size(), '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(), text.size(), " \n\r\t",
                        &len, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0)
    throw std::runtime_error(what + ": not base64");
  out.resize(len);
  return out;
}

// The DER prefixes openssl writes for Ed25519 (RFC 8410): PKCS#8 around the 32-byte seed,
// SubjectPublicKeyInfo around the 32-byte public key.
const std::string kPkcs8Prefix("\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20", 16);
const std::string kSpkiPrefix("\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00", 12);

std::string pem(const std::string& label, const std::string& der) {
  const std::string body = b64(der);
  std::string out = "-----BEGIN " + label + "-----\n";
  for (std::size_t i = 0; i < body.size(); i += 64) out += body.substr(i, 64) + "\n";
  return out + "-----END " + label + "-----\n";
}

// The 32 bytes after `prefix` in the PEM file `path` with `label`.
std::string read_pem_key(const std::string& path, const std::string& label, const std::string& prefix) {
  const auto raw = base::read_whole_file(path);
  const std::string text(raw.begin(), raw.end());
  const std::string begin = "-----BEGIN " + label + "-----", end = "-----END " + label + "-----";
  const auto b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw std::runtime_error(path + ": not a PEM " + label + " (gpuaccept keygen writes one)");
  const std::string der = unb64(text.substr(b + begin.size(), e - b - begin.size()), path);
  if (der.size() != prefix.size() + 32 || der.compare(0, prefix.size(), prefix) != 0)
    throw std::runtime_error(path + ": not an Ed25519 " + label);
  return der.substr(prefix.size());
}

// SHA-256 is libcrypto's, through base/sha256.hpp (why not libsodium's: there).
using base::Sha256;

std::string fingerprint_of(const std::string& pk) {
  Sha256 h;
  h.update(pk.data(), pk.size());
  return "SHA256:" + h.hex_digest().substr(0, 32);
}

// DSSE's pre-authentication encoding: what is signed.
std::string pae(const std::string& type, const std::string& body) {
  return "DSSEv1 " + std::to_string(type.size()) + " " + type + " " + std::to_string(body.size()) + " " + body;
}

// The judged text metrics that name hardware, by metric and place (the samples may already be
// released; the metrics stay). One pass: a 4096-host run has millions of metrics.
using Texts = std::map<std::pair<std::string, std::string>, std::string>;
Texts hardware_texts(const Report& r) {
  Texts t;
  for (const auto& m : r.judgement->metrics)
    if (m.text && (m.metric == "gpu.uuid" || m.metric == "gpu.serial" || m.metric == "rdma.fw" ||
                   m.metric == "rdma.node_guid" || m.metric == "inventory.system_serial"))
      t.emplace(std::pair{m.metric, m.place}, *m.text);
  return t;
}
std::string text_at(const Texts& t, const std::string& metric, const std::string& place) {
  auto it = t.find({metric, place});
  return it == t.end() ? "" : it->second;
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.hex_digest();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  Sha256 h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return h.hex_digest();
}

namespace {
// Hashes what is written through it, and passes it on to `tee` when there is one, in chunks
// of its own buffer: the writers put a report out a few bytes at a time, and one digest call
// (and one write to the file) per few bytes cost more than the hashing itself.
class HashBuf final : public std::streambuf {
 public:
  explicit HashBuf(std::ostream* tee = nullptr) : buf_(1 << 16), tee_(tee) { setp(buf_.data(), buf_.data() + buf_.size()); }
  std::string digest() {
    drain();
    return h_.hex_digest();
  }

 protected:
  int_type overflow(int_type c) override {
    drain();
    if (c != traits_type::eof()) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n >= static_cast<std::streamsize>(buf_.size())) {  // a large piece: no copy
      drain();
      h_.update(s, static_cast<std::size_t>(n));
      if (tee_) tee_->write(s, n);
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }
  int sync() override {
    drain();
    return tee_ && !tee_->flush() ? -1 : 0;
  }

 private:
  void drain() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    if (n) {
      h_.update(pbase(), n);
      if (tee_) tee_->write(pbase(), static_cast<std::streamsize>(n));
    }
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  Sha256 h_;
  std::vector<char> buf_;
  std::ostream* tee_;
};
}  // namespace

std::string sha256_of(const std::function<void(std::ostream&)>& write) {
  HashBuf buf;
  std::ostream out(&buf);
  write(out);
  out.flush();
  return buf.digest();
}

std::string write_hashed(std::ostream& out, const std::function<void(std::ostream&)>& write) {
  HashBuf buf(&out);
  std::ostream o(&buf);
  write(o);
  o.flush();
  return buf.digest();
}

std::vector<std::string> manifest_files(const std::string& dir, const std::set<std::string>& leave_out) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    // A regular file itself, never what a link points at (verify refuses links; a manifest
    // listing one would vouch for a file outside DIR).
    if (!fs::is_regular_file(e.symlink_status())) continue;
    std::string rel = e.path().lexically_relative(dir).generic_string();
    if (rel == kManifest || rel == kSignature || leave_out.count(rel)) continue;
    files.push_back(std::move(rel));
  }
  return files;
}

Manifest make_manifest(const std::string& dir, const Report& r) { return make_manifest(dir, r, manifest_files(dir)); }

Manifest make_manifest(const std::string& dir, const Report& r, const std::vector<std::string>& files) {
  const JournalData& j = *r.journal;
  const Texts texts = hardware_texts(r);
  Manifest m;
  // Hashed on two threads, largest files spread over both: a 4096-host directory holds ~3 GiB
  // (report.json 1.4 GiB, report.prom 0.75, the journal 0.6, JUnit 0.35).
  std::vector<std::pair<std::uintmax_t, std::string>> todo;
  for (const auto& rel : files) todo.emplace_back(fs::file_size(fs::path(dir) / rel), rel);
  std::sort(todo.begin(), todo.end(), std::greater<>());
  std::vector<std::string> digest(todo.size());
  auto work = [&](std::size_t first) {
    for (std::size_t i = first; i < todo.size(); i += 2) digest[i] = sha256_file((fs::path(dir) / todo[i].second).string());
  };
  base::both([&] { work(1); }, [&] { work(0); });
  for (std::size_t i = 0; i < todo.size(); ++i) m.files[todo[i].second] = digest[i];
  m.criteria_sha256 = sha256_hex(j.criteria_text);
  m.journal_chain = j.chain_head;
  for (const auto& h : j.topology.hosts) {
    m.topology_sha256[h.hostname] = sha256_hex(topo::to_json(h).dump());
    nlohmann::json hw = {{"host", h.hostname}, {"gpus", nlohmann::json::array()}, {"nics", nlohmann::json::array()}};
    for (const auto& g : h.gpus) {
      const std::string at = place::gpu(h.hostname, g.index);
      std::string uuid = text_at(texts, "gpu.uuid", at), serial = text_at(texts, "gpu.serial", at);
      if (uuid.empty() && g.uuid) uuid = *g.uuid;
      if (serial.empty() && g.serial) serial = *g.serial;
      hw["gpus"].push_back({{"place", at}, {"pci_bus_id", g.pci_bus_id.value_or("")}, {"uuid", uuid}, {"serial", serial}});
    }
    for (const auto& n : h.nics) {
      const std::string at = place::nic(h.hostname, n.name);
      hw["nics"].push_back({{"place", at}, {"pci_bus_id", n.pci_bus_id.value_or("")}, {"firmware", text_at(texts, "rdma.fw", at)},
                            {"node_guid", text_at(texts, "rdma.node_guid", at)}});
    }
    hw["system_serial"] = text_at(texts, "inventory.system_serial", place::host(h.hostname));
    m.hardware.push_back(std::move(hw));
  }
  return m;
}

nlohmann::json manifest_to_json(const Manifest& m) {
  return {{"schema_version", 1},
          {"files", m.files},
          {"criteria_sha256", m.criteria_sha256},
          {"journal_chain", m.journal_chain.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.journal_chain)},
          {"topology_sha256", m.topology_sha256},
          {"hardware", m.hardware}};
}

Manifest manifest_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("files") || !j["files"].is_object())
    throw std::runtime_error("not a gpuaccept manifest (no \"files\" object)");
  Manifest m;
  for (const auto& [k, v] : j["files"].items()) {
    if (!v.is_string()) throw std::runtime_error("manifest: the digest of " + k + " is not a string");
    m.files[k] = v.get<std::string>();
  }
  m.criteria_sha256 = j.value("criteria_sha256", "");
  if (auto c = j.find("journal_chain"); c != j.end() && c->is_string()) m.journal_chain = c->get<std::string>();
  if (j.contains("topology_sha256") && j["topology_sha256"].is_object())
    for (const auto& [k, v] : j["topology_sha256"].items())
      if (v.is_string()) m.topology_sha256[k] = v.get<std::string>();
  m.hardware = j.value("hardware", nlohmann::json::array());
  return m;
}

Manifest parse_manifest(const std::string& text, const std::string& name) {
  const nlohmann::json j = base::parse_json_text(text, name);
  try {
    return manifest_from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(name + ": " + e.what());
  }
}

Manifest read_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_manifest(text.str(), path);
}

std::vector<std::string> check_manifest(const std::string& dir, const Manifest& m, std::vector<std::string>* extra) {
  std::vector<std::string> bad;
  for (const auto& [rel, want] : m.files) {
    // A listed path must stay inside DIR: a hostile manifest naming ../../etc/shadow is refused.
    if (rel.empty() || rel[0] == '/' || rel.find("..") != std::string::npos) {
      bad.push_back(rel + ": a path outside the run directory");
      continue;
    }
    const fs::path p = fs::path(dir) / rel;
    std::error_code ec;
    const auto st = fs::symlink_status(p, ec);
    if (st.type() == fs::file_type::symlink) {
      bad.push_back(rel + ": a symbolic link, not a file the run wrote (not followed)");
      continue;
    }
    if (!fs::is_regular_file(st)) {
      bad.push_back(rel + (fs::exists(st) ? ": not a regular file (not opened)" : ": listed in the manifest, missing"));
      continue;
    }
    if (sha256_file(p.string()) != want) bad.push_back(rel + ": sha256 differs from the manifest");
  }
  if (extra)
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!fs::is_regular_file(e.symlink_status())) continue;
      const std::string rel = e.path().lexically_relative(dir).generic_string();
      if (rel != kManifest && rel != kSignature && !m.files.count(rel)) extra->push_back(rel);
    }
  return bad;
}

std::vector<std::string> foreign_entries(const std::string& dir, const Manifest& m) {
  std::vector<std::string> bad;
  // The folders the run wrote: those that hold a listed file, and nccl-debug/ (the nccl probe
  // makes it before NCCL writes anything into it, so it may be empty). Their files are checked
  // one by one like any other.
  std::set<std::string> folders = {"nccl-debug"};
  for (const auto& [rel, digest] : m.files)
    for (auto at = rel.find('/'); at != std::string::npos; at = rel.find('/', at + 1)) folders.insert(rel.substr(0, at));
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // Lexically: fs::relative resolves symbolic links, and a link must be named as itself.
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    const auto type = it->symlink_status(ec).type();
    if (type == fs::file_type::symlink) {
      bad.push_back(rel + ": a symbolic link (not followed): a run writes none");
    } else if (type == fs::file_type::directory) {
      if (!folders.count(rel)) {
        bad.push_back(rel + "/: a folder the run did not write (no file of the manifest is in it)");
        it.disable_recursion_pending();
      }
    } else if (type != fs::file_type::regular) {
      bad.push_back(rel + ": not a regular file (a device, FIFO or socket; not opened)");
    } else if (rel != kManifest && rel != kSignature && !m.files.count(rel)) {
      bad.push_back(rel + ": not in the manifest (a file the run did not write)");
    }
  }
  if (ec) bad.push_back(dir + ": cannot be listed (" + ec.message() + ")");
  return bad;
}

void keygen(const std::string& prefix) {
  need_sodium();
  std::array<unsigned char, crypto_sign_SEEDBYTES> seed;
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk;
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk;
  randombytes_buf(seed.data(), seed.size());
  crypto_sign_seed_keypair(pk.data(), sk.data(), seed.data());
  const std::string key = pem("PRIVATE KEY", kPkcs8Prefix + std::string(reinterpret_cast<char*>(seed.data()), seed.size()));
  const std::string pub = pem("PUBLIC KEY", kSpkiPrefix + std::string(reinterpret_cast<char*>(pk.data()), pk.size()));
  sodium_memzero(seed.data(), seed.size());
  sodium_memzero(sk.data(), sk.size());
  const std::string key_path = prefix + ".key", pub_path = prefix + ".pub";
  if (fs::exists(key_path)) throw std::runtime_error(key_path + " exists: not overwritten");
  // Created 0600 before a byte of the key is in it.
  {
    base::UniqueFd fd = base::open_or_throw(key_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    base::write_all(fd.get(), key.data(), key.size(), key_path);
    base::fsync_or_throw(fd.get(), key_path);
  }
  base::write_file_atomic(pub_path, pub);
}

std::string key_fingerprint_of_pub(const std::string& pub_path) {
  need_sodium();
  return fingerprint_of(read_pem_key(pub_path, "PUBLIC KEY", kSpkiPrefix));
}

nlohmann::json statement_of(const Manifest& m, const nlohmann::json& summary) {
  nlohmann::json subjects = nlohmann::json::array();
  for (const auto& [rel, digest] : m.files) subjects.push_back({{"name", rel}, {"digest", {{"sha256", digest}}}});
  return {{"_type", "https://in-toto.io/Statement/v1"},
          {"subject", subjects},
          {"predicateType", "urn:gpuaccept:acceptance-report:v1"},
          {"predicate",
           {{"criteria_sha256", m.criteria_sha256},
            {"journal_chain", m.journal_chain.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.journal_chain)},
            {"topology_sha256", m.topology_sha256},
            {"hardware", m.hardware},
            {"summary", summary}}}};
}

nlohmann::json sign_statement(const nlohmann::json& statement, const std::string& key_path) {
  need_sodium();
  std::string seed = read_pem_key(key_path, "PRIVATE KEY", kPkcs8Prefix);
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk;
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk;
  crypto_sign_seed_keypair(pk.data(), sk.data(), reinterpret_cast<const unsigned char*>(seed.data()));
  sodium_memzero(seed.data(), seed.size());
  const std::string body = statement.dump();
  const std::string msg = pae(kPayloadType, body);
  std::array<unsigned char, crypto_sign_BYTES> sig;
  crypto_sign_detached(sig.data(), nullptr, reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), sk.data());
  sodium_memzero(sk.data(), sk.size());
  return {{"payloadType", kPayloadType},
          {"payload", b64(body)},
          {"signatures",
           {{{"keyid", fingerprint_of(std::string(reinterpret_cast<char*>(pk.data()), pk.size()))},
             {"sig", b64(std::string(reinterpret_cast<char*>(sig.data()), sig.size()))}}}}};
}

SignatureCheck check_signature(const nlohmann::json& env, const std::string& pub_path) {
  need_sodium();
  SignatureCheck c;
  const std::string pk = read_pem_key(pub_path, "PUBLIC KEY", kSpkiPrefix);
  c.fingerprint = fingerprint_of(pk);
  try {
    if (!env.is_object() || env.value("payloadType", "") != kPayloadType || !env.contains("payload") ||
        !env.contains("signatures") || !env["signatures"].is_array() || env["signatures"].empty()) {
      c.why = "not a DSSE envelope of an in-toto statement";
      return c;
    }
    const std::string body = unb64(env["payload"].get<std::string>(), "payload");
    const std::string msg = pae(kPayloadType, body);
    for (const auto& s : env["signatures"]) {
      const std::string sig = unb64(s.value("sig", ""), "signature");
      if (sig.size() != crypto_sign_BYTES) continue;
      if (crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sig.data()),
                                      reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
                                      reinterpret_cast<const unsigned char*>(pk.data())) == 0) {
        c.valid = true;
        c.statement = nlohmann::json::parse(body);
        return c;
      }
    }
    c.why = "no signature in the envelope verifies with " + pub_path + " (" + c.fingerprint + ")";
  } catch (const std::exception& e) {
    c.why = e.what();
  }
  return c;
}

}  // namespace ga::attest
