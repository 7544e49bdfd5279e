// .npy reader and writer (see Npy.h). The header is a Python dict literal; this parses exactly
// the subset numpy writes ({'descr': str, 'fortran_order': bool, 'shape': tuple}) and rejects
// anything else with a message, checking every length against the file before reading.
#include "interp/Npy.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace fp8c {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  size_t dataOffset = 0;
};

/// Cursor over the header dict; every parse function returns false with `error` set.
class DictParser {
public:
  explicit DictParser(std::string_view s) : s_(s) {}

  bool parse(NpyHeader &h) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipWs();
    if (!consume('{'))
      return fail("expected '{'");
    for (;;) {
      skipWs();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return false;
      skipWs();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'");
      skipWs();
      if (key == "descr") {
        if (!parseString(h.descr))
          return false;
        seenDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(h.fortranOrder))
          return false;
        seenOrder = true;
      } else if (key == "shape") {
        if (!parseShape(h.shape))
          return false;
        seenShape = true;
      } else {
        return fail("unknown key '" + key + "'");
      }
      skipWs();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}'");
    }
    skipWs();
    if (pos_ != s_.size())
      return fail("text after the closing '}'");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail("missing key '" +
                  std::string(!seenDescr   ? "descr"
                              : !seenOrder ? "fortran_order"
                                           : "shape") +
                  "'");
    return true;
  }

  std::string error;

private:
  bool fail(std::string msg) {
    error = std::move(msg);
    return false;
  }
  void skipWs() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      return fail("expected a quoted string");
    const char q = s_[pos_++];
    const size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos || end - pos_ > 64)
      return fail("unterminated string");
    out = std::string(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      out = true;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      out = false;
      return true;
    }
    return fail("fortran_order must be True or False");
  }
  bool parseShape(std::vector<int64_t> &out) {
    if (!consume('('))
      return fail("shape must be a tuple");
    for (;;) {
      skipWs();
      if (consume(')'))
        return true;
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9')
        return fail("shape must hold non-negative integers");
      int64_t d = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (d > (int64_t(1) << 56))
          return fail("shape dim is too large");
        d = d * 10 + (s_[pos_++] - '0');
      }
      consume('L'); // Python 2 longs
      out.push_back(d);
      if (out.size() > 32)
        return fail("shape has too many dims");
      skipWs();
      if (consume(','))
        continue;
      if (consume(')'))
        return true;
      return fail("expected ',' or ')' in shape");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Expected<NpyHeader> parseHeader(std::string_view bytes) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    return Error("is not a .npy file (no \\x93NUMPY magic)");
  const auto u8 = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])); };
  const uint32_t major = u8(6);
  size_t len = 0, start = 0;
  if (major == 1) {
    len = u8(8) | (u8(9) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return Error("is truncated inside its header");
    len = u8(8) | (u8(9) << 8) | (u8(10) << 16) | (u8(11) << 24);
    start = 12;
  } else {
    return Error(fmt::format("has unsupported format version {}.{}", major, u8(7)));
  }
  if (len > bytes.size() - start)
    return Error(fmt::format("is truncated inside its header ({} header bytes announced, {} "
                             "present)",
                             len, bytes.size() - start));
  NpyHeader h;
  DictParser p(bytes.substr(start, len));
  if (!p.parse(h))
    return Error("has a malformed header: " + p.error);
  h.dataOffset = start + len;
  return h;
}

/// How the graph's dtype accepts a file's descr: -1 no, 0 as f32 values (rounded), 1 raw bits.
int acceptance(DType want, const std::string &descr) {
  if (descr == "<f4")
    return want == DType::I32 ? -1 : 0;
  switch (want) {
  case DType::F16:
    return descr == "<f2" ? 1 : -1;
  case DType::BF16:
    return descr == "<u2" ? 1 : -1;
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return descr == "|u1" || descr == "<u1" ? 1 : -1;
  case DType::I32:
    return descr == "<i4" ? 1 : -1;
  default:
    return -1;
  }
}

