#include "probes/harness/mpi_comm.hpp"

#include <climits>
#include <stdexcept>
#include <thread>

namespace ga {

namespace {
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string(what) + ": " + std::string(msg, len));
  }
}
int as_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw std::length_error("message larger than 2 GiB");
  return static_cast<int>(n);
}
}  // namespace

MpiComm::MpiComm(MPI_Comm parent) {
  check(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
  // Errors come back as codes so a failing call becomes a probe failure, not an abort.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiComm::~MpiComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiComm::wait_politely(MPI_Request& req) {
  int done = 0;
  for (int spins = 0;; ++spins) {
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (spins > 100) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void MpiComm::barrier() {
  MPI_Request req;
  check(MPI_Ibarrier(comm_, &req), "MPI_Ibarrier");
  wait_politely(req);
}

std::vector<std::string> MpiComm::gather(const std::string& mine, int root) {
  int n = as_count(mine.size());
  std::vector<int> counts(rank_ == root ? size_ : 0);
  MPI_Request req;
  check(MPI_Igather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_, &req), "MPI_Igather");
  wait_politely(req);
  std::vector<int> displs(counts.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    displs[i] = as_count(total);
    total += static_cast<std::size_t>(counts[i]);
  }
  std::string all(total, '\0');
  check(MPI_Igatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, root, comm_, &req),
        "MPI_Igatherv");
  wait_politely(req);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < counts.size(); ++i) out.push_back(all.substr(displs[i], counts[i]));
  return out;
}

std::vector<std::string> MpiComm::allgather(const std::string& mine) {
  auto parts = gather(mine, 0);
  std::string packed;
  if (rank_ == 0) {
    // length-prefixed so any bytes survive
    for (const auto& p : parts) packed += std::to_string(p.size()) + ":" + p;
  }
  packed = broadcast(packed, 0);
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < packed.size();) {
    auto colon = packed.find(':', pos);
    auto len = std::stoull(packed.substr(pos, colon - pos));
    out.push_back(packed.substr(colon + 1, len));
    pos = colon + 1 + len;
  }
  return out;
}

std::string MpiComm::broadcast(const std::string& s, int root) {
  unsigned long long n = s.size();
  MPI_Request req;
  check(MPI_Ibcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, comm_, &req), "MPI_Ibcast");
  wait_politely(req);
  std::string out = rank_ == root ? s : std::string(n, '\0');
  check(MPI_Ibcast(out.data(), as_count(n), MPI_CHAR, root, comm_, &req), "MPI_Ibcast");
  wait_politely(req);
  return out;
}

static double reduce(MpiComm& c, double v, MPI_Op op, MPI_Comm comm) {
  double out = 0;
  MPI_Request req;
  check(MPI_Iallreduce(&v, &out, 1, MPI_DOUBLE, op, comm, &req), "MPI_Iallreduce");
  int done = 0;
  while (!done) {
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  (void)c;
  return out;
}

double MpiComm::allreduce_max(double v) { return reduce(*this, v, MPI_MAX, comm_); }
double MpiComm::allreduce_min(double v) { return reduce(*this, v, MPI_MIN, comm_); }
double MpiComm::allreduce_sum(double v) { return reduce(*this, v, MPI_SUM, comm_); }

void MpiComm::send(const void* buf, std::size_t n, int dest, int tag) {
  check(MPI_Send(buf, as_count(n), MPI_BYTE, dest, tag, comm_), "MPI_Send");
}
void MpiComm::recv(void* buf, std::size_t n, int src, int tag) {
  check(MPI_Recv(buf, as_count(n), MPI_BYTE, src, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
}
void MpiComm::sendrecv(const void* sbuf, std::size_t sn, int dest, void* rbuf, std::size_t rn, int src, int tag) {
  check(MPI_Sendrecv(sbuf, as_count(sn), MPI_BYTE, dest, tag, rbuf, as_count(rn), MPI_BYTE, src, tag, comm_,
                     MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

}  // namespace ga
