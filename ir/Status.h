// Error values returned across fp8c's library boundaries: no exception crosses the C++ API.
// `Error` carries a message (already formatted with its location where it has one);
// `Expected<T>` is a T or an Error.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace fp8c {

/// A failure with a human-readable message.
class Error {
public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string &message() const { return message_; }

private:
  std::string message_;
};

/// Success, or an Error.
class Status {
public:
  Status() = default;
  Status(Error e) : error_(std::move(e.message())), failed_(true) {}
  static Status ok() { return Status(); }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return error_; }

private:
  std::string error_;
  bool failed_ = false;
};

/// A value of type T, or an Error.
template <typename T> class Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Error error) : storage_(std::move(error)) {}
  bool hasValue() const { return storage_.index() == 0; }
  explicit operator bool() const { return hasValue(); }
  T &operator*() { return value(); }
  T *operator->() { return &value(); }
  T &value() {
    assert(hasValue() && "Expected holds an error");
    return std::get<0>(storage_);
  }
  const std::string &error() const {
    assert(!hasValue() && "Expected holds a value");
    return std::get<1>(storage_).message();
  }
  T take() { return std::move(value()); }

private:
  std::variant<T, Error> storage_;
};

} // namespace fp8c
