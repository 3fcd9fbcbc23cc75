// The SQLite store's factory: where its database lives inside the data folder.
#include "server/store/sqlite.hpp"

#include <system_error>

#include "server/store/sqlite_store.hpp"

namespace plateau::server {

std::expected<std::unique_ptr<Storage>, std::string> open_sqlite_store(
    const std::filesystem::path& dir, Storage::Post post) {
  // A folder that cannot be made is reported by the open that follows, naming the file.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto opened = SqliteStore::open((dir / "plateau.db").string(), std::move(post));
  if (!opened) return std::unexpected(std::move(opened.error()));
  return std::unique_ptr<Storage>(std::move(*opened));
}

}  // namespace plateau::server
