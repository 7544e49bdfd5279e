// Scratch directories and whole-file I/O for the unit tests that touch the file system. Each
// test file gets its own per-process root (named by `prefix`), removed when the tests end.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

namespace fp8c::testfiles {

/// The per-process root `TempDir()/<prefix>-<pid>`; registers its removal once.
inline std::filesystem::path tempRoot(const std::string &prefix) {
  std::filesystem::path root =
      std::filesystem::path(testing::TempDir()) / (prefix + "-" + std::to_string(::getpid()));
  struct Remove : testing::Environment {
    explicit Remove(std::filesystem::path p) : path(std::move(p)) {}
    void TearDown() override { std::filesystem::remove_all(path); }
    std::filesystem::path path;
  };
  static std::set<std::string> registered; // one removal per root, across all test files
  if (registered.insert(root.string()).second)
    testing::AddGlobalTestEnvironment(new Remove(root));
  return root;
}

/// An empty directory `name` under the root of `prefix`.
inline std::string tempDir(const std::string &prefix, const std::string &name) {
  std::filesystem::path p = tempRoot(prefix) / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

inline std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

} // namespace fp8c::testfiles
