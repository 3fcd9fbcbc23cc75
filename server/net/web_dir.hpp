#pragma once

namespace plateau::server {

// Where the browser client is served from when no --web-root is given: the source tree's
// clients/web, as the build saw it. Its own file: web_dir.cpp alone is compiled with that path.
const char* default_web_dir();

}  // namespace plateau::server
