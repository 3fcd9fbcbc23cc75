#include "server/store/pg_conn.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace plateau::server::pg {

namespace {
void quiet(void*, const char*) {}
}  // namespace

std::expected<Conn, std::string> Conn::open(const std::string& conninfo, std::string session) {
  Conn c;
  c.session_ = std::move(session);
  c.c_ = PQconnectdb(conninfo.c_str());
  if (!c.c_) return std::unexpected(std::string("out of memory"));
  if (PQstatus(c.c_) != CONNECTION_OK) return std::unexpected(c.error());
  PQsetNoticeProcessor(c.c_, quiet, nullptr);
  if (std::string err; !c.session_.empty() && !c.exec(c.session_, &err))
    return std::unexpected(err);
  return c;
}

Conn::Conn(Conn&& other) noexcept
    : c_(std::exchange(other.c_, nullptr)),
      session_(std::move(other.session_)),
      names_(std::move(other.names_)) {}

Conn& Conn::operator=(Conn&& other) noexcept {
  if (this != &other) {
    if (c_) PQfinish(c_);
    c_ = std::exchange(other.c_, nullptr);
    session_ = std::move(other.session_);
    names_ = std::move(other.names_);
  }
  return *this;
}

Conn::~Conn() {
  if (c_) PQfinish(c_);
}

bool Conn::exec(const std::string& sql, std::string* err) {
  if (pipelining_) {
    // One statement, sent as a parameterless query (the simple protocol is not allowed here).
    if (PQsendQueryParams(c_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) {
      if (err) *err = error();
      return false;
    }
    sent();
    return true;
  }
  if (!alive()) {
    if (err) *err = error();
    return false;
  }
  PGresult* r = PQexec(c_, sql.c_str());
  const auto status = PQresultStatus(r);
  const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  if (!ok && err) *err = error();
  PQclear(r);
  return ok;
}

std::string Conn::error() const {
  std::string e = c_ ? PQerrorMessage(c_) : "no connection";
  while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
  return e;
}

bool Conn::alive() {
  if (!c_) return false;
  if (PQstatus(c_) == CONNECTION_OK) return true;
  names_.clear();
  PQreset(c_);
  return PQstatus(c_) == CONNECTION_OK && (session_.empty() || exec(session_));
}

const std::string* Conn::prepared(const std::string& sql) {
  if (!pipelining_ && !alive()) return nullptr;
  if (const auto it = names_.find(sql); it != names_.end()) return &it->second;
  std::string name = "s" + std::to_string(names_.size());
  if (pipelining_) {
    if (PQsendPrepare(c_, name.c_str(), sql.c_str(), 0, nullptr) != 1) return nullptr;
    pending_.push_back(sql);
    return &names_.emplace(sql, std::move(name)).first->second;
  }
  PGresult* r = PQprepare(c_, name.c_str(), sql.c_str(), 0, nullptr);
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  if (!ok) return nullptr;
  return &names_.emplace(sql, std::move(name)).first->second;
}

void Conn::sent() { pending_.emplace_back(); }

bool Conn::begin_pipeline() {
  if (!alive() || PQenterPipelineMode(c_) != 1) return false;
  pipelining_ = true;
  unpipelinable_ = false;
  pending_.clear();
  return true;
}

bool Conn::sync(std::string* err) {
  if (!pipelining_) return false;
  if (PQpipelineSync(c_) != 1) {
    // Nothing will answer: the connection is gone (the next alive() makes it again).
    if (err) *err = error();
    pending_.clear();
    return false;
  }
  bool ok = true, synced = false;
  // One result (then a null) per query sent, in order, then the sync's own.
  for (const auto& prepared_sql : pending_) {
    PGresult* r = PQgetResult(c_);
    if (!r) {
      ok = false;  // the connection broke
      break;
    }
    const auto status = PQresultStatus(r);
    PQclear(r);
    if (status == PGRES_PIPELINE_SYNC) {  // fewer answers than queries: never expected
      ok = false;
      synced = true;
      break;
    }
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      if (ok && err) *err = error();
      ok = false;
      if (!prepared_sql.empty()) names_.erase(prepared_sql);  // not prepared after all
    }
    while ((r = PQgetResult(c_)) != nullptr) PQclear(r);
  }
  pending_.clear();
  while (!synced) {
    PGresult* r = PQgetResult(c_);
    if (!r) {
      if (PQstatus(c_) != CONNECTION_OK) return false;
      continue;
    }
    synced = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
  }
  return ok;
}

void Conn::end_pipeline() {
  if (!pipelining_) return;
  PQexitPipelineMode(c_);
  pipelining_ = false;
}

