#include "build_paths.hpp"

namespace plateau::testing {

const char* server_binary() { return PLATEAU_SERVER_BIN; }
const char* source_dir() { return PLATEAU_SOURCE_DIR; }
const char* cli_binary() { return PLATEAU_CLI_BIN; }

}  // namespace plateau::testing
