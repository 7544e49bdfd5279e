// Source locations: every op keeps where it came from (a file position, or the C++ call site
// of the Builder call that made it), and every diagnostic prints it as `file:line:col`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace fp8c {

struct Location {
  std::shared_ptr<const std::string> file; ///< shared by all locations of one buffer
  uint32_t line = 0;                       ///< 1-based; 0 = unknown
  uint32_t col = 0;                        ///< 1-based

  static Location unknown() { return {}; }
  static Location make(std::string file, uint32_t line, uint32_t col) {
    return {std::make_shared<const std::string>(std::move(file)), line, col};
  }
  bool isKnown() const { return file && line > 0; }
  /// `file:line:col`, or `<unknown>`.
  std::string str() const {
    if (!isKnown())
      return "<unknown>";
    return *file + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

} // namespace fp8c
