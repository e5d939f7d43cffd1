// The libibverbs adapter: RC queue pairs and RDMA writes. The only file that includes
// <infiniband/verbs.h>; the library is loaded with dlopen so that the binary starts where
// rdma-core is absent. Inline verbs (ibv_post_send, ibv_poll_cq) go through the context's
// ops table and need no symbol; the rest are resolved by name below.
//
// NOT VALIDATED ON HARDWARE: no machine this was written on has an RDMA device. The steps
// follow the verbs man pages (ibv_modify_qp(3): RESET -> INIT -> RTR -> RTS).
#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "probes/vendor/dynlib.hpp"
#include "probes/rdma/transport.hpp"

namespace ga::rdma {
namespace {

// The exported compat symbol behind the ibv_query_port macro.
using query_port_compat_fn = int (*)(ibv_context*, uint8_t, _compat_ibv_port_attr*);

// GPUACCEPT_VERBS_LIBRARY names the library to load (tests point it at their fake by path, so
// that Open MPI's own verbs components, which search LD_LIBRARY_PATH, never pick the fake up).
std::vector<std::string> verbs_library_names() {
  if (const char* e = std::getenv("GPUACCEPT_VERBS_LIBRARY"); e && *e) return {e};
  return {"libibverbs.so.1", "libibverbs.so"};
}

struct Verbs {
  DynLib lib{verbs_library_names()};
  decltype(&::ibv_get_device_list) get_device_list = nullptr;
  decltype(&::ibv_free_device_list) free_device_list = nullptr;
  decltype(&::ibv_get_device_name) get_device_name = nullptr;
  decltype(&::ibv_open_device) open_device = nullptr;
  decltype(&::ibv_close_device) close_device = nullptr;
  decltype(&::ibv_alloc_pd) alloc_pd = nullptr;
  decltype(&::ibv_dealloc_pd) dealloc_pd = nullptr;
  decltype(&::ibv_reg_mr) reg_mr = nullptr;
  decltype(&::ibv_dereg_mr) dereg_mr = nullptr;
  decltype(&::ibv_create_cq) create_cq = nullptr;
  decltype(&::ibv_destroy_cq) destroy_cq = nullptr;
  decltype(&::ibv_create_qp) create_qp = nullptr;
  decltype(&::ibv_destroy_qp) destroy_qp = nullptr;
  decltype(&::ibv_modify_qp) modify_qp = nullptr;
  decltype(&::ibv_query_gid) query_gid = nullptr;
  query_port_compat_fn query_port_compat = nullptr;
  std::string missing;

  Verbs() {
    if (!lib.loaded()) return;
    auto get = [&](auto& fn, const char* name) {
      fn = lib.symbol<std::remove_reference_t<decltype(fn)>>(name);
      if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
    };
    get(get_device_list, "ibv_get_device_list");
    get(free_device_list, "ibv_free_device_list");
    get(get_device_name, "ibv_get_device_name");
    get(open_device, "ibv_open_device");
    get(close_device, "ibv_close_device");
    get(alloc_pd, "ibv_alloc_pd");
    get(dealloc_pd, "ibv_dealloc_pd");
    get(reg_mr, "ibv_reg_mr");
    get(dereg_mr, "ibv_dereg_mr");
    get(create_cq, "ibv_create_cq");
    get(destroy_cq, "ibv_destroy_cq");
    get(create_qp, "ibv_create_qp");
    get(destroy_qp, "ibv_destroy_qp");
    get(modify_qp, "ibv_modify_qp");
    get(query_gid, "ibv_query_gid");
    get(query_port_compat, "ibv_query_port");
  }
  bool usable() const { return lib.loaded() && missing.empty(); }
  std::string why() const {
    if (!lib.loaded()) return "libibverbs not loadable: " + lib.error();
    return "libibverbs lacks " + missing;
  }
  // What the ibv_query_port macro does, without the symbol reference the inline would need.
  int query_port(ibv_context* ctx, uint8_t port, ibv_port_attr* attr) const {
    if (verbs_context* v = verbs_get_ctx_op(ctx, query_port)) return v->query_port(ctx, port, attr, sizeof(*attr));
    std::memset(attr, 0, sizeof(*attr));
    return query_port_compat(ctx, port, reinterpret_cast<_compat_ibv_port_attr*>(attr));
  }
};

std::string errno_text(int e) { return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")"; }

// CUDA driver API for GPUDirect buffers, loaded at run time (no cuda.h: the few calls are
// declared here with their documented C types).
struct CudaMem {
  using CUresult = int;
  using CUdevice = int;
  using CUcontext = void*;
  using CUdeviceptr = unsigned long long;
  DynLib lib{{"libcuda.so.1"}};
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, const char*) = nullptr;
  CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*release)(CUdevice) = nullptr;
  CUresult (*set_current)(CUcontext) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUdevice dev = 0;
  bool retained = false;
  CUdeviceptr ptr = 0;

