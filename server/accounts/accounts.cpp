#include "server/accounts/accounts.hpp"

#include <sodium.h>

#include <algorithm>

#include "protocol/messages.hpp"
#include "server/secure_random.hpp"

namespace plateau::server {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxDevice = 60;

AccountError error(int status, std::string code, std::string message) {
  return AccountError{status, std::move(code), std::move(message), {}};
}

AccountError store_failed() {
  return error(500, "account/store_failed", "the server could not store this; try again");
}

// A device's name as shown in the list of sessions: short, one line, never empty.
std::string device_name(std::string device) {
  if (device.empty() || !protocol::name_refusal(device).empty()) return "a device";
  return cut_utf8(std::move(device), kMaxDevice);
}

// Wipes a password's copy once it is used (a core dump or a swap file shows less).
void wipe(std::string& s) {
  if (!s.empty()) sodium_memzero(s.data(), s.size());
  s.clear();
}

}  // namespace

std::optional<Registration> registration_named(std::string_view name) {
  if (name == "open") return Registration::open;
  if (name == "invite") return Registration::invite;
  if (name == "closed") return Registration::closed;
  return std::nullopt;
}

std::string_view to_string(Registration r) {
  switch (r) {
    case Registration::open:
      return "open";
    case Registration::invite:
      return "invite";
    case Registration::closed:
      return "closed";
  }
  return "closed";
}

Accounts::Accounts(AccountStore& store, Background& background, Random random, AccountLimits limits,
                   Now now)
    : store_(store),
      background_(background),
      random_(std::move(random)),
      limits_(limits),
      now_(std::move(now)),
      failures_(limits.free_failures) {}

std::string Accounts::session_id(const std::string& token_hash) { return token_hash.substr(0, 16); }

std::string Accounts::random_hex(int bytes) {
  return server::random_hex(random_, static_cast<std::size_t>(bytes));
}

SteadyTime Accounts::steady() const { return SteadyTime(std::chrono::milliseconds(now_())); }

void Accounts::restore(const LoadedAccounts& loaded) {
  for (const auto& a : loaded.accounts) {
    by_name_[name_key(a.name)] = a.player;
    accounts_[a.player] = a;
  }
  for (const auto& s : loaded.sessions) {
    if (!accounts_.contains(s.player)) continue;
    sessions_[s.token_hash] = s;
    sessions_of_[s.player].push_back(s.token_hash);
  }
  for (const auto& i : loaded.invites) invites_[i.code_hash] = i;
}

void Accounts::forget_sessions(const std::vector<std::string>& token_hashes) {
  std::vector<std::string> ended;
  for (const auto& h : token_hashes) {
    const auto it = sessions_.find(h);
    if (it == sessions_.end()) continue;
    auto& mine = sessions_of_[it->second.player];
    std::erase(mine, h);
    if (mine.empty()) sessions_of_.erase(it->second.player);
    sessions_.erase(it);
    ended.push_back(h);
  }
  if (directory_ && !ended.empty()) directory_->sessions_ended(ended);
}

void Accounts::reload(const std::string& player, const std::optional<AccountRow>& row,
                      const std::vector<SessionRow>& sessions) {
  const auto before = accounts_.find(player);
  const bool was = before != accounts_.end();
  if (was) {
    by_name_.erase(name_key(before->second.name));
    accounts_.erase(before);
  }
  // The sessions this node knew that the store no longer has end here too.
  std::vector<std::string> gone;
  if (const auto mine = sessions_of_.find(player); mine != sessions_of_.end())
    for (const auto& h : mine->second)
      if (!row ||
          std::ranges::none_of(sessions, [&](const SessionRow& s) { return s.token_hash == h; }))
        gone.push_back(h);
  forget_sessions(gone);
  if (!row) {
    sessions_of_.erase(player);
    if (was && directory_) directory_->renamed(player, std::string(kDeletedName));
    return;
  }
  by_name_[name_key(row->name)] = player;
  accounts_[player] = *row;
  for (const auto& s : sessions)
    if (s.player == player && sessions_.emplace(s.token_hash, s).second)
      sessions_of_[player].push_back(s.token_hash);
  if (directory_) {
    if (!was)
      directory_->became_account(player, row->name);  // its guest token signs nobody in here
    else
      directory_->renamed(player, row->name);
  }
}

void Accounts::reload_invites(const std::vector<InviteRow>& invites) {
  invites_.clear();
  for (const auto& i : invites) invites_[i.code_hash] = i;
}

AccountRow* Accounts::find_name(std::string_view name) {
  const auto it = by_name_.find(name_key(name));
  return it == by_name_.end() ? nullptr : &accounts_.at(it->second);
}

