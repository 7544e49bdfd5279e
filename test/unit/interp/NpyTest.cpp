// .npy reader and writer (interp/Npy.h): round trips, every accepted element type (files built
// byte by byte here, independent of the writer), and every rejected file with its message.
#include "interp/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include <unistd.h>

namespace fp8c {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string tempPath(const std::string &name) {
  return testing::TempDir() + "fp8c-npytest-" + std::to_string(::getpid()) + "-" + name;
}

// A .npy file: magic, version, header length, the dict padded to 64 bytes, then `payload`.
std::string npyBytes(const std::string &dict, const std::string &payload, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  const size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + payload;
}

std::string dictOf(const std::string &descr, const std::string &shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

template <typename T> std::string le(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s.append(b, sizeof(T));
  }
  return s;
}

std::string writeFile(const std::string &name, const std::string &bytes) {
  std::string path = tempPath(name);
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

Expected<HostTensor> readBytes(const std::string &bytes, TensorType want) {
  return decodeNpy(bytes, want, "x", "x.npy");
}

std::string errorOf(const std::string &bytes, TensorType want) {
  Expected<HostTensor> r = readBytes(bytes, want);
  EXPECT_FALSE(r);
  return r ? std::string() : r.error();
}

TEST(NpyRoundTrip, Float32AndRawEncodings) {
  HostTensor t = HostTensor::make({2, 3}, DType::F32);
  t.data = {1, -2.5f, 0.1f, kInf, -0.0f, 3e38f};
  const std::string p = tempPath("f32.npy");
  ASSERT_TRUE(writeNpy(p, t)) << "write failed";
  Expected<HostTensor> back = readNpy(p, {{kDynamic, 3}, DType::F32}, "x");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(std::memcmp(back->data.data(), t.data.data(), 6 * sizeof(float)), 0);
  Expected<HostTensor> any = readNpyF32(p);
  ASSERT_TRUE(any) << any.error();
  EXPECT_EQ(any->shape, t.shape);

  struct Case {
    DType dt;
    std::vector<float> values;
  };
  const Case cases[] = {
      {DType::BF16, {1.0078125f, -3.5f, kInf}},
      {DType::F16, {65504, -0x1p-24f, 0.5f}},
      {DType::F8E4M3FN, {448, -0x1p-9f, 1.125f}},
      {DType::F8E5M2, {57344, -kInf, 0x1p-16f}},
  };
  for (const Case &c : cases) {
    HostTensor h = HostTensor::make({3}, c.dt);
    h.data = c.values;
    for (NpyEncoding enc : {NpyEncoding::Float32, NpyEncoding::Raw}) {
      const std::string path = tempPath(std::string(dtypeName(c.dt)) + ".npy");
      ASSERT_TRUE(writeNpy(path, h, enc));
      Expected<HostTensor> r = readNpy(path, {{3}, c.dt}, "x");
      ASSERT_TRUE(r) << r.error();
      EXPECT_EQ(r->dtype, c.dt);
      EXPECT_EQ(r->data, c.values) << dtypeName(c.dt);
      std::remove(path.c_str());
    }
  }
  // A scalar and a large-rank shape print and parse.
  HostTensor s = HostTensor::make({}, DType::F32);
  s.data = {7};
  ASSERT_TRUE(writeNpy(p, s));
  Expected<HostTensor> sb = readNpy(p, {{}, DType::F32}, "s");
  ASSERT_TRUE(sb) << sb.error();
  EXPECT_EQ(sb->data, std::vector<float>{7});
  std::remove(p.c_str());
}

TEST(NpyRead, AcceptedDTypes) {
  // <f4 into bf16 rounds to nearest even: 1 + 2^-8 -> 1; 1 + 3*2^-8 -> 1.015625.
  auto r = readBytes(npyBytes(dictOf("<f4", "(2,)"), le<float>({1 + 0x1p-8f, 1 + 3 * 0x1p-8f})),
                     {{2}, DType::BF16});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{1, 1.015625f}));
  // <f4 into e4m3 saturates and rounds: 600 -> 448, 1.0625 -> 1, -inf -> -448.
  r = readBytes(npyBytes(dictOf("<f4", "(3,)"), le<float>({600, 1.0625f, -kInf})),
                {{3}, DType::F8E4M3FN});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{448, 1, -448}));
  // <f4 into f16: 65520 -> inf.
  r = readBytes(npyBytes(dictOf("<f4", "(1,)"), le<float>({65520})), {{1}, DType::F16});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{kInf}));
  // <f2 bits: 0x3C00 = 1, 0xC000 = -2, 0x0001 = 2^-24.
  r = readBytes(npyBytes(dictOf("<f2", "(3,)"), le<uint16_t>({0x3C00, 0xC000, 0x0001})),
                {{3}, DType::F16});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{1, -2, 0x1p-24f}));
  // <u2 raw bf16 bits: 0x3F80 = 1, 0x4049 = 3.140625, 0xFF80 = -inf.
  r = readBytes(npyBytes(dictOf("<u2", "(1, 3)"), le<uint16_t>({0x3F80, 0x4049, 0xFF80})),
                {{kDynamic, 3}, DType::BF16});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(r->data, (std::vector<float>{1, 3.140625f, -kInf}));
  // |u1 raw FP8 bytes. e4m3: 0x38 = 1, 0x7E = 448, 0x01 = 2^-9, 0x7F = NaN.
  r = readBytes(npyBytes(dictOf("|u1", "(4,)"), le<uint8_t>({0x38, 0x7E, 0x01, 0x7F})),
                {{4}, DType::F8E4M3FN});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data[0], 1.0f);
  EXPECT_EQ(r->data[1], 448.0f);
  EXPECT_EQ(r->data[2], 0x1p-9f);
  EXPECT_TRUE(std::isnan(r->data[3]));
  // e5m2: 0x3C = 1, 0x7C = inf, 0xFB = -57344.
  r = readBytes(npyBytes(dictOf("|u1", "(3,)"), le<uint8_t>({0x3C, 0x7C, 0xFB})),
                {{3}, DType::F8E5M2});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{1, kInf, -57344}));
  // Format version 2.0 and a dict with double quotes, no trailing comma, other key order.
  r = readBytes(npyBytes("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}",
                         le<float>({1.5f, -2}), 2),
                {{2}, DType::F32});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->data, (std::vector<float>{1.5f, -2}));
  // A dynamic dim accepts any size, including 0.
  r = readBytes(npyBytes(dictOf("<f4", "(0, 2)"), ""), {{kDynamic, 2}, DType::F32});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->shape, (std::vector<int64_t>{0, 2}));
}

