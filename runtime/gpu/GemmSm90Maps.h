// The TMA tensor maps that the generated Hopper FP8 GEMM's launch (GemmSm90.cpp) encodes: its
// operands (128-byte boxes, 128-byte swizzle), D and the extra outputs for the TMA-store
// epilogue, and the blockwise scale grids (gemm_sm90_block_scales.cuh). Each error names the
// map and its extent.
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"

#include <cstdint>

namespace fp8c {

/// A 2-D map over rows x k elements of `elemBytes` bytes (1: FP8, 2: bf16; row pitch `ld`
/// elements), boxes of 128 bytes x boxRows, 128-byte swizzle, zeros outside.
Status encodeOperandMap(CudaDriver *drv, CUtensorMap *map, const void *base, int64_t rows,
                        int64_t k, int64_t ld, int boxRows, const char *operand, int elemBytes = 1);

/// D's map (rows x cols of `elemBytes`-byte elements, 2 or 1, row pitch `ld` elements) for the
/// TMA-store epilogue: boxes of 64 rows x boxBytes (128: 128-byte swizzle, 64: 64-byte
/// swizzle); TMA clips the stores at `rows` and `cols`.
Status encodeStoreMap(CudaDriver *drv, CUtensorMap *map, void *base, int64_t rows, int64_t cols,
                      int64_t ld, int elemBytes, int boxBytes = 128, const char *what = "D");

/// A blockwise scale grid's map (f32, `rows` rows of `cols` elements, pitch `ld` elements):
/// boxes of boxCols x boxRows, no swizzle, zeros outside. A's: [kBlocks][M] in boxes of bm x 1;
/// B's: [nBlocks][kBlocks] in boxes of 4 x 2, loaded from 16-byte aligned inner coordinates.
Status encodeScaleMap(CudaDriver *drv, CUtensorMap *map, const float *base, int64_t rows,
                      int64_t cols, int64_t ld, int boxCols, int boxRows, const char *what);

} // namespace fp8c