  CudaMem(const std::string& bus_id, std::size_t bytes) {
    if (!lib.loaded()) throw TransportError("GPUDirect: libcuda not loadable: " + lib.error());
    init = lib.symbol<decltype(init)>("cuInit");
    device_get = lib.symbol<decltype(device_get)>("cuDeviceGetByPCIBusId");
    retain = lib.symbol<decltype(retain)>("cuDevicePrimaryCtxRetain");
    release = lib.symbol<decltype(release)>("cuDevicePrimaryCtxRelease_v2");
    set_current = lib.symbol<decltype(set_current)>("cuCtxSetCurrent");
    mem_alloc = lib.symbol<decltype(mem_alloc)>("cuMemAlloc_v2");
    mem_free = lib.symbol<decltype(mem_free)>("cuMemFree_v2");
    if (!init || !device_get || !retain || !release || !set_current || !mem_alloc || !mem_free)
      throw TransportError("GPUDirect: libcuda lacks a driver API entry point");
    CUcontext ctx = nullptr;
    int rc = init(0);
    if (rc == 0) rc = device_get(&dev, bus_id.c_str());
    if (rc == 0 && (rc = retain(&ctx, dev)) == 0) retained = true;
    if (rc == 0) rc = set_current(ctx);
    if (rc == 0) rc = mem_alloc(&ptr, bytes);
    if (rc != 0) {
      cleanup();
      throw TransportError("GPUDirect: CUDA error " + std::to_string(rc) + " allocating " + std::to_string(bytes) +
                           " B on GPU " + bus_id);
    }
  }
  ~CudaMem() { cleanup(); }
  CudaMem(const CudaMem&) = delete;
  CudaMem& operator=(const CudaMem&) = delete;
  void cleanup() {
    if (ptr) mem_free(ptr);
    ptr = 0;
    if (retained) release(dev);
    retained = false;
  }
};

struct HostMem {
  void* p = nullptr;
  explicit HostMem(std::size_t bytes) {
    p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!p) throw TransportError("cannot allocate " + std::to_string(bytes) + " B of host memory");
    std::memset(p, 0, bytes);
  }
  ~HostMem() { std::free(p); }
  HostMem(const HostMem&) = delete;
  HostMem& operator=(const HostMem&) = delete;
};

// What a peer needs to reach this endpoint. Serialised as text so it travels through Comm's
// string collectives and shows up readable in a debugger.
struct WireAddress {
  uint32_t lid = 0, qpn = 0, psn = 0, rkey = 0;
  uint64_t addr = 0;
  int mtu = 0;          // enum ibv_mtu
  int gid_index = -1;   // -1: no GRH (InfiniBand inside one subnet)
  uint8_t gid[16] = {};
  std::string encode() const {
    std::ostringstream o;
    o << "verbs " << lid << ' ' << qpn << ' ' << psn << ' ' << rkey << ' ' << addr << ' ' << mtu << ' ' << gid_index << ' ';
    for (uint8_t b : gid) o << std::hex << std::setw(2) << std::setfill('0') << int(b);
    return o.str();
  }
  static WireAddress decode(const std::string& s) {
    std::istringstream in(s);
    std::string tag, g;
    WireAddress w;
    in >> tag >> w.lid >> w.qpn >> w.psn >> w.rkey >> w.addr >> w.mtu >> w.gid_index >> g;
    if (!in || tag != "verbs" || g.size() != 32) throw TransportError("verbs: malformed peer address \"" + s + "\"");
    for (int i = 0; i < 16; ++i) w.gid[i] = static_cast<uint8_t>(std::stoi(g.substr(2 * i, 2), nullptr, 16));
    return w;
  }
};

class VerbsEndpoint final : public Endpoint {
 public:
  VerbsEndpoint(std::shared_ptr<const Verbs> v, const EndpointSpec& spec) : v_(std::move(v)), spec_(spec) {
    try {
      setup();
    } catch (...) {
      teardown();
      throw;
    }
  }
  ~VerbsEndpoint() override { teardown(); }

