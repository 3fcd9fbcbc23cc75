#include "server/store/open_store.hpp"

#include <filesystem>

#include "server/store/pg_copy.hpp"
#include "server/store/pg_schema.hpp"
#include "server/store/pg_store.hpp"
#include "server/store/sqlite.hpp"

namespace plateau::server {

namespace {
constexpr std::string_view kSqlite = "sqlite:";
std::filesystem::path sqlite_file(const std::string& spec) {
  return std::filesystem::path(spec.substr(kSqlite.size())) / "plateau.db";
}
}  // namespace

std::string check_store_spec(const std::string& spec) {
  if (spec == "none" || pg::is_uri(spec)) return "";
  if (spec.starts_with(kSqlite) && spec.size() > kSqlite.size()) return "";
  return "expects sqlite:DIR, postgres://... or none";
}

std::string shown_store_spec(const std::string& spec) { return pg::redacted(spec); }

std::expected<std::unique_ptr<Storage>, std::string> open_store(const std::string& spec,
                                                                Storage::Post post) {
  if (pg::is_uri(spec)) {
    auto opened = PgStore::open(spec, std::move(post));
    if (!opened) return std::unexpected(std::move(opened.error()));
    return std::unique_ptr<Storage>(std::move(*opened));
  }
  if (spec.starts_with(kSqlite)) return open_sqlite_store(spec.substr(kSqlite.size()), post);
  return std::unexpected("no store named " + shown_store_spec(spec));
}

std::expected<std::vector<std::pair<std::string, std::int64_t>>, std::string> migrate_store(
    const std::string& from, const std::string& to) {
  const bool to_pg = pg::is_uri(to) && from.starts_with(kSqlite);
  const bool from_pg = pg::is_uri(from) && to.starts_with(kSqlite);
  if (!to_pg && !from_pg)
    return std::unexpected(std::string("migrate copies sqlite:DIR into postgres://... or back"));
  const std::string& uri = to_pg ? to : from;
  auto db = pg::Conn::open(uri);
  if (!db) return std::unexpected("cannot connect to " + pg::redacted(uri) + ": " + db.error());
  // Either side's schema brought up to date first, as a server starting on it would.
  if (auto ready = pg::prepare_schema(*db); !ready)
    return std::unexpected(pg::redacted(uri) + ": " + ready.error());
  if (to_pg) {
    const auto file = sqlite_file(from);
    if (std::error_code ec; !std::filesystem::exists(file, ec))
      return std::unexpected("no database at " + file.string());
    return pg::copy_from_sqlite(file.string(), *db);
  }
  std::error_code ec;
  std::filesystem::create_directories(sqlite_file(to).parent_path(), ec);
  return pg::copy_to_sqlite(*db, sqlite_file(to).string());
}

}  // namespace plateau::server
