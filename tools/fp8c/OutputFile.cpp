// Checked output files of the fp8c driver (see OutputFile.h): a stream buffer over a file
// descriptor that writes with write(2) and keeps the errno of the first failure, so the error
// names the real reason even when the failing write happened long before the close.
#include "OutputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <streambuf>
#include <unistd.h>
#include <vector>

namespace fp8c::cli {

class OutputFile::Buffer : public std::streambuf {
public:
  explicit Buffer(int fd) : fd_(fd), buf_(size_t(1) << 16) {
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  ~Buffer() override {
    if (fd_ >= 0)
      ::close(fd_);
  }

  /// 0, or the errno of the first write, flush or close that failed.
  int closeFd() {
    drain();
    if (fd_ >= 0 && ::close(fd_) != 0 && error_ == 0)
      error_ = errno;
    fd_ = -1;
    return error_;
  }

protected:
  int_type overflow(int_type c) override {
    if (!drain())
      return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

private:
  // Writes out the buffered bytes; false (with error_ set) once any write failed.
  bool drain() {
    const char *p = pbase();
    size_t n = static_cast<size_t>(pptr() - pbase());
    while (n > 0 && error_ == 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        error_ = w < 0 ? errno : EIO;
        break;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

OutputFile::OutputFile(std::string path, std::unique_ptr<Buffer> buf)
    : path_(std::move(path)), buf_(std::move(buf)), os_(buf_.get()) {}

OutputFile::~OutputFile() = default;

Expected<std::unique_ptr<OutputFile>> OutputFile::open(const std::string &path) {
  int fd;
  do
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Error("cannot write '" + path + "': " + std::strerror(errno));
  return std::unique_ptr<OutputFile>(new OutputFile(path, std::make_unique<Buffer>(fd)));
}

Status OutputFile::close() {
  os_.flush();
  if (int e = buf_->closeFd(); e != 0)
    return Error("cannot write '" + path_ + "': " + std::strerror(e));
  return Status::ok();
}

Status writeOutputFile(const std::string &path, std::string_view bytes) {
  Expected<std::unique_ptr<OutputFile>> f = OutputFile::open(path);
  if (!f)
    return Error(f.error());
  (*f)->stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return (*f)->close();
}

Status flushStdout() {
  // Standard output goes through stdio (std::cout is synchronized with it); a failure at this
  // flush leaves its reason in errno, one at an earlier write only the stream's state.
  const bool failedBefore = std::cout.fail() || std::ferror(stdout);
  errno = 0;
  std::cout.flush();
  const bool flushFailed = std::fflush(stdout) != 0;
  const int e = errno;
  if (!failedBefore && !flushFailed && !std::cout.fail())
    return Status::ok();
  return Error(std::string("cannot write the standard output") +
               (!failedBefore && e != 0 ? ": " + std::string(std::strerror(e)) : ""));
}

} // namespace fp8c::cli
