#include "server/net/web_dir.hpp"

namespace plateau::server {

const char* default_web_dir() { return PLATEAU_WEB_DIR; }

}  // namespace plateau::server
