// A user's program against the installed fp8c package: capture the MLP block of
// examples/mlp.mlir with the C++ graph-capture API, print it, and check the text. Exits 0 when
// the installed headers, libraries and their dependencies work together.
#include "ir/Builder.h"
#include "ir/Printer.h"

#include <cstdio>
#include <string>

int main() {
  using fp8c::DType;
  using fp8c::kDynamic;
  using fp8c::Value;

  fp8c::GraphBuilder b("mlp");
  Value *x = b.input("x", {{kDynamic, 4096}, DType::BF16});
  Value *w1 = b.input("w1", {{14336, 4096}, DType::BF16});
  Value *b1 = b.input("b1", {{14336}, DType::BF16});
  Value *w2 = b.input("w2", {{4096, 14336}, DType::BF16});
  Value *b2 = b.input("b2", {{4096}, DType::BF16});
  Value *h = b.gelu(b.linear(x, w1, b1), "tanh");
  b.output(b.linear(h, w2, b2));
  fp8c::Expected<std::unique_ptr<fp8c::Graph>> g = b.finish();
  if (!g) {
    std::fprintf(stderr, "consumer: graph capture failed: %s\n", g.error().c_str());
    return 1;
  }

  std::string text = fp8c::toString(**g);
  std::fputs(text.c_str(), stdout);
  for (const char *expected : {"func.func @mlp", "fp8.linear", "fp8.gelu", "return"}) {
    if (text.find(expected) == std::string::npos) {
      std::fprintf(stderr, "consumer: printed IR lacks `%s`\n", expected);
      return 1;
    }
  }
  std::puts("consumer: OK");
  return 0;
}