TEST(NpyRead, Errors) {
  const std::string f4x2 = le<float>({1, 2});
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f8", "(2,)"), f4x2 + f4x2), {{2}, DType::BF16}),
            "input 'x': x.npy has dtype <f8; expected <f4 (or <u2 raw bf16 bits)");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<u2", "(2,)"), le<uint16_t>({1, 2})), {{2}, DType::F32}),
            "input 'x': x.npy has dtype <u2; expected <f4");
  EXPECT_EQ(errorOf(npyBytes(dictOf(">f4", "(2,)"), f4x2), {{2}, DType::F8E4M3FN}),
            "input 'x': x.npy has dtype >f4; expected <f4 (or |u1 raw f8E4M3FN bits)");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(2,)"), f4x2), {{kDynamic, 4}, DType::F32}),
            "input 'x': x.npy has shape [2]; expected [?, 4]");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(1, 2)"), f4x2), {{1, 3}, DType::F32}),
            "input 'x': x.npy has shape [1, 2]; expected [1, 3]");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(3,)"), f4x2), {{3}, DType::F32}),
            "input 'x': x.npy is truncated: shape [3] of <f4 needs 12 data bytes, the file has 8");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(1,)"), f4x2), {{1}, DType::F32}),
            "input 'x': x.npy has 4 bytes after its data (<f4 of shape [1] need 4)");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(2,)", true), f4x2), {{2}, DType::F32}),
            "input 'x': x.npy is in Fortran order; only C order is supported (write it with "
            "np.ascontiguousarray)");
  EXPECT_EQ(errorOf("PK\x03\x04 not numpy at all", {{2}, DType::F32}),
            "input 'x': x.npy is not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(errorOf(npyBytes("[1, 2, 3]", f4x2), {{2}, DType::F32}),
            "input 'x': x.npy has a malformed header: expected '{'");
  EXPECT_EQ(errorOf(npyBytes("{'descr': '<f4', 'shape': (2,)}", f4x2), {{2}, DType::F32}),
            "input 'x': x.npy has a malformed header: missing key 'fortran_order'");
  EXPECT_EQ(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", f4x2),
                    {{2}, DType::F32}),
            "input 'x': x.npy has a malformed header: fortran_order must be True or False");
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(2, -1)"), f4x2), {{2}, DType::F32}),
            "input 'x': x.npy has a malformed header: shape must hold non-negative integers");
  std::string v9 = npyBytes(dictOf("<f4", "(2,)"), f4x2);
  v9[6] = 9;
  EXPECT_EQ(errorOf(v9, {{2}, DType::F32}), "input 'x': x.npy has unsupported format version 9.0");
  std::string cut = npyBytes(dictOf("<f4", "(2,)"), f4x2).substr(0, 40);
  EXPECT_EQ(errorOf(cut, {{2}, DType::F32}),
            "input 'x': x.npy is truncated inside its header (118 header bytes announced, 30 "
            "present)");
  // A shape whose byte count overflows is "truncated", not an allocation.
  EXPECT_EQ(errorOf(npyBytes(dictOf("<f4", "(4294967296, 4294967296, 4294967296)"), f4x2),
                    {{kDynamic, 4294967296, 4294967296}, DType::F32}),
            "input 'x': x.npy is truncated: shape [4294967296, 4294967296, 4294967296] of <f4 "
            "needs too many data bytes, the file has 8");
  const std::string path = writeFile("f8.npy", npyBytes(dictOf("<f8", "(1,)"), f4x2));
  Expected<HostTensor> wrong = readNpy(path, {{1}, DType::F32}, "b1");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), "input 'b1': " + path + " has dtype <f8; expected <f4");
  std::remove(path.c_str());
  Expected<HostTensor> missing = readNpy(tempPath("does-not-exist.npy"), {{2}, DType::F32}, "w1");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("input 'w1': cannot open "), std::string::npos) << missing.error();
  EXPECT_NE(missing.error().find("No such file or directory"), std::string::npos);
}

// Every prefix of a valid file, and every single-byte corruption of its header, is an error or
// a tensor, never a crash.
TEST(NpyRead, CorruptFilesNeverCrash) {
  const std::string good = npyBytes(dictOf("<u2", "(2, 3)"), le<uint16_t>({1, 2, 3, 4, 5, 6}));
  const TensorType want({kDynamic, 3}, DType::BF16);
  ASSERT_TRUE(readBytes(good, want));
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_FALSE(readBytes(good.substr(0, n), want)) << "prefix " << n;
  for (size_t i = 0; i < 128; ++i)
    for (int v : {0, int(' '), int('('), int(')'), int(','), int('\''), int('9'), 0xFF}) {
      std::string bad = good;
      bad[i] = static_cast<char>(v);
      (void)readBytes(bad, want);
    }
}

} // namespace
} // namespace fp8c
