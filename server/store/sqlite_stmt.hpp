// Prepared statements for the SQLite store's files: a statement with chained binds and typed
// column reads, and the writer's cache of statements it prepares once and runs for every move.
// Everything is inline: the writer runs these on every write of every commit.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "server/store/store_rows.hpp"

namespace plateau::server::sqlite {

// The writer connection's prepared statements, kept for its life: preparing a statement costs
// more than running it, and the writer runs the same few for every move.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  ~StmtCache() {
    for (auto& [sql, s] : map_) sqlite3_finalize(s);
  }
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  // The statement for `sql` (a string literal: it is keyed by address), or nullptr.
  sqlite3_stmt* get(const char* sql) {
    auto& s = map_[sql];
    if (!s &&
        sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      s = nullptr;
      map_.erase(sql);
      return nullptr;
    }
    return s;
  }

 private:
  sqlite3* db_;
  std::unordered_map<const char*, sqlite3_stmt*> map_;
};

// A prepared statement: its own, finalized at the end, or borrowed from a StmtCache and reset
// for its next use.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) {
    ok_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) == SQLITE_OK;
  }
  Stmt(StmtCache& cache, const char* sql) : s_(cache.get(sql)), ok_(s_ != nullptr), owned_(false) {}
  ~Stmt() {
    if (owned_) {
      sqlite3_finalize(s_);
    } else if (s_) {
      sqlite3_reset(s_);
      sqlite3_clear_bindings(s_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, std::int64_t v) {
    ok_ = ok_ && sqlite3_bind_int64(s_, i, v) == SQLITE_OK;
    return *this;
  }
  Stmt& bind(int i, const std::string& v) {
    ok_ = ok_ && sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) ==
                     SQLITE_OK;
    return *this;
  }
  Stmt& bind_real(int i, double v) {
    ok_ = ok_ && sqlite3_bind_double(s_, i, v) == SQLITE_OK;
    return *this;
  }
  Stmt& bind_null(int i) {
    ok_ = ok_ && sqlite3_bind_null(s_, i) == SQLITE_OK;
    return *this;
  }
  // Runs a statement that returns no rows.
  bool run() { return ok_ && sqlite3_step(s_) == SQLITE_DONE; }
  // The next row; false at the end, or on an error (ok() then says which).
  bool row() {
    if (!ok_) return false;
    const int rc = sqlite3_step(s_);
    ok_ = rc == SQLITE_ROW || rc == SQLITE_DONE;
    return rc == SQLITE_ROW;
  }
  std::int64_t i64(int col) { return sqlite3_column_int64(s_, col); }
  double f64(int col) { return sqlite3_column_double(s_, col); }
  std::string text(int col) {
    const auto* p = sqlite3_column_text(s_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
             : std::string();
  }
  bool is_null(int col) { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  bool is_real(int col) { return sqlite3_column_type(s_, col) == SQLITE_FLOAT; }
  bool ok() const { return ok_; }

 private:
  sqlite3_stmt* s_ = nullptr;
  bool ok_ = false;
  bool owned_ = true;
};

inline bool exec(sqlite3* db, const char* sql, std::string* err = nullptr) {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK && err) *err = msg ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return rc == SQLITE_OK;
}

using rows::from_db;
using rows::to_db;

}  // namespace plateau::server::sqlite
