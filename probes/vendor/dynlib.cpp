#include "probes/vendor/dynlib.hpp"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>

namespace ga {

DynLib::DynLib(const std::vector<std::string>& names) {
  for (const auto& n : names) {
    handle_ = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      name_ = n;
      error_.clear();
      return;
    }
    const char* e = dlerror();
    error_ += (error_.empty() ? "" : "; ") + std::string(e ? e : n + ": cannot load");
  }
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

void* DynLib::raw_symbol(const char* sym) const { return handle_ ? dlsym(handle_, sym) : nullptr; }

std::string DynLib::real_path() const {
  if (!handle_) return {};
  link_map* lm = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name) return {};
  char buf[PATH_MAX];
  return realpath(lm->l_name, buf) ? std::string(buf) : std::string(lm->l_name);
}

}  // namespace ga
