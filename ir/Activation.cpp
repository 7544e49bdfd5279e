// The names of the GEMM epilogue's activations.
#include "ir/Activation.h"

namespace fp8c {

const char *activationName(Activation a) {
  switch (a) {
  case Activation::None:
    return "none";
  case Activation::Relu:
    return "relu";
  case Activation::GeluTanh:
    return "gelu_tanh";
  case Activation::GeluErf:
    return "gelu_erf";
  case Activation::Silu:
    return "silu";
  }
  return "?";
}

const char *activationEnumerator(Activation a) {
  switch (a) {
  case Activation::None:
    return "None";
  case Activation::Relu:
    return "Relu";
  case Activation::GeluTanh:
    return "GeluTanh";
  case Activation::GeluErf:
    return "GeluErf";
  case Activation::Silu:
    return "Silu";
  }
  return "None";
}

std::span<const Activation> allActivations() {
  static constexpr Activation kAll[] = {Activation::None, Activation::Relu, Activation::GeluTanh,
                                        Activation::GeluErf, Activation::Silu};
  return kAll;
}

} // namespace fp8c