const AccountRow* Accounts::of_name(std::string_view name) const {
  const auto it = by_name_.find(name_key(name));
  return it == by_name_.end() ? nullptr : of_player(it->second);
}

const AccountRow* Accounts::of_player(const std::string& player) const {
  const auto it = accounts_.find(player);
  return it == accounts_.end() ? nullptr : &it->second;
}

const AccountRow* Accounts::by_session(const std::string& token_hash) const {
  const auto it = sessions_.find(token_hash);
  return it == sessions_.end() ? nullptr : of_player(it->second.player);
}

bool Accounts::name_taken(std::string_view name) const {
  const auto key = name_key(name);
  return by_name_.contains(key) || pending_names_.contains(key);
}

bool Accounts::disabled(const std::string& player) const {
  const auto* a = of_player(player);
  return a && a->disabled;
}

bool Accounts::muted(const std::string& player) const {
  const auto* a = of_player(player);
  return a && a->muted;
}

const AccountRow* Accounts::session_account(const std::string& token,
                                            const SessionRow** session) const {
  const auto it = sessions_.find(sha256_hex(token));
  if (it == sessions_.end()) return nullptr;
  if (session) *session = &it->second;
  return of_player(it->second.player);
}

std::optional<AccountError> Accounts::may_try_password(const std::string& key,
                                                       const std::string& peer) {
  if (const auto wait = failures_.wait(key, steady()); wait.count() > 0) {
    auto e = error(429, "account/slow_down",
                   "too many wrong passwords for this account: wait before trying again");
    e.retry_after = std::chrono::ceil<std::chrono::seconds>(wait);
    return e;
  }
  return busy_or_limited(logins_, limits_.logins_per_minute, peer);
}

AccountError Accounts::bad_password() const {
  return error(400, "account/bad_password",
               "a password has from " + std::to_string(limits_.min_password_bytes) + " to " +
                   std::to_string(limits_.max_password_bytes) + " bytes");
}

std::optional<AccountError> Accounts::busy_or_limited(RateByKey& rate, double per_minute,
                                                      const std::string& peer) {
  if (!rate.allow(peer, per_minute, steady())) {
    auto e =
        error(429, "account/rate", "too many attempts from your address; try again in a minute");
    e.retry_after = std::chrono::seconds(60);
    return e;
  }
  if (hashing_ >= limits_.max_hashing)
    return error(503, "account/busy", "the server is checking many passwords; try again shortly");
  return std::nullopt;
}

void Accounts::register_account(Signup signup, const std::string& peer, const AccountReply& reply) {
  const auto refuse = [&](AccountError e) {
    wipe(signup.password);
    reply(std::unexpected(std::move(e)));
  };
  if (limits_.registration == Registration::closed)
    return refuse(error(403, "account/closed", "this server opens no new accounts"));
  std::optional<std::string> invite_hash;
  if (limits_.registration == Registration::invite) {
    if (!signup.invite || signup.invite->empty())
      return refuse(error(403, "account/invite_needed",
                          "this club opens accounts for its members: ask for an invitation"));
    invite_hash = sha256_hex(*signup.invite);
    const auto it = invites_.find(*invite_hash);
    if (it == invites_.end() || it->second.expires_ms <= now_() ||
        pending_invites_.contains(*invite_hash))
      return refuse(error(403, "account/bad_invite",
                          "this invitation is unknown, used or expired: ask for a new one"));
  }
  if (const auto why = protocol::name_refusal(signup.name); !why.empty())
    return refuse(error(400, "account/bad_name", "the name " + std::string(why)));
  if (signup.name.front() == ' ' || signup.name.back() == ' ')
    return refuse(error(400, "account/bad_name", "the name must not start or end with a space"));
  if (name_key(signup.name) == kDeletedName)
    return refuse(error(400, "account/bad_name", "this name is kept for deleted accounts"));
  if (signup.password.size() < limits_.min_password_bytes ||
      signup.password.size() > limits_.max_password_bytes)
    return refuse(bad_password());
  if (name_taken(signup.name))
    return refuse(error(409, "account/name_taken", "this name belongs to an account already"));
  std::optional<std::string> guest;
  if (signup.guest_token) {
    if (!directory_ || !(guest = directory_->guest_of(sha256_hex(*signup.guest_token))))
      return refuse(error(400, "account/not_guest",
                          "this token is no guest's: sign in, or register without it"));
  }
  if (auto e = busy_or_limited(registrations_, limits_.registrations_per_minute, peer))
    return refuse(std::move(*e));

  const std::string key = name_key(signup.name);
  pending_names_.insert(key);
  if (invite_hash) pending_invites_.insert(*invite_hash);
  ++hashing_;
  const auto release = [this, key, invite_hash] {
    --hashing_;
    pending_names_.erase(key);
    if (invite_hash) pending_invites_.erase(*invite_hash);
  };
  background_.run(
      [this, password = std::move(signup.password), cost = limits_.cost, release, reply,
       name = signup.name, device = device_name(std::move(signup.device)), guest,
       invite_hash]() mutable -> Background::OnLoop {
        auto hash = hash_password(password, cost);
        wipe(password);
        return [this, hash = std::move(hash), release, reply, name, device, guest,
                invite_hash]() mutable {
          release();
          // Between the check and now, the guest may have become an account on another request.
          if (guest && accounts_.contains(*guest))
            return reply(std::unexpected(
                error(400, "account/not_guest", "this guest has an account already")));
          AccountRow row{guest.value_or(random_hex(8)), name, std::move(hash), now_(), false};
          if (invite_hash) {
            invites_.erase(*invite_hash);
            store_.drop_invite(*invite_hash, [](bool) {});
          }
          // The player's row gets a token hash nobody has a token for: the guest token the
          // browser held stops working; the new session replaces it.
          const std::string unusable = sha256_hex(random_hex(32));
          pending_names_.insert(name_key(name));
          store_.put_account(row, unusable, [this, row, device, reply](bool ok) mutable {
            pending_names_.erase(name_key(row.name));
            if (!ok) return reply(std::unexpected(store_failed()));
            by_name_[name_key(row.name)] = row.player;
            accounts_[row.player] = row;
            if (directory_) directory_->became_account(row.player, row.name);
            open_session(row.player, std::move(device), reply);
          });
        };
      },
      [release, reply](const std::string& what) {
        release();
        reply(std::unexpected(
            error(503, "account/busy", "the password could not be hashed: " + what)));
      });
}

