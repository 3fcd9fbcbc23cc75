// Accounts (issue 46): a name and a password that sign a player in on any device. Anyone may
// still play as a guest; an account is a player (the same id, so a guest who registers keeps
// every table and game) whose name is theirs alone and whose devices each hold a session.
//
// A plain class on the event loop, like the lobby: passwords are hashed and checked on the
// worker pool (Background), and the answers come back as posted completions. Every write is
// durable (AccountStore) before its answer is sent.
//
// Limits: logins and registrations per address and minute; wrong passwords in a row on one
// account make it wait (1 s, doubling, up to 5 min: guessing costs days, while the owner, once
// the wait is over, signs in at once); at most `max_hashing` hashes at once (each takes its
// memory); at most `max_sessions` devices per account (the oldest is signed out).
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/accounts/password.hpp"
#include "server/net/throttle.hpp"
#include "server/rooms/background.hpp"
#include "server/store/account_store.hpp"

namespace plateau::server {

using AccountMillis = std::int64_t;

// Who may open an account: anyone, only those holding an invitation, or nobody.
enum class Registration { open, invite, closed };
std::optional<Registration> registration_named(std::string_view name);
std::string_view to_string(Registration r);

// The name a deleted account's games show.
inline constexpr std::string_view kDeletedName = "deleted player";

struct AccountLimits {
  Registration registration = Registration::open;
  PasswordCost cost{};
  std::size_t min_password_bytes = 8;
  std::size_t max_password_bytes = 256;  // bounds the work one request can ask for
  double logins_per_minute = 10;         // per address
  double registrations_per_minute = 3;   // per address
  int free_failures = 5;                 // wrong passwords in a row before an account must wait
  std::size_t max_sessions = 20;         // per account
  std::size_t max_hashing = 4;           // password hashes in flight at once
  AccountMillis invite_ms = 7LL * 24 * 3'600'000;  // how long an invitation stays good
};

// A refusal: the HTTP status, a stable code (PROTOCOL.md, "Accounts") and words for people.
struct AccountError {
  int status = 400;
  std::string code;
  std::string message;
  std::chrono::seconds retry_after{0};  // for 429s: when to try again
};
using AccountResult = std::expected<nlohmann::json, AccountError>;
using AccountReply = std::function<void(AccountResult)>;

// What the accounts need of the players the lobby knows (the lobby implements it).
class PlayerDirectory {
 public:
  virtual ~PlayerDirectory() = default;
  // The player a guest token signs in, if it is a guest's (not an account's).
  virtual std::optional<std::string> guest_of(const std::string& token_hash) = 0;
  // The player has an account of this name now: shown under it, kept for good, and the guest
  // token they had no longer signs anyone in.
  virtual void became_account(const std::string& player, const std::string& name) = 0;
  // These sessions sign nobody in any more: connections signed in with them are signed out.
  virtual void sessions_ended(const std::vector<std::string>& token_hashes) = 0;
  // The player is shown under another name (a deleted account's "deleted player").
  virtual void renamed(const std::string& player, const std::string& name) = 0;
};

class Accounts {
 public:
  using Random = std::function<std::uint64_t()>;
  using Now = std::function<AccountMillis()>;  // the wall clock, in ms since 1970
  Accounts(AccountStore& store, Background& background, Random random, AccountLimits limits,
           Now now);
  Accounts(const Accounts&) = delete;
  Accounts& operator=(const Accounts&) = delete;

  void use_directory(PlayerDirectory* directory) { directory_ = directory; }
  // At start, before anyone says hello.
  void restore(const LoadedAccounts& loaded);
  // Cluster mode: what another node changed, read back from the shared store. The account of
  // `player` as stored now (nullopt: none, or deleted) and its sessions replace what this node
  // held; a session gone signs its connections here out.
  void reload(const std::string& player, const std::optional<AccountRow>& row,
              const std::vector<SessionRow>& sessions);
  // Cluster mode: sessions ended on another node; their connections here are signed out.
  void forget_sessions(const std::vector<std::string>& token_hashes);
  // Cluster mode: the invitations as stored now.
  void reload_invites(const std::vector<InviteRow>& invites);