std::string acceptedDescrs(DType want) {
  switch (want) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f4 or <f2";
  case DType::BF16:
    return "<f4 (or <u2 raw bf16 bits)";
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return fmt::format("<f4 (or |u1 raw {} bits)", dtypeName(want));
  case DType::I32:
    return "<i4";
  }
  return "<f4";
}

size_t descrBytes(const std::string &descr) {
  return descr == "|u1" || descr == "<u1" ? 1 : descr == "<f2" || descr == "<u2" ? 2 : 4;
}

Expected<HostTensor> decode(std::string_view bytes, const TensorType *expected,
                            const std::string &inputName, const std::string &file) {
  const std::string who = (inputName.empty() ? "" : "input '" + inputName + "': ") + file;
  Expected<NpyHeader> hp = parseHeader(bytes);
  if (!hp)
    return Error(who + " " + hp.error());
  const NpyHeader &h = *hp;
  const DType want = expected ? expected->dtype() : DType::F32;
  const int how = acceptance(want, h.descr);
  if (how < 0 || (!expected && how != 0))
    return Error(fmt::format("{} has dtype {}; expected {}", who, h.descr, acceptedDescrs(want)));
  if (h.fortranOrder)
    return Error(who + " is in Fortran order; only C order is supported "
                       "(write it with np.ascontiguousarray)");
  if (expected) {
    bool ok = static_cast<int64_t>(h.shape.size()) == expected->rank();
    for (size_t d = 0; ok && d < h.shape.size(); ++d)
      ok = expected->shape()[d] == kDynamic || expected->shape()[d] == h.shape[d];
    if (!ok)
      return Error(fmt::format("{} has shape {}; expected {}", who, shapeString(h.shape),
                               shapeString(expected->shape())));
  }
  const size_t item = descrBytes(h.descr);
  const size_t have = bytes.size() - h.dataOffset;
  // Element count, checked against the bytes present before anything is allocated.
  uint64_t n = 1;
  bool tooMany = false;
  for (int64_t d : h.shape) {
    if (d != 0 && n > (uint64_t(1) << 62) / static_cast<uint64_t>(d))
      tooMany = true;
    n *= static_cast<uint64_t>(d);
  }
  if (tooMany || n > have / item)
    return Error(fmt::format("{} is truncated: shape {} of {} needs {} data bytes, the file has {}",
                             who, shapeString(h.shape), h.descr,
                             tooMany ? std::string("too many") : std::to_string(n * item), have));
  if (n * item != have)
    return Error(fmt::format("{} has {} bytes after its data ({} of shape {} need {})", who,
                             have - n * item, h.descr, shapeString(h.shape), n * item));
  if (std::string e = hostTensorSizeError(h.shape); !e.empty())
    return Error(who + " " + e);
  HostTensor t = HostTensor::make(h.shape, want);
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data() + h.dataOffset);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    for (size_t b = 0; b < item; ++b)
      bits |= static_cast<uint32_t>(p[i * item + b]) << (8 * b);
    if (how == 0) {
      float f;
      std::memcpy(&f, &bits, 4);
      // Exactly representable values are kept (e5m2's +-inf included); others are rounded.
      t.data[i] = isRepresentable(f, want) ? f : roundToDType(f, want);
    } else {
      t.data[i] = decodeBits(bits, want);
    }
  }
  return t;
}

// The largest .npy file read: the data of the largest host tensor at 4 bytes an element, and
// room for a header. Anything longer is an error before it is read (a regular file) or once
// that much was read (a pipe or a device that never ends).
constexpr uint64_t kMaxNpyBytes = uint64_t(kMaxHostTensorElements) * 4 + (uint64_t(1) << 20);