void Accounts::open_session(const std::string& player, std::string device,
                            const AccountReply& reply) {
  const std::string token = random_hex(16);
  SessionRow row{sha256_hex(token), player, std::move(device), now_()};
  // One device too many: the oldest is signed out first.
  std::vector<std::string> old;
  if (auto& mine = sessions_of_[player]; mine.size() >= limits_.max_sessions)
    old.assign(mine.begin(),
               mine.begin() + static_cast<std::ptrdiff_t>(mine.size() + 1 - limits_.max_sessions));
  if (!old.empty()) drop_sessions(std::move(old), [](bool) {});
  store_.put_session(row, [this, row, token, reply](bool ok) {
    if (!ok) return reply(std::unexpected(store_failed()));
    const auto* account = of_player(row.player);
    if (!account)
      return reply(std::unexpected(error(404, "account/gone", "the account was deleted")));
    sessions_[row.token_hash] = row;
    sessions_of_[row.player].push_back(row.token_hash);
    json body{{"player", row.player},
              {"name", account->name},
              {"token", token},
              {"session", session_id(row.token_hash)}};
    reply(std::move(body));
  });
}

void Accounts::drop_sessions(std::vector<std::string> hashes, std::function<void(bool)> then) {
  // Gone from memory at once (no request may use them from now), from the disk with the write.
  forget_sessions(hashes);
  store_.drop_sessions(hashes, std::move(then));
}

void Accounts::login(const std::string& name, std::string password, std::string device,
                     const std::string& peer, const AccountReply& reply) {
  const auto refuse = [&](AccountError e) {
    wipe(password);
    reply(std::unexpected(std::move(e)));
  };
  if (password.size() > limits_.max_password_bytes)
    return refuse(error(401, "account/wrong_password", "the name or the password is wrong"));
  const std::string key = name_key(name.substr(0, 256));
  if (auto e = may_try_password(key, peer)) return refuse(std::move(*e));
  const AccountRow* account = find_name(name);
  // An unknown name costs the same time as a wrong password: a hash with the same cost.
  std::optional<std::string> stored;
  std::string player;
  if (account) stored = account->password_hash, player = account->player;
  ++hashing_;
  background_.run(
      [this, password = std::move(password), stored, cost = limits_.cost, key, player, reply,
       device = device_name(std::move(device))]() mutable -> Background::OnLoop {
        const bool good =
            stored ? verify_password(*stored, password) : (hash_password(password, cost), false);
        wipe(password);
        return [this, good, key, player, reply, device]() mutable {
          --hashing_;
          const AccountRow* account = good ? of_player(player) : nullptr;
          if (!account) {
            failures_.failed(key, steady());
            return reply(std::unexpected(
                error(401, "account/wrong_password", "the name or the password is wrong")));
          }
          failures_.succeeded(key);
          if (account->disabled)
            return reply(std::unexpected(
                error(403, "account/disabled", "this account is disabled by the server's host")));
          open_session(player, std::move(device), reply);
        };
      },
      [this, reply](const std::string& what) {
        --hashing_;
        reply(std::unexpected(
            error(503, "account/busy", "the password could not be checked: " + what)));
      });
}

