// Checking cuBLASLt calls: FP8C_CUBLASLT_TRY(call, context) returns an Error naming the call,
// the status (cublasLtGetStatusName) and cublasLtGetStatusString's text from the enclosing
// function (Status or Expected<T>). Internal to runtime/gpu.
#pragma once

#include "ir/Status.h"

#include <cublasLt.h>

#include <string>
#include <string_view>

namespace fp8c {

/// "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
/// supported) [context]".
std::string cublasLtErrorMessage(cublasStatus_t s, std::string_view call, std::string_view context);

} // namespace fp8c

#define FP8C_CUBLASLT_TRY(call, context)                                                           \
  do {                                                                                             \
    cublasStatus_t fp8cLtStatus_ = (call);                                                         \
    if (fp8cLtStatus_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      std::string_view fp8cLtCall_ = #call;                                                        \
      return ::fp8c::Error(::fp8c::cublasLtErrorMessage(                                           \
          fp8cLtStatus_, fp8cLtCall_.substr(0, fp8cLtCall_.find('(')), (context)));                \
    }                                                                                              \
  } while (0)
