// RAII over dlopen. Vendor libraries (libcuda, NCCL, cuBLAS, NVML, libibverbs) are loaded at
// run time so one binary runs on any driver, and on hosts without them says why.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ga {

class DynLib {
 public:
  // Tries each name in turn; error() says what failed when none loads.
  explicit DynLib(const std::vector<std::string>& names);
  ~DynLib();
  DynLib(DynLib&& o) noexcept : handle_(o.handle_), name_(std::move(o.name_)), error_(std::move(o.error_)) { o.handle_ = nullptr; }
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }
  // The file the loader actually mapped (symlinks resolved), for versions from sonames.
  std::string real_path() const;

  template <typename Fn>
  Fn symbol(const char* sym) const { return reinterpret_cast<Fn>(raw_symbol(sym)); }

 private:
  void* raw_symbol(const char* sym) const;
  void* handle_ = nullptr;
  std::string name_;
  std::string error_;
};

}  // namespace ga