Stmt::Stmt(Conn& c, const std::string& sql) : c_(c), name_(c.prepared(sql)) {
  if (!name_) {
    ok_ = false;
    error_ = c.error();
  }
}

Stmt::~Stmt() { PQclear(res_); }

void Stmt::set(int i, std::optional<std::string> v) {
  if (i < 1) {
    ok_ = false;
    return;
  }
  if (params_.size() < static_cast<std::size_t>(i)) params_.resize(static_cast<std::size_t>(i));
  params_[static_cast<std::size_t>(i) - 1] = std::move(v);
}

Stmt& Stmt::bind(int i, std::int64_t v) {
  set(i, std::to_string(v));
  return *this;
}

Stmt& Stmt::bind(int i, const std::string& v) {
  set(i, v);
  return *this;
}

Stmt& Stmt::bind_real(int i, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  set(i, std::string(buf));
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  set(i, std::nullopt);
  return *this;
}

bool Stmt::run() {
  if (!ok_ || ran_) return ok_ && ran_;
  ran_ = true;
  std::vector<const char*> values;
  values.reserve(params_.size());
  for (const auto& p : params_) values.push_back(p ? p->c_str() : nullptr);
  if (c_.pipelining()) {
    // Sent, not waited for: the pipeline's sync says how it went.
    ok_ = PQsendQueryPrepared(c_.get(), name_->c_str(), static_cast<int>(values.size()),
                              values.data(), nullptr, nullptr, 0) == 1;
    if (ok_) c_.sent();
    return ok_;
  }
  res_ = PQexecPrepared(c_.get(), name_->c_str(), static_cast<int>(values.size()), values.data(),
                        nullptr, nullptr, 0);
  const auto status = PQresultStatus(res_);
  ok_ = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  if (!ok_) {
    const char* m = res_ ? PQresultErrorMessage(res_) : nullptr;
    error_ = m && *m ? m : c_.error();
    while (!error_.empty() && (error_.back() == '\n' || error_.back() == ' ')) error_.pop_back();
    const char* s = res_ ? PQresultErrorField(res_, PG_DIAG_SQLSTATE) : nullptr;
    state_ = s ? s : "";
  }
  return ok_;
}

bool Stmt::row() {
  if (c_.pipelining()) {
    // Its rows would come only at the sync: not a statement for a pipeline.
    c_.mark_unpipelinable();
    ok_ = false;
    return false;
  }
  if (!ran_ && !run()) return false;
  if (!ok_) return false;
  ++next_;
  return next_ < PQntuples(res_);
}

std::int64_t Stmt::i64(int col) const {
  if (!res_ || next_ < 0 || PQgetisnull(res_, next_, col)) return 0;
  const char* v = PQgetvalue(res_, next_, col);
  if (v[0] == 't' && v[1] == '\0') return 1;
  if (v[0] == 'f' && v[1] == '\0') return 0;
  std::int64_t out = 0;
  std::from_chars(v, v + PQgetlength(res_, next_, col), out);
  return out;
}

double Stmt::f64(int col) const {
  if (!res_ || next_ < 0 || PQgetisnull(res_, next_, col)) return 0;
  return std::strtod(PQgetvalue(res_, next_, col), nullptr);
}

std::string Stmt::text(int col) const {
  if (!res_ || next_ < 0 || PQgetisnull(res_, next_, col)) return {};
  return std::string(PQgetvalue(res_, next_, col),
                     static_cast<std::size_t>(PQgetlength(res_, next_, col)));
}

bool Stmt::is_null(int col) const {
  return !res_ || next_ < 0 || PQgetisnull(res_, next_, col) != 0;
}

bool Stmt::is_real(int col) const {
  constexpr Oid kFloat8 = 701;  // pg_type.oid of double precision
  return res_ && PQftype(res_, col) == kFloat8;
}

std::int64_t Stmt::affected() const {
  if (!res_) return 0;
  const char* n = PQcmdTuples(res_);
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

bool is_uri(const std::string& spec) {
  return spec.starts_with("postgres://") || spec.starts_with("postgresql://");
}

std::string redacted(const std::string& uri) {
  // postgres://user:password@host/... : the password is between the first ':' after the
  // scheme and the '@' that ends the user part.
  const auto scheme = uri.find("://");
  if (scheme == std::string::npos) return uri;
  const auto at = uri.find('@', scheme + 3);
  if (at == std::string::npos) return uri;
  const auto colon = uri.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return uri;
  return uri.substr(0, colon + 1) + "***" + uri.substr(at);
}

}  // namespace plateau::server::pg
