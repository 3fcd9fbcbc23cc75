// What the fuzz targets share: a check that stops the run with a message, whatever the build
// type (unlike assert); libFuzzer then saves the input that broke it.
//
// The targets catch no exceptions: the code under them promises never to throw, and an exception
// that nothing catches ends in std::terminate at the throw itself, so the crash's stack trace
// shows where it was thrown.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace plateau::fuzz {

[[noreturn]] inline void fail(const char* file, int line, std::string_view what) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %.*s\n", file, line,
               static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace plateau::fuzz

#define FUZZ_CHECK(cond, what)                                      \
  do {                                                              \
    if (!(cond)) ::plateau::fuzz::fail(__FILE__, __LINE__, (what)); \
  } while (0)
