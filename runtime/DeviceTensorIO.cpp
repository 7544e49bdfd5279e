// Encoding of host tensors to storage bytes and their device transfers.
#include "runtime/DeviceTensorIO.h"

#include <cstring>

namespace fp8c {

std::vector<unsigned char> encodeTensor(const HostTensor &t) {
  int w = dtypeBytes(t.dtype);
  std::vector<unsigned char> out(t.data.size() * w);
  for (size_t i = 0; i < t.data.size(); ++i) {
    uint32_t bits = encodeBits(t.data[i], t.dtype);
    std::memcpy(out.data() + i * w, &bits, w); // the low bytes, little-endian
  }
  return out;
}

HostTensor decodeTensor(const std::vector<unsigned char> &bytes, std::vector<int64_t> shape,
                        DType dtype) {
  HostTensor h;
  h.shape = std::move(shape);
  h.dtype = dtype;
  int w = dtypeBytes(dtype);
  h.data.resize(bytes.size() / w);
  for (size_t i = 0; i < h.data.size(); ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, bytes.data() + i * w, w);
    h.data[i] = decodeBits(bits, dtype);
  }
  return h;
}

Expected<DeviceBuffer> uploadTensor(const HostTensor &t) {
  std::vector<unsigned char> bytes = encodeTensor(t);
  Expected<DeviceBuffer> buf = DeviceBuffer::allocate(std::max<size_t>(bytes.size(), 1));
  if (!buf)
    return Error(buf.error());
  if (Status st = buf->upload(bytes.data(), bytes.size()); !st)
    return Error(st.message());
  return buf;
}

Expected<HostTensor> downloadTensor(const DeviceBuffer &buf, std::vector<int64_t> shape,
                                    DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * dtypeBytes(dtype));
  if (bytes.size() > buf.bytes())
    return Error("downloadTensor: the buffer holds " + std::to_string(buf.bytes()) +
                 " bytes, the tensor needs " + std::to_string(bytes.size()));
  if (Status st = buf.download(bytes.data(), bytes.size()); !st)
    return Error(st.message());
  return decodeTensor(bytes, std::move(shape), dtype);
}

} // namespace fp8c
