// The fp8c driver's output files: every write is checked, through the final flush and close,
// so a full disk or an unwritable device is an error naming the file and the system's reason
// (exit status 1), never a silently truncated output.
#pragma once

#include "ir/Status.h"

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace fp8c::cli {

/// A file opened for writing (created or truncated) with a stream over it that remembers the
/// first failed write and its reason.
class OutputFile {
public:
  /// Opens `path`; an Error naming it when it cannot be opened.
  static Expected<std::unique_ptr<OutputFile>> open(const std::string &path);
  ~OutputFile();

  std::ostream &stream() { return os_; }
  /// Flushes and closes the file; an Error naming the path when any write, the flush or the
  /// close failed. Called once.
  Status close();

private:
  class Buffer;
  OutputFile(std::string path, std::unique_ptr<Buffer> buf);

  std::string path_;
  std::unique_ptr<Buffer> buf_;
  std::ostream os_;
};

/// Writes `bytes` to `path` (created or truncated) and closes it, checked as OutputFile.
Status writeOutputFile(const std::string &path, std::string_view bytes);

/// Flushes standard output; an Error when any write to it failed.
Status flushStdout();

} // namespace fp8c::cli
