// A main for the fuzz targets' bodies without libFuzzer (the gcc build): each argument is one
// input, run once. The bodies abort on a finding, so a regression input that crashes again
// fails the ctest test that replays it.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "replay: cannot open %s\n", argv[i]);
      return 2;
    }
    const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s\n", argv[i]);
    LLVMFuzzerTestOneInput(reinterpret_cast<const unsigned char*>(s.data()), s.size());
  }
  std::printf("replayed %d inputs\n", argc - 1);
  return 0;
}
