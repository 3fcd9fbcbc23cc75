// libpq for the PostgreSQL store's files: a connection that prepares each statement once (named
// by its text) and a statement with chained binds and typed column reads, shaped like
// sqlite_stmt.hpp's so that both stores read their rows with the same code (store_rows.hpp).
// Parameters travel as text and PostgreSQL infers their types from the statement; results come
// back as text. Nothing here is shared between threads: each thread holds its own Conn.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace plateau::server::pg {

class Conn {
 public:
  // Connects (a libpq URI or key=value string), quiets the server's notices, and runs `session`
  // (SET statements), again after every reconnection.
  static std::expected<Conn, std::string> open(const std::string& conninfo,
                                               std::string session = {});
  Conn() = default;
  Conn(Conn&& other) noexcept;
  Conn& operator=(Conn&& other) noexcept;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn();

  // Runs `sql` (one statement or several, without parameters) and discards what it returns.
  bool exec(const std::string& sql, std::string* err = nullptr);
  // The last error libpq reported on this connection, without its trailing newline.
  std::string error() const;
  // Whether the connection is up; if not, tries once to connect again (its prepared statements
  // are gone then, and are prepared again on their next use). Every statement checks this first,
  // so a database that restarted is reached again by the next statement after the one that
  // failed.
  bool alive();
  // The name of `sql` prepared on this connection, preparing it on first use; nullptr on error.
  // In a pipeline, the preparation is sent like the statements, not waited for.
  const std::string* prepared(const std::string& sql);
  PGconn* get() const { return c_; }

  // Pipeline mode (libpq's): statements and exec() are sent without waiting for their results,
  // each returning true at once; sync() sends them on their way and reads every result,
  // answering whether all succeeded. A statement whose rows are read (Stmt::row) cannot be
  // pipelined: it fails and marks the pipeline (unpipelinable()), whose caller then runs the
  // work the ordinary way. After an error the server skips what follows until the next sync.
  bool begin_pipeline();
  bool sync(std::string* err = nullptr);
  void end_pipeline();  // after a sync()
  bool pipelining() const { return pipelining_; }
  bool unpipelinable() const { return unpipelinable_; }
  void mark_unpipelinable() { unpipelinable_ = true; }
  void sent();  // a query was sent in the pipeline

 private:
  PGconn* c_ = nullptr;
  std::string session_;
  std::unordered_map<std::string, std::string> names_;
  bool pipelining_ = false, unpipelinable_ = false;
  // The queries sent since the last sync, in order: for a preparation, the SQL it prepared
  // (forgotten if it failed), else "".
  std::vector<std::string> pending_;
};

class Stmt {
 public:
  Stmt(Conn& c, const std::string& sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, const std::string& v);
  Stmt& bind_real(int i, double v);
  Stmt& bind_null(int i);
  // Runs a statement; true if it succeeded (its rows, if any, are then read with row()).
  bool run();
  // The next row, running the statement first if it has not run; false at the end or on an
  // error (ok() then says which).
  bool row();
  std::int64_t i64(int col) const;  // a boolean column reads as 1 or 0
  double f64(int col) const;
  std::string text(int col) const;  // "" for NULL
  bool is_null(int col) const;
  bool is_real(int col) const;  // a double precision column
  bool ok() const { return ok_; }
  // Rows the statement changed (an UPDATE's or DELETE's), once it ran.
  std::int64_t affected() const;
  // Why it failed: the server's message (and SQLSTATE), or libpq's.
  const std::string& error() const { return error_; }
  // The SQLSTATE of the failure ("23505" a unique violation), "" if none.
  const std::string& state() const { return state_; }

 private:
  void set(int i, std::optional<std::string> v);
  Conn& c_;
  const std::string* name_;
  std::vector<std::optional<std::string>> params_;
  PGresult* res_ = nullptr;
  bool ran_ = false;
  bool ok_ = true;
  int next_ = -1;  // the row row() last gave
  std::string error_, state_;
};

// A transaction on a Conn: BEGIN at the start; ROLLBACK at the end unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Conn& c, const char* begin = "BEGIN") : c_(c), open_(c.exec(begin)) {}
  ~Transaction() {
    if (open_) c_.exec("ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  bool open() const { return open_; }
  bool commit(std::string* err = nullptr) {
    const bool ok = open_ && c_.exec("COMMIT", err);
    open_ = false;
    return ok;
  }

 private:
  Conn& c_;
  bool open_;
};

// Whether `spec` names a PostgreSQL database (a postgres:// or postgresql:// URI).
bool is_uri(const std::string& spec);
// The URI with its password (if any) replaced by "***", for logs.
std::string redacted(const std::string& uri);

}  // namespace plateau::server::pg