AccountResult Accounts::me(const std::string& token) const {
  const SessionRow* current = nullptr;
  const AccountRow* account = session_account(token, &current);
  if (!account)
    return std::unexpected(
        error(401, "account/unauthorized", "sign in first: this session is unknown or ended"));
  json sessions = json::array();
  if (const auto it = sessions_of_.find(account->player); it != sessions_of_.end())
    for (const auto& h : it->second) {
      const auto& s = sessions_.at(h);
      sessions.push_back({{"id", session_id(h)},
                          {"device", s.device},
                          {"created", s.created_ms},
                          {"current", &s == current}});
    }
  return json{{"player", account->player},
              {"name", account->name},
              {"created", account->created_ms},
              {"disabled", account->disabled},
              {"sessions", std::move(sessions)}};
}

void Accounts::logout(const std::string& token, bool everywhere, const AccountReply& reply) {
  const SessionRow* current = nullptr;
  const AccountRow* account = session_account(token, &current);
  if (!account)
    return reply(std::unexpected(
        error(401, "account/unauthorized", "sign in first: this session is unknown or ended")));
  std::vector<std::string> hashes{current->token_hash};
  if (everywhere) hashes = sessions_of_.at(account->player);
  const auto n = hashes.size();
  drop_sessions(std::move(hashes), [reply, n](bool ok) {
    if (!ok) return reply(std::unexpected(store_failed()));
    reply(json{{"signed_out", n}});
  });
}

void Accounts::end_session(const std::string& token, const std::string& id,
                           const AccountReply& reply) {
  const AccountRow* account = session_account(token, nullptr);
  if (!account)
    return reply(std::unexpected(
        error(401, "account/unauthorized", "sign in first: this session is unknown or ended")));
  for (const auto& h : sessions_of_.at(account->player))
    if (session_id(h) == id)
      return drop_sessions({h}, [reply](bool ok) {
        if (!ok) return reply(std::unexpected(store_failed()));
        reply(json{{"signed_out", 1}});
      });
  reply(std::unexpected(error(404, "account/no_such_session", "no session of yours has this id")));
}

void Accounts::change_password(const std::string& token, std::string old_password,
                               std::string new_password, const std::string& peer,
                               const AccountReply& reply) {
  const auto refuse = [&](AccountError e) {
    wipe(old_password);
    wipe(new_password);
    reply(std::unexpected(std::move(e)));
  };
  const SessionRow* current = nullptr;
  const AccountRow* account = session_account(token, &current);
  if (!account)
    return refuse(
        error(401, "account/unauthorized", "sign in first: this session is unknown or ended"));
  if (new_password.size() < limits_.min_password_bytes ||
      new_password.size() > limits_.max_password_bytes ||
      old_password.size() > limits_.max_password_bytes)
    return refuse(bad_password());
  const std::string key = name_key(account->name);
  if (auto e = may_try_password(key, peer)) return refuse(std::move(*e));
  ++hashing_;
  background_.run(
      [this, stored = account->password_hash, old_password = std::move(old_password),
       new_password = std::move(new_password), cost = limits_.cost, player = account->player,
       current = current->token_hash, key, reply]() mutable -> Background::OnLoop {
        const bool good = verify_password(stored, old_password);
        std::string hash = good ? hash_password(new_password, cost) : std::string();
        wipe(old_password);
        wipe(new_password);
        return [this, good, hash = std::move(hash), player, current, key, reply]() {
          --hashing_;
          if (!good) {
            failures_.failed(key, steady());
            return reply(
                std::unexpected(error(403, "account/wrong_password", "the old password is wrong")));
          }
          failures_.succeeded(key);
          const auto it = accounts_.find(player);
          if (it == accounts_.end())
            return reply(std::unexpected(error(404, "account/gone", "the account was deleted")));
          AccountRow row = it->second;
          row.password_hash = hash;
          store_.put_account(row, "", [this, row, current, reply](bool ok) {
            if (!ok) return reply(std::unexpected(store_failed()));
            if (auto it = accounts_.find(row.player); it != accounts_.end())
              it->second.password_hash = row.password_hash;
            std::vector<std::string> others;
            if (const auto s = sessions_of_.find(row.player); s != sessions_of_.end())
              for (const auto& h : s->second)
                if (h != current) others.push_back(h);
            const auto n = others.size();
            drop_sessions(std::move(others), [reply, n](bool ok) {
              if (!ok) return reply(std::unexpected(store_failed()));
              reply(json{{"changed", true}, {"signed_out", n}});
            });
          });
        };
      },
      [this, reply](const std::string& what) {
        --hashing_;
        reply(std::unexpected(
            error(503, "account/busy", "the password could not be checked: " + what)));
      });
}