  struct Signup {
    std::string name;
    std::string password;
    std::string device;
    std::optional<std::string> guest_token;  // the guest who becomes this account
    std::optional<std::string> invite;
  };
  // Answers {player, name, token}: a session for this device.
  void register_account(Signup signup, const std::string& peer, const AccountReply& reply);
  void login(const std::string& name, std::string password, std::string device,
             const std::string& peer, const AccountReply& reply);
  // The calls below carry a session's token.
  AccountResult me(const std::string& token) const;
  void logout(const std::string& token, bool everywhere, const AccountReply& reply);
  // Other sessions are signed out; this one stays.
  void change_password(const std::string& token, std::string old_password, std::string new_password,
                       const std::string& peer, const AccountReply& reply);
  // Signs out one of the account's devices, by the id `me` lists.
  void end_session(const std::string& token, const std::string& session_id,
                   const AccountReply& reply);

  // For the lobby.
  const AccountRow* by_session(const std::string& token_hash) const;
  const AccountRow* of_player(const std::string& player) const;
  const AccountRow* of_name(std::string_view name) const;
  bool name_taken(std::string_view name) const;
  bool disabled(const std::string& player) const;
  bool muted(const std::string& player) const;

  // For the admin.
  nlohmann::json list() const;
  void set_disabled(const std::string& name, bool disabled, const AccountReply& reply);
  // A muted account may not chat anywhere on the server.
  void set_muted(const std::string& name, bool muted, const AccountReply& reply);
  void remove(const std::string& name, const AccountReply& reply);
  void invite(const AccountReply& reply);

  Registration registration() const { return limits_.registration; }
  std::size_t count() const { return accounts_.size(); }
  std::size_t hashing() const { return hashing_; }
  // The public id of a session in lists: the first 16 hex digits of its token's hash.
  static std::string session_id(const std::string& token_hash);

 private:
  AccountRow* find_name(std::string_view name);
  const AccountRow* session_account(const std::string& token, const SessionRow** session) const;
  // Whether a password may be tried for the account of name key `key` from `peer` now: not
  // while the account waits after wrong ones, nor past the address's rate or the hashes' cap.
  std::optional<AccountError> may_try_password(const std::string& key, const std::string& peer);
  AccountError bad_password() const;
  std::optional<AccountError> busy_or_limited(RateByKey& rate, double per_minute,
                                              const std::string& peer);
  // Opens a session for the account's player and answers {player, name, token} once durable.
  void open_session(const std::string& player, std::string device, const AccountReply& reply);
  void drop_sessions(std::vector<std::string> hashes, std::function<void(bool)> then);
  std::string random_hex(int bytes);
  // Sets one of the account's flags (disabled, muted), stored before answered.
  void set_flag(const std::string& name, bool AccountRow::* flag, bool value, const char* key,
                const AccountReply& reply);
  SteadyTime steady() const;

  AccountStore& store_;
  Background& background_;
  Random random_;
  AccountLimits limits_;
  Now now_;
  PlayerDirectory* directory_ = nullptr;
  std::unordered_map<std::string, AccountRow> accounts_;  // by player id
  std::unordered_map<std::string, std::string> by_name_;  // name_key -> player id
  std::unordered_map<std::string, SessionRow> sessions_;  // by token hash
  std::unordered_map<std::string, std::vector<std::string>>
      sessions_of_;                           // player -> hashes, oldest first
  std::map<std::string, InviteRow> invites_;  // by code hash
  std::set<std::string> pending_names_;       // name keys being registered (their hash is running)
  std::set<std::string> pending_invites_;     // invitations being used
  RateByKey logins_, registrations_;
  Backoff failures_;  // wrong passwords, by name key
  std::size_t hashing_ = 0;
};

}  // namespace plateau::server
