// Replays files through the parser fuzzer's entry point without libFuzzer (any compiler):
// `fp8c-parser-fuzz-replay DIR_OR_FILE...` runs every regular file, in name order, and aborts on
// the first violated property (see ParserFuzzer.cpp). The ctest `parser-fuzz-corpus` runs it over
// the seed corpus unpacked from test/fuzz/parser_seed_corpus.zip into the build tree.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const fs::directory_entry &e : fs::directory_iterator(argv[i], ec))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
    if (ec) {
      std::fprintf(stderr, "cannot read %s: %s\n", argv[i], ec.message().c_str());
      return 1;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &p : files) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot open %s\n", p.c_str());
      return 1;
    }
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return files.empty() ? 1 : 0;
}
