// The tensor maps of the generated Hopper FP8 GEMM's launch (GemmSm90Maps.h).
#include "runtime/gpu/GemmSm90Maps.h"

#include <string>

namespace fp8c {
namespace {

constexpr int kBK = 128;

// cuTensorMapEncodeTiled over a 2-D tensor of rows x cols elements (row pitch `ldBytes`),
// interleave none, zeros outside; its error names `what` and the extent (pitch in elements).
Status encode2d(CudaDriver *drv, CUtensorMap *map, CUtensorMapDataType type, const void *base,
                int64_t rows, int64_t cols, int64_t ld, int64_t ldBytes, cuuint32_t boxCols,
                cuuint32_t boxRows, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                const char *what) {
  cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  cuuint64_t strides[1] = {cuuint64_t(ldBytes)};
  cuuint32_t box[2] = {boxCols, boxRows};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult r = drv->cuTensorMapEncodeTiled(map, type, 2, const_cast<void *>(base), dims, strides,
                                           box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                           swizzle, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Error(drv->errorMessage(r, "cuTensorMapEncodeTiled",
                                   std::string(what) + " " + std::to_string(rows) + "x" +
                                       std::to_string(cols) + " pitch " + std::to_string(ld)));
  return Status::ok();
}

} // namespace

Status encodeOperandMap(CudaDriver *drv, CUtensorMap *map, const void *base, int64_t rows,
                        int64_t k, int64_t ld, int boxRows, const char *operand, int elemBytes) {
  return encode2d(
      drv, map, elemBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8,
      base, rows, k, ld, ld * elemBytes, cuuint32_t(kBK / elemBytes), cuuint32_t(boxRows),
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, operand);
}

Status encodeStoreMap(CudaDriver *drv, CUtensorMap *map, void *base, int64_t rows, int64_t cols,
                      int64_t ld, int elemBytes, int boxBytes, const char *what) {
  return encode2d(drv, map,
                  elemBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8,
                  base, rows, cols, ld, ld * elemBytes, cuuint32_t(boxBytes / elemBytes), 64,
                  boxBytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, what);
}

Status encodeScaleMap(CudaDriver *drv, CUtensorMap *map, const float *base, int64_t rows,
                      int64_t cols, int64_t ld, int boxCols, int boxRows, const char *what) {
  return encode2d(drv, map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, base, rows, cols, ld, ld * 4,
                  cuuint32_t(boxCols), cuuint32_t(boxRows), CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, what);
}

} // namespace fp8c
