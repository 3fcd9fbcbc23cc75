#pragma once
// Paths of this build, for the tests and benchmarks. They are compiled into build_paths.cpp
// alone: an absolute path in a large file's compile (a -D, expanded in its code) made that file
// miss ccache in every clone at a new path, and CI compiles a fresh clone.
namespace plateau::testing {

const char* server_binary();  // the plateau-server this build made
const char* source_dir();     // the repository's root
const char* cli_binary();     // the plateau-cli this build made

}  // namespace plateau::testing