  std::string address() const override { return local_.encode(); }

  void connect(const std::string& remote_s) override {
    remote_ = WireAddress::decode(remote_s);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = static_cast<ibv_mtu>(std::min(local_.mtu, remote_.mtu));
    a.dest_qp_num = remote_.qpn;
    a.rq_psn = remote_.psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = static_cast<uint16_t>(remote_.lid);
    a.ah_attr.port_num = static_cast<uint8_t>(spec_.port.port);
    if (remote_.gid_index >= 0 && local_.gid_index >= 0) {
      // RoCE (and IB across subnets) needs the global route header.
      a.ah_attr.is_global = 1;
      std::memcpy(a.ah_attr.grh.dgid.raw, remote_.gid, 16);
      a.ah_attr.grh.sgid_index = static_cast<uint8_t>(local_.gid_index);
      a.ah_attr.grh.hop_limit = 64;
    }
    if (int rc = v_->modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      throw TransportError("verbs: " + spec_.port.place_name() + ": modify QP to RTR: " + errno_text(rc));
    ibv_qp_attr r{};
    r.qp_state = IBV_QPS_RTS;
    r.timeout = 14;
    r.retry_cnt = 7;
    r.rnr_retry = 7;
    r.sq_psn = local_.psn;
    r.max_rd_atomic = 1;
    if (int rc = v_->modify_qp(qp_, &r, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                            IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
      throw TransportError("verbs: " + spec_.port.place_name() + ": modify QP to RTS: " + errno_text(rc));
    connected_ = true;
  }

  void write(std::size_t bytes, int count, double timeout_s) override {
    check(bytes);
    const auto end = deadline(timeout_s);
    int posted = 0, done = 0;
    while (done < count) {
      while (posted < count && posted - done < kWindow) {
        post_write(bytes, static_cast<uint64_t>(posted));
        ++posted;
      }
      done += drain(end, "RDMA write stream");
    }
  }
  // RC: the initiator's completion means the data was placed in our memory; nothing to wait
  // for here (the caller's handshake over MPI orders the two sides).
  void await_writes(std::size_t bytes, int, double) override { check(bytes); }

  std::vector<double> ping(std::size_t bytes, int count, double timeout_s) override {
    check_pingable(bytes);
    std::vector<double> rtt;
    rtt.reserve(static_cast<std::size_t>(count));
    const auto end = deadline(timeout_s);
    for (int i = 0; i < count; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const uint8_t tag = stamp(bytes, round_trips_++);
      post_write(bytes, static_cast<uint64_t>(i));
      wait_stamp(bytes, tag, end);
      drain_all(end);
      rtt.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return rtt;
  }
  void pong(std::size_t bytes, int count, double timeout_s) override {
    check_pingable(bytes);
    const auto end = deadline(timeout_s);
    for (int i = 0; i < count; ++i) {
      wait_stamp(bytes, stamp(bytes, round_trips_++), end);
      post_write(bytes, static_cast<uint64_t>(i));
      drain_all(end);
    }
  }
  std::span<std::byte> send_buffer() override {
    if (!host_) return {};
    return {static_cast<std::byte*>(host_->p) + spec_.buffer_bytes, spec_.buffer_bytes};
  }
  std::span<const std::byte> recv_buffer() override {
    if (!host_) return {};
    return {static_cast<const std::byte*>(host_->p), spec_.buffer_bytes};
  }

 private:
  static constexpr int kWindow = 64;  // outstanding writes; below every HCA's max_qp_wr
  using Clock = std::chrono::steady_clock;

  static Clock::time_point deadline(double s) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  void check(std::size_t bytes) const {
    if (!connected_) throw TransportError("verbs: endpoint used before connect");
    if (bytes > spec_.buffer_bytes) throw TransportError("verbs: message larger than the registered buffer");
  }
  void check_pingable(std::size_t bytes) const {
    check(bytes);
    if (!host_) throw TransportError("verbs: ping-pong needs host memory (the CPU polls the last byte)");
    if (bytes == 0) throw TransportError("verbs: ping-pong needs at least 1 byte");
  }
  uint8_t* base() const { return static_cast<uint8_t*>(host_ ? host_->p : reinterpret_cast<void*>(gpu_->ptr)); }
  // The send half's last byte carries the iteration, so the peer knows the whole message landed
  // (RC writes on one QP are placed in order; the last byte arrives last in practice, which
  // is what perftest's write latency relies on as well). The iteration counts every round trip
  // of the endpoint, across calls (both sides make the same calls), so a ping-pong split into
  // several calls never mistakes the last call's final stamp for the next one's first.
  uint8_t stamp(std::size_t bytes, long i) {
    const uint8_t tag = static_cast<uint8_t>(i % 255 + 1);
    base()[spec_.buffer_bytes + bytes - 1] = tag;
    return tag;
  }
  void wait_stamp(std::size_t bytes, uint8_t tag, Clock::time_point end) {
    volatile uint8_t* last = base() + bytes - 1;
    for (unsigned spins = 0; *last != tag; ++spins)
      if ((spins & 0xfff) == 0 && Clock::now() > end)
        throw TransportError("verbs: " + spec_.port.place_name() + ": no write from the peer before the deadline");
  }
  void post_write(std::size_t bytes, uint64_t id) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(base() + spec_.buffer_bytes);
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = mr_->lkey;
    ibv_send_wr wr{}, *bad = nullptr;
    wr.wr_id = id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED | (bytes <= inline_ && host_ ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = remote_.addr;
    wr.wr.rdma.rkey = remote_.rkey;
    if (int rc = ibv_post_send(qp_, &wr, &bad)) throw TransportError("verbs: post RDMA write: " + errno_text(rc));
    ++outstanding_;
  }
  // Polls until at least one completion (or the deadline); returns how many completed.
  int drain(Clock::time_point end, const char* what) {
    ibv_wc wc[16];
    for (unsigned spins = 0;; ++spins) {
      int n = ibv_poll_cq(cq_, 16, wc);
      if (n < 0) throw TransportError("verbs: poll CQ failed");
      for (int i = 0; i < n; ++i)
        if (wc[i].status != IBV_WC_SUCCESS)
          throw TransportError("verbs: " + spec_.port.place_name() + ": " + what + " completion status " +
                               std::to_string(static_cast<int>(wc[i].status)) + " (ibv_wc_status)");
      outstanding_ -= n;
      if (n > 0) return n;
      if ((spins & 0xfff) == 0 && Clock::now() > end)
        throw TransportError(std::string("verbs: ") + spec_.port.place_name() + ": " + what + " did not complete before the deadline");
    }
  }
  void drain_all(Clock::time_point end) {
    while (outstanding_ > 0) drain(end, "RDMA write");
  }

  void setup() {
    if (!v_->usable()) throw TransportError(v_->why());
    int n = 0;
    ibv_device** list = v_->get_device_list(&n);
    if (!list) throw TransportError("verbs: ibv_get_device_list: " + errno_text(errno));
    ibv_device* dev = nullptr;
    for (int i = 0; i < n; ++i)
      if (spec_.port.device == v_->get_device_name(list[i])) dev = list[i];
    if (dev) ctx_ = v_->open_device(dev);
    const int open_errno = errno;
    v_->free_device_list(list);
    if (!dev) throw TransportError("verbs: no device " + spec_.port.device + " in ibv_get_device_list");
    if (!ctx_) throw TransportError("verbs: open " + spec_.port.device + ": " + errno_text(open_errno));
    ibv_port_attr pa{};
    if (int rc = v_->query_port(ctx_, static_cast<uint8_t>(spec_.port.port), &pa))
      throw TransportError("verbs: query port " + spec_.port.place_name() + ": " + errno_text(rc));
    if (pa.state != IBV_PORT_ACTIVE) throw TransportError("verbs: port " + spec_.port.place_name() + " is not active");
    if (!(pd_ = v_->alloc_pd(ctx_))) throw TransportError("verbs: alloc PD on " + spec_.port.device + ": " + errno_text(errno));
    // Two halves: peers write into the first, we send from the second.
    const std::size_t total = 2 * spec_.buffer_bytes;
    void* mem = nullptr;
    if (spec_.gpu_memory) {
      gpu_ = std::make_unique<CudaMem>(spec_.gpu_pci_bus_id, total);
      mem = reinterpret_cast<void*>(gpu_->ptr);
    } else {
      host_ = std::make_unique<HostMem>(total);
      mem = host_->p;
    }
    mr_ = v_->reg_mr(pd_, mem, total, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr_)
      throw TransportError("verbs: register " + std::to_string(total) + " B of " + (spec_.gpu_memory ? "GPU" : "host") +
                           " memory on " + spec_.port.device + ": " + errno_text(errno) +
                           (spec_.gpu_memory ? " (is nvidia-peermem loaded?)" : ""));
    if (!(cq_ = v_->create_cq(ctx_, 2 * kWindow, nullptr, nullptr, 0)))
      throw TransportError("verbs: create CQ on " + spec_.port.device + ": " + errno_text(errno));
    ibv_qp_init_attr qi{};
    qi.send_cq = cq_;
    qi.recv_cq = cq_;
    qi.qp_type = IBV_QPT_RC;
    qi.cap.max_send_wr = kWindow;
    qi.cap.max_recv_wr = 1;
    qi.cap.max_send_sge = 1;
    qi.cap.max_recv_sge = 1;
    qi.cap.max_inline_data = 64;
    if (!(qp_ = v_->create_qp(pd_, &qi))) throw TransportError("verbs: create RC QP on " + spec_.port.device + ": " + errno_text(errno));
    inline_ = qi.cap.max_inline_data;
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<uint8_t>(spec_.port.port);
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    if (int rc = v_->modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
      throw TransportError("verbs: modify QP to INIT on " + spec_.port.place_name() + ": " + errno_text(rc));
    local_.lid = pa.lid;
    local_.qpn = qp_->qp_num;
    local_.psn = static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count()) & 0xffffff;
    local_.rkey = mr_->rkey;
    local_.addr = reinterpret_cast<uint64_t>(mem);
    local_.mtu = static_cast<int>(pa.active_mtu);
    // RoCE needs a GID; take the RoCE v2 one the inventory found. InfiniBand: GID 0 when the
    // port has one (harmless inside a subnet), else LID routing only.
    const int gi = spec_.port.ethernet() ? spec_.port.roce_v2_gid_index.value_or(-1) : 0;
    if (spec_.port.ethernet() && gi < 0)
      throw TransportError("verbs: RoCE port " + spec_.port.place_name() + " has no RoCE v2 GID");
    ibv_gid g{};
    if (gi >= 0 && v_->query_gid(ctx_, static_cast<uint8_t>(spec_.port.port), gi, &g) == 0) {
      local_.gid_index = gi;
      std::memcpy(local_.gid, g.raw, 16);
    }
  }

  void teardown() {
    if (qp_) v_->destroy_qp(qp_);
    if (cq_) v_->destroy_cq(cq_);
    if (mr_) v_->dereg_mr(mr_);
    gpu_.reset();
    host_.reset();
    if (pd_) v_->dealloc_pd(pd_);
    if (ctx_) v_->close_device(ctx_);
    qp_ = nullptr;
    cq_ = nullptr;
    mr_ = nullptr;
    pd_ = nullptr;
    ctx_ = nullptr;
  }

  std::shared_ptr<const Verbs> v_;
  EndpointSpec spec_;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  std::unique_ptr<HostMem> host_;
  std::unique_ptr<CudaMem> gpu_;
  WireAddress local_, remote_;
  uint32_t inline_ = 0;
  int outstanding_ = 0;
  bool connected_ = false;
  long round_trips_ = 0;                // ping and pong iterations so far: the stamps go on across calls
};

class VerbsTransport final : public Transport {
 public:
  explicit VerbsTransport(std::shared_ptr<const Verbs> v) : v_(std::move(v)) {}
  std::string name() const override { return "verbs"; }
  std::unique_ptr<Endpoint> open(const EndpointSpec& spec) override { return std::make_unique<VerbsEndpoint>(v_, spec); }

 private:
  std::shared_ptr<const Verbs> v_;
};

}  // namespace

VerbsDevices list_verbs_devices() {
  VerbsDevices out;
  Verbs v;
  out.library_loaded = v.lib.loaded();
  if (!v.usable()) {
    out.error = v.why();
    return out;
  }
  int n = 0;
  errno = 0;
  ibv_device** list = v.get_device_list(&n);
  if (!list) {
    // ENOSYS: no RDMA support in the kernel (this is what a machine without the stack says).
    out.error = "ibv_get_device_list returned NULL: " + errno_text(errno);
    return out;
  }
  for (int i = 0; i < n; ++i) out.devices.emplace_back(v.get_device_name(list[i]));
  v.free_device_list(list);
  if (out.devices.empty()) out.error = "ibv_get_device_list returned 0 devices";
  return out;
}

std::unique_ptr<Transport> make_verbs_transport() {
  auto v = std::make_shared<const Verbs>();
  if (!v->usable()) throw TransportError(v->why());
  return std::make_unique<VerbsTransport>(std::move(v));
}

}  // namespace ga::rdma