json Accounts::list() const {
  std::vector<const AccountRow*> rows;
  for (const auto& [id, a] : accounts_) rows.push_back(&a);
  std::ranges::sort(rows, [](const AccountRow* a, const AccountRow* b) {
    return name_key(a->name) < name_key(b->name);
  });
  json out = json::array();
  for (const auto* a : rows) {
    const auto s = sessions_of_.find(a->player);
    out.push_back({{"player", a->player},
                   {"name", a->name},
                   {"created", a->created_ms},
                   {"disabled", a->disabled},
                   {"muted", a->muted},
                   {"sessions", s == sessions_of_.end() ? 0 : s->second.size()}});
  }
  return out;
}

void Accounts::set_disabled(const std::string& name, bool disabled, const AccountReply& reply) {
  set_flag(name, &AccountRow::disabled, disabled, "disabled", reply);
}

void Accounts::set_muted(const std::string& name, bool muted, const AccountReply& reply) {
  set_flag(name, &AccountRow::muted, muted, "muted", reply);
}

void Accounts::set_flag(const std::string& name, bool AccountRow::* flag, bool value,
                        const char* key, const AccountReply& reply) {
  AccountRow* account = find_name(name);
  if (!account)
    return reply(std::unexpected(error(404, "account/no_such_account", "no account of this name")));
  AccountRow row = *account;
  row.*flag = value;
  store_.put_account(row, "", [this, row, flag, key, reply](bool ok) {
    if (!ok) return reply(std::unexpected(store_failed()));
    if (auto it = accounts_.find(row.player); it != accounts_.end()) it->second.*flag = row.*flag;
    reply(json{{"name", row.name}, {key, row.*flag}});
  });
}

void Accounts::remove(const std::string& name, const AccountReply& reply) {
  AccountRow* account = find_name(name);
  if (!account)
    return reply(std::unexpected(error(404, "account/no_such_account", "no account of this name")));
  const AccountRow row = *account;
  const std::string& player = row.player;
  // Gone at once: no session signs in from now, and the name is free once the write is done.
  // A write that fails puts the account back (its devices stay signed out), so that memory
  // never disagrees with the store about who exists.
  std::vector<std::string> hashes;
  if (const auto s = sessions_of_.find(player); s != sessions_of_.end()) hashes = s->second;
  for (const auto& h : hashes) sessions_.erase(h);
  sessions_of_.erase(player);
  if (directory_) directory_->sessions_ended(hashes);
  by_name_.erase(name_key(row.name));
  accounts_.erase(player);
  pending_names_.insert(name_key(row.name));
  store_.delete_account(player, std::string(kDeletedName), [this, row, reply](bool ok) {
    pending_names_.erase(name_key(row.name));
    if (!ok) {
      by_name_[name_key(row.name)] = row.player;
      accounts_[row.player] = row;
      return reply(std::unexpected(store_failed()));
    }
    if (directory_) directory_->renamed(row.player, std::string(kDeletedName));
    reply(json{{"deleted", row.name}, {"player", row.player}});
  });
}

void Accounts::invite(const AccountReply& reply) {
  const std::string code = random_hex(16);
  InviteRow row{sha256_hex(code), now_(), now_() + limits_.invite_ms};
  // Expired invitations go when a new one is made: the table stays as small as the club.
  for (auto it = invites_.begin(); it != invites_.end();)
    if (it->second.expires_ms <= row.created_ms) {
      store_.drop_invite(it->first, [](bool) {});
      it = invites_.erase(it);
    } else {
      ++it;
    }
  store_.put_invite(row, [this, row, code, reply](bool ok) {
    if (!ok) return reply(std::unexpected(store_failed()));
    invites_[row.code_hash] = row;
    reply(json{{"code", code}, {"link", "/?invite=" + code}, {"expires", row.expires_ms}});
  });
}

}  // namespace plateau::server
