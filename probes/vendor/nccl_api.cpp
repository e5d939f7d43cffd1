#include "probes/vendor/nccl_api.hpp"

#ifdef GA_HAVE_CUDA_HEADERS
#include <nccl.h>
#endif

namespace ga::gpu {

namespace {
constexpr int kSuccess = 0, kUint64 = 5, kFloat32 = 7, kSum = 0;
#ifdef GA_HAVE_CUDA_HEADERS
static_assert(sizeof(ncclUniqueId) == sizeof(NcclUniqueId));
static_assert(kSuccess == ncclSuccess && kUint64 == ncclUint64 && kFloat32 == ncclFloat32 && kSum == ncclSum);
#endif
// ncclUniqueId travels by value; this struct has its layout.
struct IdByValue {
  char internal[128];
};
}  // namespace

struct Nccl::Table {
  int (*get_version)(int*) = nullptr;
  int (*get_unique_id)(IdByValue*) = nullptr;
  int (*init_rank)(void**, int, IdByValue, int) = nullptr;
  // (comm, nranks, myrank, nId, commIds, config): config NULL takes NCCL's defaults.
  int (*init_rank_scalable)(void**, int, int, int, IdByValue*, void*) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*abort)(void*) = nullptr;
  int (*async_error)(void*, int*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  const char* (*last_error)(void*) = nullptr;
  int (*all_reduce)(const void*, void*, std::size_t, int, int, void*, void*) = nullptr;
  int (*all_gather)(const void*, void*, std::size_t, int, void*, void*) = nullptr;
  int (*reduce_scatter)(const void*, void*, std::size_t, int, int, void*, void*) = nullptr;
  int (*broadcast)(const void*, void*, std::size_t, int, int, void*, void*) = nullptr;
  int (*reduce)(const void*, void*, std::size_t, int, int, int, void*, void*) = nullptr;
  int (*send)(const void*, std::size_t, int, int, void*, void*) = nullptr;
  int (*recv)(void*, std::size_t, int, int, void*, void*) = nullptr;
  int (*group_start)() = nullptr;
  int (*group_end)() = nullptr;
};

Nccl::Nccl(const std::vector<std::string>& candidates) : lib_(candidates), t_(std::make_shared<Table>()) {
  if (!lib_.loaded()) return;
  auto sym = [&](auto& fn, const char* name) { fn = lib_.symbol<std::remove_reference_t<decltype(fn)>>(name); };
  Table& t = *t_;
  sym(t.get_version, "ncclGetVersion");
  sym(t.get_unique_id, "ncclGetUniqueId");
  sym(t.init_rank, "ncclCommInitRank");
  sym(t.init_rank_scalable, "ncclCommInitRankScalable");  // 2.23+; optional
  sym(t.destroy, "ncclCommDestroy");
  sym(t.abort, "ncclCommAbort");
  sym(t.async_error, "ncclCommGetAsyncError");
  sym(t.error_string, "ncclGetErrorString");
  sym(t.last_error, "ncclGetLastError");  // 2.13+; optional
  sym(t.all_reduce, "ncclAllReduce");
  sym(t.all_gather, "ncclAllGather");
  sym(t.reduce_scatter, "ncclReduceScatter");
  sym(t.broadcast, "ncclBroadcast");
  sym(t.reduce, "ncclReduce");
  sym(t.send, "ncclSend");
  sym(t.recv, "ncclRecv");
  sym(t.group_start, "ncclGroupStart");
  sym(t.group_end, "ncclGroupEnd");
  complete_ = t.get_version && t.get_unique_id && t.init_rank && t.destroy && t.abort && t.async_error &&
              t.all_reduce && t.all_gather && t.reduce_scatter && t.broadcast && t.reduce && t.send && t.recv &&
              t.group_start && t.group_end;
}

std::string Nccl::error() const {
  if (!lib_.loaded()) return lib_.error();
  if (!complete_) return lib_.name() + " lacks entry points of NCCL 2.12 (ncclSend/ncclRecv, ncclCommAbort ...)";
  return {};
}

std::string nccl_version_text(int v) {
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older ones major*1000 + minor*100 + patch.
  const int major = v >= 10000 ? v / 10000 : v / 1000, minor = v >= 10000 ? (v % 10000) / 100 : (v % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

int Nccl::version_code() const {
  int v = 0;
  if (loaded()) t_->get_version(&v);
  return v;
}

std::string Nccl::version() const { return nccl_version_text(version_code()); }

std::string Nccl::error_string(int rc) const {
  const char* s = t_->error_string ? t_->error_string(rc) : nullptr;
  return (s ? std::string(s) : std::string("NCCL error")) + " (" + std::to_string(rc) + ")";
}

NcclUniqueId Nccl::unique_id() const {
  if (!loaded()) throw NcclError("NCCL not loaded: " + error());
  IdByValue id{};
  const int rc = t_->get_unique_id(&id);
  if (rc != kSuccess) throw NcclError("ncclGetUniqueId failed: " + error_string(rc));
  NcclUniqueId out;
  std::copy(std::begin(id.internal), std::end(id.internal), out.begin());
  return out;
}

Nccl::Comm::Comm(const Nccl& n, int nranks, const NcclUniqueId& uid, int rank) : n_(n) {
  if (!n.loaded()) throw NcclError("NCCL not loaded: " + n.error());
  IdByValue id;
  std::copy(uid.begin(), uid.end(), id.internal);
  void* c = nullptr;
  const int rc = n.t_->init_rank(&c, nranks, id, rank);
  c_.store(rc == kSuccess ? c : nullptr, std::memory_order_release);
  if (rc != kSuccess) {
    std::string last = n.t_->last_error ? std::string(n.t_->last_error(nullptr) ? n.t_->last_error(nullptr) : "") : "";
    throw NcclError("ncclCommInitRank(nranks " + std::to_string(nranks) + ", rank " + std::to_string(rank) +
                    ") failed: " + n.error_string(rc) + (last.empty() ? "" : ": " + last));
  }
}

bool Nccl::has_scalable_init() const { return loaded() && t_->init_rank_scalable; }

Nccl::Comm::Comm(const Nccl& n, int nranks, const std::vector<NcclUniqueId>& uids, int rank) : n_(n) {
  if (!n.loaded()) throw NcclError("NCCL not loaded: " + n.error());
  if (uids.empty()) throw NcclError("no unique id to initialise a communicator with");
  std::vector<IdByValue> ids(uids.size());
  for (std::size_t i = 0; i < uids.size(); ++i) std::copy(uids[i].begin(), uids[i].end(), ids[i].internal);
  int rc = 0;
  void* c = nullptr;
  if (uids.size() > 1 && n.t_->init_rank_scalable) {
    init_call_ = "ncclCommInitRankScalable";
    rc = n.t_->init_rank_scalable(&c, nranks, rank, static_cast<int>(ids.size()), ids.data(), nullptr);
  } else {
    rc = n.t_->init_rank(&c, nranks, ids.front(), rank);
  }
  c_.store(rc == kSuccess ? c : nullptr, std::memory_order_release);
  if (rc != kSuccess) {
    const char* last = n.t_->last_error ? n.t_->last_error(nullptr) : nullptr;
    throw NcclError(std::string(init_call_) + "(nranks " + std::to_string(nranks) + ", rank " + std::to_string(rank) +
                    (uids.size() > 1 ? ", " + std::to_string(uids.size()) + " unique ids" : std::string()) +
                    ") failed: " + n.error_string(rc) + (last && *last ? std::string(": ") + last : std::string()));
  }
}

Nccl::Comm::~Comm() {
  if (void* c = c_.exchange(nullptr)) n_.t_->destroy(c);
}

void Nccl::Comm::abort() noexcept {
  if (void* c = c_.exchange(nullptr)) n_.t_->abort(c);
}

void Nccl::Comm::check(int rc, const char* call) const {
  if (rc != kSuccess) throw NcclError(std::string(call) + " failed: " + n_.error_string(rc));
}

std::string Nccl::Comm::async_error() const {
  int e = 0;
  if (void* c = comm(); c && n_.t_->async_error(c, &e) == kSuccess && e != kSuccess) return n_.error_string(e);
  return {};
}

void Nccl::Comm::all_reduce(const void* s, void* r, std::size_t count, void* st) const {
  check(n_.t_->all_reduce(s, r, count, kFloat32, kSum, comm(), st), "ncclAllReduce");
}
void Nccl::Comm::all_reduce_sum_u64(const void* s, void* r, std::size_t count, void* st) const {
  check(n_.t_->all_reduce(s, r, count, kUint64, kSum, comm(), st), "ncclAllReduce");
}
void Nccl::Comm::all_gather(const void* s, void* r, std::size_t count, void* st) const {
  check(n_.t_->all_gather(s, r, count, kFloat32, comm(), st), "ncclAllGather");
}
void Nccl::Comm::reduce_scatter(const void* s, void* r, std::size_t count, void* st) const {
  check(n_.t_->reduce_scatter(s, r, count, kFloat32, kSum, comm(), st), "ncclReduceScatter");
}
void Nccl::Comm::broadcast(const void* s, void* r, std::size_t count, int root, void* st) const {
  check(n_.t_->broadcast(s, r, count, kFloat32, root, comm(), st), "ncclBroadcast");
}
void Nccl::Comm::reduce(const void* s, void* r, std::size_t count, int root, void* st) const {
  check(n_.t_->reduce(s, r, count, kFloat32, kSum, root, comm(), st), "ncclReduce");
}
void Nccl::Comm::send(const void* s, std::size_t count, int peer, void* st) const {
  check(n_.t_->send(s, count, kFloat32, peer, comm(), st), "ncclSend");
}
void Nccl::Comm::recv(void* r, std::size_t count, int peer, void* st) const {
  check(n_.t_->recv(r, count, kFloat32, peer, comm(), st), "ncclRecv");
}
void Nccl::Comm::group_start() const { check(n_.t_->group_start(), "ncclGroupStart"); }
void Nccl::Comm::group_end() const { check(n_.t_->group_end(), "ncclGroupEnd"); }

}  // namespace ga::gpu
