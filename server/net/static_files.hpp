// The browser client's files, listed once at start. A request names a file of that list or gets
// a 404: no path is ever built from a request's target, so no target (`//etc/passwd`, `..`,
// escapes, backslashes, NUL) can reach a file the list does not hold.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace plateau::server {

struct StaticFile {
  std::string body;
  std::string_view mime;
};

struct StaticLimits {
  std::size_t max_files = 4096;
  std::size_t max_bytes = 64 << 20;  // all files together: they are held in memory
};

class StaticFiles {
 public:
  StaticFiles() = default;
  // Lists every regular file under `root` (symlinks followed only when what they point to
  // stays inside the root), skipping hidden names (".git") and anything inside `excluded`
  // (the data directory, TLS keys). Reads them into memory, so that serving one never blocks.
  static StaticFiles scan(const std::filesystem::path& root,
                          const std::vector<std::filesystem::path>& excluded = {},
                          StaticLimits limits = {});

  // The file a request target names ("/", "/app.js", "/games/quantik.js?v=2"), or nullptr.
  // The target is matched byte for byte against the list, never decoded into a path.
  const StaticFile* find(std::string_view target) const;

  std::size_t size() const { return files_.size(); }
  std::size_t bytes() const { return bytes_; }
  // The listed names, sorted ("app.js", "games/quantik.js", "index.html", ...).
  std::vector<std::string> names() const;

 private:
  std::map<std::string, StaticFile, std::less<>>
      files_;  // keyed by the path under the root, '/'-separated
  std::size_t bytes_ = 0;
};

std::string_view mime_type(std::string_view path);

}  // namespace plateau::server
