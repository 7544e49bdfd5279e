// The activations a GEMM epilogue applies to its result (codegen's LaunchPlan, the Hopper GEMM's
// kernel description). The device enum fp8c::sm90::Act (codegen/kernels/gemm_sm90_defs.cuh) has
// the same enumerators with the same values; test/unit/ir/OpTableTest.cpp checks it against this one.
#pragma once

#include <span>

namespace fp8c {

enum class Activation : int { None = 0, Relu = 1, GeluTanh = 2, GeluErf = 3, Silu = 4 };

/// "none", "relu", "gelu_tanh", "gelu_erf" or "silu".
const char *activationName(Activation a);
/// The enumerator's spelling, "None", "Relu", "GeluTanh", "GeluErf" or "Silu" (the device
/// enum's too).
const char *activationEnumerator(Activation a);
/// Every activation, in the enum's order.
std::span<const Activation> allActivations();

} // namespace fp8c
