// The one way in to a store from outside server/store/: the server names a store by a string
// (--store) and holds what opens as a Storage, whichever database is behind it.
//   none              keeps nothing
//   sqlite:DIR        the embedded store in the folder DIR (the default: sqlite:./data)
//   postgres://...    a shared PostgreSQL database (postgresql:// too), a libpq URI
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/store/storage.hpp"

namespace plateau::server {

// "" if `spec` names a store as above, or what is wrong with it.
std::string check_store_spec(const std::string& spec);
// The spec as logs may show it: a PostgreSQL URI without its password.
std::string shown_store_spec(const std::string& spec);

// Opens the store `spec` names (not "none"), creating its database or bringing its schema up to
// date. `post` hands completions to the rooms' thread.
std::expected<std::unique_ptr<Storage>, std::string> open_store(const std::string& spec,
                                                                Storage::Post post);

// Copies everything a store holds into another, empty one: sqlite:DIR into postgres://..., or
// back. Run with the servers stopped. Rows copied, per table.
std::expected<std::vector<std::pair<std::string, std::int64_t>>, std::string> migrate_store(
    const std::string& from, const std::string& to);

}  // namespace plateau::server