// The bytes of `path`: an Error naming the input and the file when it cannot be opened (with
// the system's reason), is a directory, or is longer than kMaxNpyBytes. A file that does not
// start with the .npy magic is read no further than that (decode() then says so), so a device
// such as /dev/zero fails at once.
Expected<std::string> slurp(const std::string &path, const std::string &inputName) {
  const std::string who = inputName.empty() ? "" : "input '" + inputName + "': ";
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Error(fmt::format("{}cannot open {}: {}", who, path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return Error(fmt::format("{}cannot read {}: {}", who, path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    return Error(fmt::format("{}{} is a directory, not a .npy file", who, path));
  const std::string tooLarge =
      fmt::format("{}{} is larger than {} bytes, the most a .npy file of one host tensor holds "
                  "({} elements of 4 bytes, and a header)",
                  who, path, kMaxNpyBytes, kMaxHostTensorElements);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxNpyBytes)
    return Error(tooLarge);
  std::string bytes;
  if (S_ISREG(st.st_mode))
    bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    // Until the magic is in, read only as far as it; then in whole buffers.
    const size_t want = bytes.size() < kMagic.size() ? kMagic.size() - bytes.size() : sizeof buf;
    ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Error(fmt::format("{}cannot read {}: {}", who, path, std::strerror(errno)));
    if (n == 0)
      break;
    if (bytes.size() + static_cast<size_t>(n) > kMaxNpyBytes)
      return Error(tooLarge);
    bytes.append(buf, static_cast<size_t>(n));
    if (bytes.size() >= kMagic.size() && bytes.compare(0, kMagic.size(), kMagic) != 0)
      break; // not a .npy file, whatever follows
  }
  return bytes;
}

std::string rawDescr(DType t) {
  switch (t) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<u2";
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return "|u1";
  case DType::I32:
    return "<i4";
  }
  return "<f4";
}

} // namespace

Expected<HostTensor> decodeNpy(std::string_view bytes, const TensorType &expected,
                               const std::string &inputName, const std::string &fileLabel) {
  return decode(bytes, &expected, inputName, fileLabel);
}

Expected<HostTensor> readNpy(const std::string &path, const TensorType &expected,
                             const std::string &inputName) {
  Expected<std::string> bytes = slurp(path, inputName);
  if (!bytes)
    return Error(bytes.error());
  return decode(*bytes, &expected, inputName, path);
}

Expected<HostTensor> readNpyF32(const std::string &path) {
  Expected<std::string> bytes = slurp(path, "");
  if (!bytes)
    return Error(bytes.error());
  return decode(*bytes, nullptr, "", path);
}

Status writeNpy(const std::string &path, const HostTensor &t, NpyEncoding encoding) {
  const bool raw = encoding == NpyEncoding::Raw;
  const std::string descr = raw ? rawDescr(t.dtype) : "<f4";
  const size_t item = descrBytes(descr);
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += std::to_string(t.shape[i]) + (t.shape.size() == 1      ? ","
                                           : i + 1 < t.shape.size() ? ", "
                                                                    : "");
  shape += ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and end in '\n' so that the data starts 64-byte aligned (as numpy does).
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  if ((total + 63) / 64 * 64 - prefix > 65535)
    prefix = 12;
  total = prefix + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  const size_t len = dict.size();
  out += static_cast<char>(len & 0xFF);
  out += static_cast<char>((len >> 8) & 0xFF);
  if (prefix == 12) {
    out += static_cast<char>((len >> 16) & 0xFF);
    out += static_cast<char>((len >> 24) & 0xFF);
  }
  out += dict;
  const size_t dataStart = out.size();
  out.resize(dataStart + t.data.size() * item);
  for (size_t i = 0; i < t.data.size(); ++i) {
    uint32_t bits;
    if (raw) {
      bits = encodeBits(t.data[i], t.dtype);
    } else {
      std::memcpy(&bits, &t.data[i], 4);
    }
    for (size_t b = 0; b < item; ++b)
      out[dataStart + i * item + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  // Every write is checked through the close (a full disk fails at the final flush), with
  // the errno of the first failure.
  errno = 0;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f)
    return Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  const int writeErrno = f ? 0 : errno;
  if (f)
    errno = 0;
  f.close();
  if (!f) {
    const int e = writeErrno ? writeErrno : errno;
    return Error(fmt::format("cannot write {}: {}", path, e ? std::strerror(e) : "write failed"));
  }
  return Status::ok();
}

} // namespace fp8c
