// numpy .npy files: the CLI's `--input NAME=FILE.npy` and `--output-dir`. Format versions 1.0,
// 2.0 and 3.0, little-endian, C order only (a Fortran-order file is an error).
//
// Accepted element types, by the dtype the graph's input expects:
//   f32       <f4
//   f16       <f4 (rounded to nearest even, overflow to inf)  or  <f2 (taken as is)
//   bf16      <f4 (rounded to nearest even)                  or  <u2: raw bf16 bits
//   f8E4M3FN, <f4 (rounded to nearest even, saturating to     or  |u1 (also <u1): raw FP8 bytes
//   f8E5M2        +-max, as roundToDType does)
//   i32       <i4
// A <f4 value already representable in the dtype is kept as it is (so e5m2's +-inf, which
// roundToDType would saturate, survive a writeNpy / readNpy round trip).
// numpy has no bf16 or FP8 types, so such tensors travel either as f32 values or as their raw
// bits: `x.view(np.uint16)` of a torch bf16 tensor's numpy twin, `x.view(np.uint8)` for FP8.
// Every mismatch (dtype, shape, order, truncated or corrupt file) is an Error naming the input,
// the file, and what was expected and found; no input crashes the reader.
#pragma once

#include "ir/Status.h"
#include "ir/Type.h"
#include "interp/HostTensor.h"

#include <string>
#include <string_view>

namespace fp8c {

/// Reads `path` as the value of input `inputName` of type `expected` (dynamic dims accept any
/// size). The result has `expected`'s dtype and the file's shape.
Expected<HostTensor> readNpy(const std::string &path, const TensorType &expected,
                             const std::string &inputName);

/// The same, from the bytes of a .npy file; `fileLabel` names it in errors.
Expected<HostTensor> decodeNpy(std::string_view bytes, const TensorType &expected,
                               const std::string &inputName, const std::string &fileLabel);

/// Reads any `<f4` file as an f32 tensor of the file's shape (for outputs written by writeNpy).
Expected<HostTensor> readNpyF32(const std::string &path);

enum class NpyEncoding {
  Float32, ///< `<f4`: the stored values widened to f32 (exact)
  Raw,     ///< the dtype's storage: <f4 (f32), <f2 (f16), <u2 (bf16), |u1 (FP8), <i4 (i32)
};

/// Writes `t` as a version 1.0 .npy file (2.0 when the header needs it).
Status writeNpy(const std::string &path, const HostTensor &t,
                NpyEncoding encoding = NpyEncoding::Float32);

} // namespace fp8c
