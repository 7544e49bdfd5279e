// A plan's GEMM step (codegen/LaunchPlan.h: GemmStep) on the generated Hopper GEMM
// (GemmSm90.h): the kernel config it needs, the tile configs it can pick over M in [1, maxM],
// and the problem and pointers of one call. Host-only (no GPU needed), so the mapping and its
// refusals are testable on the CPU.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/Status.h"
#include "runtime/gpu/GemmSm90.h"

#include <optional>
#include <span>
#include <vector>

namespace fp8c {

/// The kernel config (tile shape left at its default) of step `g`: dtypes from the buffers,
/// scale mode, bias, activation (cuBLASLt's GELU is the tanh form), amaxD, fast accumulation.
/// An error naming the GEMM and why when the generated GEMM cannot run it (non-FP8 or
/// e5m2 x e5m2 operands, B not K-major, an FP8 D without scaleD, ...).
Expected<GemmSm90Spec> gemmSm90KernelOf(const GemmStep &g, const LaunchPlan &plan);

/// The unfused form of a step whose epilogue only the generated GEMM fuses and whose cuBLASLt
/// form writes the plain result to epiD for the `epiFallback` launches (the 1x128-block cast,
/// the residual add, gelu_grad): the same GEMM, with its bias and cuBLASLt epilogue, writing
/// that result to epiD on the generated GEMM, named "<name>_unfused"; run it, then the step's
/// epiFallback. Auto measures it beside the fused generated GEMM and cuBLASLt (a fused epilogue
/// can need a slower tile: the block cast takes 128 x 128 where the plain GEMM runs 128 x 192).
/// Nothing for other steps.
std::optional<GemmStep> unfusedGemmOf(const GemmStep &g);

/// Every tile config chooseGemmSm90Tiles picks for `g` at some M in [1, maxM] on `dev`
/// (distinct kernel names), each checked against the plan's static pitches; an error naming
/// the GEMM when one is refused.
Expected<std::vector<GemmSm90Spec>> gemmSm90KernelsFor(const GemmStep &g,
                                                         const LaunchPlan &plan, int64_t maxM,
                                                         const Device &dev);

/// The device the tile heuristic assumes where no GPU is asked (fp8c --emit=cuda|ptx|cubin):
/// a Hopper sm_90a with 132 SMs (H100 SXM, H200).
Device gemmSm90DefaultDevice();

/// The spec GemmSm90Runner::run launches for step `g` at run-time size `m` on `dev` where no
/// tile config was autotuned: chooseGemmSm90Tiles over the step's problem, with TMA stores as
/// the run has them (launchedGemmSm90Kernel). An error naming the GEMM where the generated GEMM
/// cannot run it.
Expected<GemmSm90Spec> gemmSm90HeuristicSpec(const GemmStep &g, const LaunchPlan &plan,
                                             int64_t m, const Device &dev);

/// The problem (sizes, pitches at run-time size `m`) and pointers of step `g`, with
/// `buffers[i]` the device address of plan.buffers[i] (and `m` the side launch's M).
GemmSm90Problem gemmSm90ProblemOf(const GemmStep &g, const LaunchPlan &plan, int64_t m);
GemmSm90Pointers gemmSm90PointersOf(const GemmStep &g, std::span<const CUdeviceptr> buffers,
                                    int64_t m);

} // namespace fp8c
