// What the store keeps of accounts (issue 46): each account's name and password hash, the
// sessions that sign its devices in, and the invitations a members-only club hands out. The
// writes are durable before `done` runs, like the rooms' (store.hpp); the reads happen once, at
// start (Loaded). An interface, so that the accounts know nothing of the database behind them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/store.hpp"

namespace plateau::server {

// What makes two account names the same: their ASCII letters compared without case (other
// characters as they are, byte for byte).
inline std::string name_key(std::string_view name) {
  std::string key(name);
  for (char& c : key)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return key;
}

// An account is a player (its id is the player's, so every table and game of theirs stays
// theirs) with a name nobody else may take and a password.
struct AccountRow {
  std::string player;
  std::string name;
  std::string password_hash;  // libsodium's crypto_pwhash_str (Argon2id), with its parameters
  std::int64_t created_ms = 0;
  bool disabled = false;
  bool muted = false;  // the host muted it: it may not chat anywhere
};

// One signed-in device: a token (kept as its SHA-256 only) that `hello` may carry.
struct SessionRow {
  std::string token_hash;
  std::string player;
  std::string device;  // what the client called it ("Firefox on Linux"), shown in the list
  std::int64_t created_ms = 0;
};

// A single-use invitation (--registration invite), kept as its code's SHA-256.
struct InviteRow {
  std::string code_hash;
  std::int64_t created_ms = 0;
  std::int64_t expires_ms = 0;
};

struct LoadedAccounts {
  std::vector<AccountRow> accounts;
  std::vector<SessionRow> sessions;
  std::vector<InviteRow> invites;
};

class AccountStore {
 public:
  virtual ~AccountStore() = default;
  // Creates or replaces the account, and writes its player's row in the same transaction: the
  // name, and `player_token_hash` (a hash nobody holds a token for, so that the guest token the
  // player had before stops working; "" leaves the row's token as it is).
  virtual void put_account(const AccountRow& account, const std::string& player_token_hash,
                           Done done) = 0;
  virtual void put_session(const SessionRow& session, Done done) = 0;
  virtual void drop_sessions(const std::vector<std::string>& token_hashes, Done done) = 0;
  // The account and its sessions go; its player stays, under the name "deleted player", so that
  // its games keep their seats.
  virtual void delete_account(const std::string& player, const std::string& shown_name,
                              Done done) = 0;
  virtual void put_invite(const InviteRow& invite, Done done) = 0;
  virtual void drop_invite(const std::string& code_hash, Done done) = 0;
  virtual std::expected<LoadedAccounts, std::string> load_accounts() = 0;
};

// Keeps accounts in memory only (--data none): they last as long as the process.
class NullAccountStore : public AccountStore {
 public:
  void put_account(const AccountRow&, const std::string&, Done done) override { done(true); }
  void put_session(const SessionRow&, Done done) override { done(true); }
  void drop_sessions(const std::vector<std::string>&, Done done) override { done(true); }
  void delete_account(const std::string&, const std::string&, Done done) override { done(true); }
  void put_invite(const InviteRow&, Done done) override { done(true); }
  void drop_invite(const std::string&, Done done) override { done(true); }
  std::expected<LoadedAccounts, std::string> load_accounts() override { return LoadedAccounts{}; }
};

}  // namespace plateau::server
