// The one way in to the SQLite store from outside server/store/: the server names no SQLite
// type, statement or file, only this function, and holds what it returns as a Storage.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "server/store/storage.hpp"

namespace plateau::server {

// Opens the store kept in the folder `dir` (made if absent), creating its database or bringing
// its schema up to date. A file that is not a database, or fails its integrity check, is an
// error and is left untouched. `post` hands completions to the rooms' thread.
std::expected<std::unique_ptr<Storage>, std::string> open_sqlite_store(
    const std::filesystem::path& dir, Storage::Post post);

}  // namespace plateau::server
