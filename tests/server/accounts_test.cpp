// Accounts (issue 46) without sockets: passwords hashed for real (libsodium, at its least
// cost), the worker pool replaced by a queue the test drains, a store that records its writes
// and can be told to fail, and a clock the test moves.
#include "server/accounts/accounts.hpp"

#include <gtest/gtest.h>

#include <map>

#include "fakes.hpp"
#include "server/secure_random.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;

class MemoryAccountStore final : public AccountStore {
 public:
  bool fail = false;
  std::map<std::string, AccountRow> accounts;
  std::map<std::string, std::string> player_tokens;  // player -> token hash written
  std::map<std::string, SessionRow> sessions;
  std::map<std::string, InviteRow> invites;
  void put_account(const AccountRow& a, const std::string& token_hash, Done done) override {
    if (fail) return done(false);
    accounts[a.player] = a;
    if (!token_hash.empty()) player_tokens[a.player] = token_hash;
    done(true);
  }
  void put_session(const SessionRow& s, Done done) override {
    if (fail) return done(false);
    sessions[s.token_hash] = s;
    done(true);
  }
  void drop_sessions(const std::vector<std::string>& hashes, Done done) override {
    for (const auto& h : hashes) sessions.erase(h);
    done(!fail);
  }
  void delete_account(const std::string& player, const std::string&, Done done) override {
    accounts.erase(player);
    std::erase_if(sessions, [&](const auto& kv) { return kv.second.player == player; });
    done(!fail);
  }
  void put_invite(const InviteRow& i, Done done) override {
    invites[i.code_hash] = i;
    done(!fail);
  }
  void drop_invite(const std::string& h, Done done) override {
    invites.erase(h);
    done(!fail);
  }
  std::expected<LoadedAccounts, std::string> load_accounts() override {
    LoadedAccounts out;
    for (const auto& [k, a] : accounts) out.accounts.push_back(a);
    for (const auto& [k, s] : sessions) out.sessions.push_back(s);
    for (const auto& [k, i] : invites) out.invites.push_back(i);
    return out;
  }
};

class Directory final : public PlayerDirectory {
 public:
  std::map<std::string, std::string> guests;  // token hash -> player
  std::map<std::string, std::string> became;  // player -> name
  std::vector<std::string> ended;
  std::map<std::string, std::string> renames;
  std::optional<std::string> guest_of(const std::string& token_hash) override {
    const auto it = guests.find(token_hash);
    if (it == guests.end()) return std::nullopt;
    return it->second;
  }
  void became_account(const std::string& player, const std::string& name) override {
    became[player] = name;
  }
  void sessions_ended(const std::vector<std::string>& hashes) override {
    ended.insert(ended.end(), hashes.begin(), hashes.end());
  }
  void renamed(const std::string& player, const std::string& name) override {
    renames[player] = name;
  }
};

class AccountsTest : public ::testing::Test {
 protected:
  AccountsTest() { make(); }
  void make(AccountLimits limits = {}) {
    limits.cost = cheapest_password_cost();
    accounts_ = std::make_unique<Accounts>(
        store_, background_, [this] { return ++counter_ * 0x9e3779b97f4a7c15ULL; }, limits,
        [this] { return now_; });
    accounts_->use_directory(&directory_);
  }
  // Runs a call to its answer, draining the hashes it queued.
  AccountResult run(const std::function<void(const AccountReply&)>& call) {
    std::optional<AccountResult> out;
    call([&](AccountResult r) { out = std::move(r); });
    background_.drain();
    EXPECT_TRUE(out.has_value()) << "no answer";
    return out.value_or(std::unexpected(AccountError{0, "none", "", {}}));
  }
  AccountResult signup(const std::string& name, const std::string& password = "correct horse",
                       std::optional<std::string> invite = std::nullopt,
                       std::optional<std::string> guest = std::nullopt,
                       const std::string& peer = "192.0.2.1") {
    return run([&](const AccountReply& r) {
      accounts_->register_account({name, password, "test", guest, invite}, peer, r);
    });
  }
  AccountResult login(const std::string& name, const std::string& password,
                      const std::string& peer = "192.0.2.1") {
    return run([&](const AccountReply& r) { accounts_->login(name, password, "phone", peer, r); });
  }
  static std::string code(const AccountResult& r) { return r ? "ok" : r.error().code; }

  MemoryAccountStore store_;
  QueuedBackground background_;
  Directory directory_;
  std::uint64_t counter_ = 0;
  AccountMillis now_ = 1'000'000;
  std::unique_ptr<Accounts> accounts_;
};

TEST(Password, HashesAreSaltedAndVerifyOnlyTheirPassword) {
  const auto cost = cheapest_password_cost();
  const auto a = hash_password("correct horse", cost);
  const auto b = hash_password("correct horse", cost);
  EXPECT_TRUE(a.starts_with("$argon2id$")) << a;
  EXPECT_NE(a, b) << "each hash has its own salt";
  EXPECT_TRUE(verify_password(a, "correct horse"));
  EXPECT_TRUE(verify_password(b, "correct horse"));
  EXPECT_FALSE(verify_password(a, "correct horsE"));
  EXPECT_FALSE(verify_password(a, ""));
  EXPECT_FALSE(verify_password("not a hash", "correct horse"));
  EXPECT_FALSE(verify_password(std::string(500, '$'), "x"));
  EXPECT_FALSE(needs_rehash(a, cost));
  EXPECT_TRUE(needs_rehash(a, PasswordCost{cost.ops + 1, cost.memory_kib}));
}

TEST_F(AccountsTest, ARegisteredAccountSignsInWithItsNameInAnyCaseAndOnlyItsPassword) {
  const auto made = signup("Ada Lovelace");
  ASSERT_TRUE(made) << made.error().message;
  const std::string player = (*made)["player"];
  const std::string token = (*made)["token"];
  EXPECT_EQ((*made)["name"], "Ada Lovelace");
  EXPECT_EQ(token.size(), 32u);
  // The session is stored as its hash only, and signs the player in.
  ASSERT_EQ(store_.sessions.size(), 1u);
  EXPECT_TRUE(store_.sessions.contains(sha256_hex(token)));
  ASSERT_NE(accounts_->by_session(sha256_hex(token)), nullptr);
  EXPECT_EQ(accounts_->by_session(sha256_hex(token))->player, player);
  EXPECT_EQ(directory_.became.at(player), "Ada Lovelace");
  EXPECT_TRUE(store_.accounts.at(player).password_hash.starts_with("$argon2id$"));
  EXPECT_EQ(store_.accounts.at(player).password_hash.find("correct horse"), std::string::npos);

  const auto again = login("ada LOVELACE", "correct horse");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)["player"], player);
  EXPECT_NE((*again)["token"], token) << "each device its own session";
  EXPECT_EQ(code(login("Ada Lovelace", "correct horsE")), "account/wrong_password");
  // An unknown name is refused exactly like a wrong password.
  const auto unknown = login("Nobody", "correct horse");
  EXPECT_EQ(code(unknown), "account/wrong_password");
  EXPECT_EQ(unknown.error().status, 401);
}

TEST_F(AccountsTest, NamesAreUniqueWithoutCaseAndFollowTheNameRules) {
  ASSERT_TRUE(signup("Ada"));
  EXPECT_EQ(code(signup("ADA")), "account/name_taken");
  EXPECT_EQ(code(signup("ada")), "account/name_taken");
  EXPECT_TRUE(accounts_->name_taken("aDa"));
  EXPECT_EQ(code(signup(" Bob")), "account/bad_name");
  EXPECT_EQ(code(signup("Bob ")), "account/bad_name");
  EXPECT_EQ(code(signup("")), "account/bad_name");
  EXPECT_EQ(code(signup("B\x01ob")), "account/bad_name");
  EXPECT_EQ(code(signup(std::string(41, 'x'))), "account/bad_name");
  EXPECT_EQ(code(signup("Deleted Player")), "account/bad_name");
  EXPECT_EQ(code(signup("Bob", "short")), "account/bad_password");
  EXPECT_EQ(code(signup("Bob", std::string(257, 'p'))), "account/bad_password");
  EXPECT_TRUE(signup("Bob", std::string(256, 'p')));
  EXPECT_TRUE(signup("Élodie"));
  EXPECT_EQ(accounts_->count(), 3u);
}

TEST_F(AccountsTest, TwoRegistrationsOfOneNameWhileHashingGiveItToTheFirstOnly) {
  std::vector<AccountResult> answers;
  for (const char* name : {"Cy", "cy"})
    accounts_->register_account({name, "correct horse", "", std::nullopt, std::nullopt},
                                std::string("198.51.100.") + name[0],
                                [&](AccountResult r) { answers.push_back(std::move(r)); });
  // The second was refused at once: the first's hash was still running.
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(code(answers[0]), "account/name_taken");
  background_.drain();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_TRUE(answers[1]);
}

TEST_F(AccountsTest, AGuestWhoRegistersKeepsTheirPlayerAndTheirGuestTokenStopsWorking) {
  directory_.guests[sha256_hex("guest-token")] = "guest01";
  const auto made = signup("Dee", "correct horse", std::nullopt, "guest-token");
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ((*made)["player"], "guest01");
  EXPECT_EQ(directory_.became.at("guest01"), "Dee");
  // The player's row gets a token hash that is not the guest's.
  ASSERT_TRUE(store_.player_tokens.contains("guest01"));
  EXPECT_NE(store_.player_tokens.at("guest01"), sha256_hex("guest-token"));
  EXPECT_EQ(code(signup("Dee2", "correct horse", std::nullopt, "not-a-guest")),
            "account/not_guest");
}

TEST_F(AccountsTest, ClosedAndInviteOnlyRegistration) {
  make({.registration = Registration::closed});
  EXPECT_EQ(code(signup("Eve")), "account/closed");
  make({.registration = Registration::invite});
  EXPECT_EQ(code(signup("Eve")), "account/invite_needed");
  EXPECT_EQ(code(signup("Eve", "correct horse", "0123")), "account/bad_invite");
  const auto invite = run([&](const AccountReply& r) { accounts_->invite(r); });
  ASSERT_TRUE(invite);
  const std::string invite_code = (*invite)["code"];
  EXPECT_EQ((*invite)["link"], "/?invite=" + invite_code);
  EXPECT_TRUE(store_.invites.contains(sha256_hex(invite_code))) << "kept as its hash";
  ASSERT_TRUE(signup("Eve", "correct horse", invite_code));
  EXPECT_FALSE(store_.invites.contains(sha256_hex(invite_code)));
  EXPECT_EQ(code(signup("Fay", "correct horse", invite_code)), "account/bad_invite")
      << "an invitation is good once";
  // An invitation runs out.
  const auto late = run([&](const AccountReply& r) { accounts_->invite(r); });
  now_ += AccountLimits{}.invite_ms;
  EXPECT_EQ(code(signup("Fay", "correct horse", (*late)["code"].get<std::string>())),
            "account/bad_invite");
}

TEST_F(AccountsTest, WrongPasswordsMakeTheAccountWaitLongerEachTimeAndTheRightOneThenWorks) {
  make({.logins_per_minute = 1000, .free_failures = 3});
  ASSERT_TRUE(signup("Gus"));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(code(login("Gus", "guess" + std::to_string(i), "203.0.113." + std::to_string(i))),
              "account/wrong_password");
  // The fourth wrong one starts the wait, from any address.
  EXPECT_EQ(code(login("Gus", "guess3")), "account/wrong_password");
  const auto slow = login("gus", "correct horse", "203.0.113.99");
  EXPECT_EQ(code(slow), "account/slow_down");
  EXPECT_EQ(slow.error().status, 429);
  EXPECT_EQ(slow.error().retry_after, std::chrono::seconds(1));
  now_ += 1000;
  EXPECT_EQ(code(login("Gus", "guess4")), "account/wrong_password");
  EXPECT_EQ(login("Gus", "correct horse").error().retry_after, std::chrono::seconds(2));
  now_ += 2000;
  EXPECT_TRUE(login("Gus", "correct horse"));
  // A success forgets the failures.
  EXPECT_EQ(code(login("Gus", "guess5")), "account/wrong_password");
  EXPECT_TRUE(login("Gus", "correct horse"));
}

TEST_F(AccountsTest, LoginsAndRegistrationsAreLimitedPerAddress) {
  make({.logins_per_minute = 4, .registrations_per_minute = 2});
  ASSERT_TRUE(signup("H1", "correct horse", std::nullopt, std::nullopt, "198.51.100.7"));
  ASSERT_TRUE(signup("H2", "correct horse", std::nullopt, std::nullopt, "198.51.100.7"));
  const auto third = signup("H3", "correct horse", std::nullopt, std::nullopt, "198.51.100.7");
  EXPECT_EQ(code(third), "account/rate");
  EXPECT_EQ(third.error().retry_after, std::chrono::seconds(60));
  EXPECT_TRUE(signup("H3", "correct horse", std::nullopt, std::nullopt, "198.51.100.8"));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(login("H1", "correct horse", "198.51.100.9"));
  EXPECT_EQ(code(login("H1", "correct horse", "198.51.100.9")), "account/rate");
  EXPECT_TRUE(login("H1", "correct horse", "198.51.100.10"));
  now_ += 60'000;
  EXPECT_TRUE(login("H1", "correct horse", "198.51.100.9"));
}

TEST_F(AccountsTest, HashesInFlightAreCappedAndTheRestRefusedAsBusy) {
  make({.registrations_per_minute = 100, .max_hashing = 2});
  std::vector<AccountResult> answers;
  for (int i = 0; i < 3; ++i)
    accounts_->register_account(
        {"I" + std::to_string(i), "correct horse", "", std::nullopt, std::nullopt}, "192.0.2.1",
        [&](AccountResult r) { answers.push_back(std::move(r)); });
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(code(answers[0]), "account/busy");
  EXPECT_EQ(answers[0].error().status, 503);
  EXPECT_EQ(accounts_->hashing(), 2u);
  background_.drain();
  EXPECT_EQ(accounts_->hashing(), 0u);
  EXPECT_TRUE(answers[1] && answers[2]);
}

TEST_F(AccountsTest, DevicesAreListedAndSignedOutOneByOneOrAllAndTheOldestGoesPastTheCap) {
  make({.max_sessions = 3});
  const auto first = signup("Jo");
  ASSERT_TRUE(first);
  const std::string t1 = (*first)["token"];
  const std::string t2 = (*login("Jo", "correct horse"))["token"];
  const std::string t3 = (*login("Jo", "correct horse"))["token"];
  auto me = accounts_->me(t3);
  ASSERT_TRUE(me);
  ASSERT_EQ((*me)["sessions"].size(), 3u);
  EXPECT_EQ((*me)["sessions"][2]["current"], true);
  EXPECT_EQ((*me)["sessions"][0]["current"], false);
  // A fourth device signs the first out.
  const std::string t4 = (*login("Jo", "correct horse"))["token"];
  EXPECT_EQ(code(accounts_->me(t1)), "account/unauthorized");
  EXPECT_EQ(directory_.ended, std::vector<std::string>{sha256_hex(t1)});
  EXPECT_FALSE(store_.sessions.contains(sha256_hex(t1)));
  // One device signs another out by its id.
  const std::string id2 = Accounts::session_id(sha256_hex(t2));
  EXPECT_TRUE(run([&](const AccountReply& r) { accounts_->end_session(t4, id2, r); }));
  EXPECT_EQ(accounts_->by_session(sha256_hex(t2)), nullptr);
  EXPECT_EQ(code(run([&](const AccountReply& r) { accounts_->end_session(t4, "ffff", r); })),
            "account/no_such_session");
  // Logging out ends this session only; everywhere ends them all.
  const std::string t5 = (*login("Jo", "correct horse"))["token"];
  EXPECT_TRUE(run([&](const AccountReply& r) { accounts_->logout(t3, false, r); }));
  EXPECT_EQ(accounts_->by_session(sha256_hex(t3)), nullptr);
  EXPECT_NE(accounts_->by_session(sha256_hex(t4)), nullptr);
  const auto all = run([&](const AccountReply& r) { accounts_->logout(t4, true, r); });
  ASSERT_TRUE(all);
  EXPECT_EQ((*all)["signed_out"], 2);
  EXPECT_EQ(accounts_->by_session(sha256_hex(t5)), nullptr);
  EXPECT_TRUE(store_.sessions.empty());
  EXPECT_EQ(code(run([&](const AccountReply& r) { accounts_->logout(t4, false, r); })),
            "account/unauthorized");
}

TEST_F(AccountsTest, ChangingThePasswordNeedsTheOldOneAndSignsOutEveryOtherDevice) {
  const std::string t1 = (*signup("Kim"))["token"];
  const std::string t2 = (*login("Kim", "correct horse"))["token"];
  const auto change = [&](const std::string& old_pw, const std::string& new_pw) {
    return run([&](const AccountReply& r) {
      accounts_->change_password(t2, old_pw, new_pw, "192.0.2.1", r);
    });
  };
  EXPECT_EQ(code(change("wrong horse", "battery staple")), "account/wrong_password");
  EXPECT_EQ(code(change("correct horse", "short")), "account/bad_password");
  const auto changed = change("correct horse", "battery staple");
  ASSERT_TRUE(changed) << changed.error().message;
  EXPECT_EQ((*changed)["signed_out"], 1);
  EXPECT_EQ(accounts_->by_session(sha256_hex(t1)), nullptr);
  EXPECT_NE(accounts_->by_session(sha256_hex(t2)), nullptr);
  EXPECT_EQ(code(login("Kim", "correct horse")), "account/wrong_password");
  EXPECT_TRUE(login("Kim", "battery staple"));
  // And it lasts: a restart reads the new hash.
  Accounts restarted(
      store_, background_, [] { return 7; }, {.cost = cheapest_password_cost()},
      [this] { return now_; });
  restarted.restore(*store_.load_accounts());
  std::optional<AccountResult> out;
  restarted.login("kim", "battery staple", "", "192.0.2.1", [&](AccountResult r) { out = r; });
  background_.drain();
  ASSERT_TRUE(out && *out);
}

TEST_F(AccountsTest, TheHostDisablesAndDeletesAccounts) {
  const auto made = signup("Lee");
  const std::string player = (*made)["player"], token = (*made)["token"];
  EXPECT_TRUE(run([&](const AccountReply& r) { accounts_->set_disabled("LEE", true, r); }));
  EXPECT_TRUE(accounts_->disabled(player));
  EXPECT_TRUE(store_.accounts.at(player).disabled);
  EXPECT_EQ(code(login("Lee", "correct horse")), "account/disabled");
  EXPECT_EQ(accounts_->list()[0]["disabled"], true);
  EXPECT_TRUE(run([&](const AccountReply& r) { accounts_->set_disabled("Lee", false, r); }));
  EXPECT_TRUE(login("Lee", "correct horse"));

  const auto gone = run([&](const AccountReply& r) { accounts_->remove("lee", r); });
  ASSERT_TRUE(gone);
  EXPECT_EQ(accounts_->of_player(player), nullptr);
  EXPECT_EQ(accounts_->by_session(sha256_hex(token)), nullptr);
  EXPECT_EQ(directory_.renames.at(player), "deleted player");
  EXPECT_EQ(directory_.ended.size(), 2u) << "both devices signed out";
  EXPECT_TRUE(store_.accounts.empty());
  EXPECT_EQ(code(login("Lee", "correct horse")), "account/wrong_password");
  EXPECT_TRUE(signup("Lee")) << "the name is free again";
  EXPECT_EQ(code(run([&](const AccountReply& r) { accounts_->remove("nobody", r); })),
            "account/no_such_account");
}

TEST_F(AccountsTest, ADeletionTheStoreRefusesKeepsTheAccount) {
  const auto made = signup("Noor");
  const std::string player = (*made)["player"];
  store_.fail = true;
  EXPECT_EQ(code(run([&](const AccountReply& r) { accounts_->remove("Noor", r); })),
            "account/store_failed");
  store_.fail = false;
  ASSERT_NE(accounts_->of_player(player), nullptr) << "memory agrees with what the store kept";
  EXPECT_NE(accounts_->of_name("noor"), nullptr);
  EXPECT_FALSE(directory_.renames.contains(player));
  EXPECT_EQ(code(signup("Noor")), "account/name_taken");
  EXPECT_TRUE(login("Noor", "correct horse")) << "a device signed out may sign in again";
}

TEST_F(AccountsTest, AFailedWriteLeavesNoAccountAndFreesTheName) {
  store_.fail = true;
  const auto failed = signup("Max");
  EXPECT_EQ(code(failed), "account/store_failed");
  EXPECT_EQ(failed.error().status, 500);
  EXPECT_FALSE(accounts_->name_taken("Max"));
  EXPECT_EQ(accounts_->count(), 0u);
  store_.fail = false;
  EXPECT_TRUE(signup("Max"));
}

TEST_F(AccountsTest, SessionsRestoredAtStartSignInAndOnlyThoseOfKnownAccounts) {
  const std::string token = (*signup("Ned"))["token"];
  store_.sessions["orphan"] = SessionRow{"orphan", "no-such-player", "x", 1};
  Accounts restarted(
      store_, background_, [] { return 7; }, {.cost = cheapest_password_cost()},
      [this] { return now_; });
  restarted.restore(*store_.load_accounts());
  ASSERT_NE(restarted.by_session(sha256_hex(token)), nullptr);
  EXPECT_EQ(restarted.by_session(sha256_hex(token))->name, "Ned");
  EXPECT_EQ(restarted.by_session("orphan"), nullptr);
  EXPECT_TRUE(restarted.name_taken("NED"));
}

// The lobby with accounts: hello by session, names, disabled accounts, signing out.
class LobbyAccountsTest : public AccountsTest {
 protected:
  LobbyAccountsTest()
      : lobby_{rooms_store_,
               [this] { return ++ids_ * 0xbf58476d1ce4e5b9ULL; },  // not the accounts' ids
               LobbyLimits{.keep = {},
                           .max_rooms_per_player = 1'000,
                           .creates_per_minute = 1'000,
                           .new_players_per_minute = 1'000}} {
    lobby_.use_accounts(*accounts_);
    lobby_.use_ratings(ratings_);
  }
  void send(const std::shared_ptr<FakeConnection>& c, const json& msg) {
    auto req = protocol::decode(msg.dump());
    if (!req)
      lobby_.refuse(c, req.error());
    else
      lobby_.handle(c, std::move(*req));
  }
  // A connection that said hello; its welcome.
  std::pair<std::shared_ptr<FakeConnection>, json> hello(const std::string& name,
                                                         std::optional<std::string> token = {}) {
    auto c = std::make_shared<FakeConnection>();
    send(c, {{"type", "hello"}, {"name", name}, {"token", token ? json(*token) : json(nullptr)}});
    const auto w = c->take("welcome");
    EXPECT_EQ(w.size(), 1u);
    return {c, w.empty() ? json() : w[0]};
  }
  std::string error_code(const std::shared_ptr<FakeConnection>& c) {
    const auto errors = c->take("error");
    return errors.empty() ? "" : errors.back()["code"].get<std::string>();
  }
  std::string create(const std::shared_ptr<FakeConnection>& c) {
    send(c, {{"type", "create"}, {"game", "quantik"}, {"options", json::object()}});
    const auto created = c->take("created");
    return created.empty() ? "" : created[0]["room"].get<std::string>();
  }

  ManualStore rooms_store_;
  NullRatingStore rating_store_;
  Ratings ratings_{rating_store_};
  std::uint64_t ids_ = 0;
  Lobby lobby_;
};

TEST_F(LobbyAccountsTest, AGuestWhoRegistersFindsTheirTableOnAnotherDeviceUnderTheirName) {
  auto [guest, welcome] = hello("dee");
  EXPECT_EQ(welcome["account"], nullptr);
  EXPECT_EQ(welcome["name"], "dee");
  const std::string guest_token = welcome["token"], player = welcome["player"];
  const std::string room = create(guest);
  ASSERT_FALSE(room.empty());
  send(guest, {{"type", "join"}, {"room", room}, {"as", "player"}});
  ASSERT_EQ(error_code(guest), "");

  const auto made = signup("Dee", "correct horse", std::nullopt, guest_token);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ((*made)["player"], player);
  // The guest token is spent: it makes a new stranger now.
  auto [stranger, w0] = hello("dee", guest_token);
  EXPECT_NE(w0["player"], player);
  // A second device signs in and finds the table, under the account's name whatever the
  // hello says.
  const std::string token = (*login("DEE", "correct horse"))["token"];
  auto [phone, w1] = hello("someone else", token);
  EXPECT_EQ(w1["player"], player);
  EXPECT_EQ(w1["account"], "Dee");
  EXPECT_EQ(w1["name"], "Dee");
  EXPECT_EQ(w1["token"], token);
  ASSERT_EQ(w1["tables"].size(), 1u);
  EXPECT_EQ(w1["tables"][0]["room"], room);
  // Its seat shows the account's name.
  const auto fulls = phone->take("full");
  ASSERT_FALSE(fulls.empty());
  EXPECT_EQ(fulls.back()["state"]["seats"][0]["name"], "Dee") << fulls.back()["state"].dump();
}

TEST_F(LobbyAccountsTest, AGuestCannotPassForAnAccount) {
  ASSERT_TRUE(signup("Ada"));
  auto [c, w] = hello("ADA");
  EXPECT_EQ(w["name"], "ADA (guest)");
  EXPECT_EQ(w["account"], nullptr);
  auto [c2, w2] = hello(std::string(40, 'x'));
  ASSERT_TRUE(signup(std::string(40, 'X')));
  auto [c3, w3] = hello(std::string(40, 'x'), w2["token"].get<std::string>());
  EXPECT_EQ(w3["name"], std::string(32, 'x') + " (guest)") << "cut to fit 40 characters";
}

TEST_F(LobbyAccountsTest, ADisabledAccountWatchesButNeitherSitsNorCreates) {
  auto [host, w] = hello("Host");
  const std::string room = create(host);
  const std::string token = (*signup("Lee"))["token"];
  ASSERT_TRUE(run([&](const AccountReply& r) { accounts_->set_disabled("Lee", true, r); }));
  auto [lee, wl] = hello("Lee", token);
  EXPECT_EQ(create(lee), "");
  EXPECT_EQ(error_code(lee), "account/disabled");
  send(lee, {{"type", "join"}, {"room", room}, {"as", "player"}});
  EXPECT_EQ(error_code(lee), "account/disabled");
  send(lee, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  EXPECT_EQ(error_code(lee), "");
  EXPECT_EQ(lee->take("joined").size(), 1u);
}

TEST_F(LobbyAccountsTest, SigningOutEverywhereSignsOutTheConnectionsOfEverySession) {
  const std::string t1 = (*signup("Max"))["token"];
  const std::string t2 = (*login("Max", "correct horse"))["token"];
  auto [laptop, w1] = hello("Max", t1);
  // The phone was a guest first, and signed in on the same connection.
  auto [phone, w2] = hello("a guest");
  send(phone, {{"type", "hello"}, {"name", "Max"}, {"token", t2}});
  ASSERT_EQ(phone->take("welcome").at(0)["account"], "Max");
  auto [other, w3] = hello("Other");
  const std::string room = create(laptop);
  send(laptop, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(other, {{"type", "join"}, {"room", room}, {"as", "player"}});
  laptop->take("full");
  other->take("full");
  ASSERT_TRUE(run([&](const AccountReply& r) { accounts_->logout(t2, true, r); }));
  EXPECT_EQ(error_code(laptop), "account/signed_out");
  EXPECT_EQ(error_code(phone), "account/signed_out");
  EXPECT_EQ(error_code(other), "");
  // A stranger again: it must sign in to do anything, and its seat shows it away.
  EXPECT_EQ(create(laptop), "");
  EXPECT_EQ(error_code(laptop), "proto/no_hello");
  const auto seen = other->take("patch");
  ASSERT_FALSE(seen.empty());
  auto [back, w4] = hello("Max", t1);
  EXPECT_EQ(w4["account"], nullptr) << "the old session is no account's any more";
  EXPECT_NE(w4["player"], w1["player"]);
}

TEST_F(LobbyAccountsTest, OnlyAccountsCreateAndSitAtARatedTableAndItsEndMovesTheirRatings) {
  auto [guest, wg] = hello("Gus");
  send(guest, {{"type", "create"}, {"game", "quantik"}, {"rated", true}});
  EXPECT_EQ(error_code(guest), "rated/accounts_only");
  auto [ada, wa] = hello("Ada", (*signup("Ada"))["token"].get<std::string>());
  auto [bob, wb] = hello("Bob", (*signup("Bob"))["token"].get<std::string>());
  send(ada,
       {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}, {"rated", true}});
  const auto created = ada->take("created");
  ASSERT_EQ(created.size(), 1u);
  const std::string room = created[0]["room"];
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(guest, {{"type", "join"}, {"room", room}, {"as", "player"}});
  EXPECT_EQ(error_code(guest), "rated/accounts_only");
  send(ada, {{"type", "add_bot"}, {"room", room}, {"level", "easy"}});
  EXPECT_EQ(error_code(ada), "rated/no_bots");
  send(guest, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  EXPECT_EQ(error_code(guest), "") << "anyone may watch";
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  ASSERT_EQ(error_code(bob), "");
  EXPECT_EQ(ada->states[room]["rated"], true);
  EXPECT_EQ(guest->states[room]["rated"], true);
  // Four moves: Bob completes the row and wins.
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    auto& mover = ada->states[room]["to_move"] == 0 ? ada : bob;
    send(mover,
         {{"type", "move"}, {"room", room}, {"version", mover->versions[room]}, {"move", m}});
    ASSERT_EQ(error_code(mover), "") << m;
  }
  ASSERT_EQ(ada->states[room]["status"], "over");
  const auto ra = ratings_.of(wa["player"], "quantik"), rb = ratings_.of(wb["player"], "quantik");
  EXPECT_EQ(ra.games, 1);
  EXPECT_EQ(ra.losses, 1);
  EXPECT_EQ(rb.wins, 1);
  EXPECT_GT(rb.rating, 1500);
  EXPECT_LT(ra.rating, 1500);
  // A casual table rates nobody.
  send(ada, {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}});
  const std::string casual = ada->take("created").at(0)["room"];
  send(ada, {{"type", "join"}, {"room", casual}, {"as", "player"}});
  send(guest, {{"type", "join"}, {"room", casual}, {"as", "player"}});
  ASSERT_EQ(error_code(guest), "");
  EXPECT_EQ(ada->states[casual]["rated"], false);
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    auto& mover = ada->states[casual]["to_move"] == 0 ? ada : guest;
    send(mover,
         {{"type", "move"}, {"room", casual}, {"version", mover->versions[casual]}, {"move", m}});
  }
  ASSERT_EQ(ada->states[casual]["status"], "over");
  EXPECT_EQ(ratings_.of(wa["player"], "quantik").games, 1);
}

// A cluster: another node rated Bob (another game) between this node's read of his rating and
// its write. The store refuses the write (its rows no longer follow the stored ones); the lobby
// reads the ratings again and rates the game once more, from Bob's new row.
TEST_F(LobbyAccountsTest, ARatingWriteRefusedForAnotherNodesGameIsRatedAgainFromTheStoredRows) {
  class RacedStore final : public RatingStore {
   public:
    void put_rated_game(const std::vector<RatingRow>& ratings, const std::vector<RatingChange>&,
                        Done done) override {
      ++writes;
      for (const auto& r : ratings) {
        const auto it = rows.find(r.player);
        if (r.games != (it == rows.end() ? 0 : it->second.games) + 1) return done(false);
      }
      for (const auto& r : ratings) rows[r.player] = r;
      done(true);
    }
    std::expected<std::vector<RatingRow>, std::string> load_ratings() override {
      std::vector<RatingRow> out;
      for (const auto& [p, r] : rows) out.push_back(r);
      return out;
    }
    std::expected<std::vector<UnratedGame>, std::string> unrated_games() override {
      return std::vector<UnratedGame>{};
    }
    std::vector<RatingChange> rating_history(const std::string&) override { return {}; }
    std::vector<GameSummary> games_of(const std::string&, int) override { return {}; }
    std::map<std::string, RatingRow> rows;
    int writes = 0;
  } store;
  Ratings ratings(store);
  lobby_.use_ratings(ratings);
  auto [ada, wa] = hello("Ada", (*signup("Ada"))["token"].get<std::string>());
  auto [bob, wb] = hello("Bob", (*signup("Bob"))["token"].get<std::string>());
  const std::string bob_id = wb["player"];
  int reads = 0;
  Shared shared;
  shared.before_rating = [&](const std::vector<std::string>& players) {
    ++reads;
    if (reads == 1) {  // read, then another node's game of Bob's lands before our write
      RatingRow other{bob_id, "quantik", 1700, 200, 0.06, 1, 1, 0, 0, 1};
      store.rows[bob_id] = other;
      return;
    }
    for (const auto& p : players)
      ratings.reload(p, store.rows.contains(p) ? std::vector<RatingRow>{store.rows[p]}
                                               : std::vector<RatingRow>{});
  };
  lobby_.share(shared);
  send(ada,
       {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}, {"rated", true}});
  const std::string room = ada->take("created").at(0)["room"];
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    auto& mover = ada->states[room]["to_move"] == 0 ? ada : bob;
    send(mover,
         {{"type", "move"}, {"room", room}, {"version", mover->versions[room]}, {"move", m}});
  }
  ASSERT_EQ(ada->states[room]["status"], "over");
  EXPECT_EQ(store.writes, 2) << "refused once, then written";
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(store.rows.at(bob_id).games, 2) << "both of Bob's games count";
  EXPECT_EQ(store.rows.at(bob_id).wins, 2);
  EXPECT_GT(store.rows.at(bob_id).rating, 1700) << "rated from his new rating";
  EXPECT_EQ(ratings.of(bob_id, "quantik").games, 2);
  EXPECT_EQ(lobby_.counters().refused.at("store/ratings_conflict"), 1u);
  EXPECT_FALSE(lobby_.counters().refused.contains("store/ratings_failed"));
}

// Chat: who hears whom, the limits, and what the store keeps.
TEST_F(LobbyAccountsTest, SpectatorsNeverReachThePlayersAndHearThemOnceTheRoundIsOver) {
  auto [ada, wa] = hello("Ada");
  auto [bob, wb] = hello("Bob");
  auto [eve, we] = hello("Eve");
  send(ada, {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}});
  const std::string room = ada->take("created").at(0)["room"];
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(eve, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  const auto say = [&](const std::shared_ptr<FakeConnection>& c, const json& what) {
    json msg{{"type", "chat"}, {"room", room}};
    msg.update(what);
    send(c, msg);
    return error_code(c);
  };
  ASSERT_EQ(say(ada, {{"text", "good luck"}}), "");
  ASSERT_EQ(say(eve, {{"text", "Bob should play the cone"}}), "");
  ASSERT_EQ(say(bob, {{"phrase", "thanks"}}), "");
  // Each copy is a patched one: versions carry the chat like any change.
  const auto& pa = ada->states[room]["chat"];
  ASSERT_EQ(pa.size(), 2u);
  EXPECT_EQ(pa[0]["text"], "good luck");
  EXPECT_EQ(pa[0]["name"], "Ada");
  EXPECT_EQ(pa[0]["channel"], "players");
  EXPECT_EQ(pa[1]["phrase"], "thanks");
  EXPECT_EQ(bob->states[room]["chat"], pa);
  for (const auto& c : {ada, bob})
    for (const auto& frame : c->received)
      EXPECT_EQ(frame.dump().find("Bob should play"), std::string::npos)
          << "a spectator's message reached a player: " << frame.dump();
  const auto& pe = eve->states[room]["chat"];
  ASSERT_EQ(pe.size(), 1u);
  EXPECT_EQ(pe[0]["channel"], "spectators");
  for (const auto& frame : eve->received)
    EXPECT_EQ(frame.dump().find("good luck"), std::string::npos) << "players' talk leaked";
  // The game ends: the spectators hear both, the players still only theirs.
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    auto& mover = ada->states[room]["to_move"] == 0 ? ada : bob;
    send(mover,
         {{"type", "move"}, {"room", room}, {"version", mover->versions[room]}, {"move", m}});
  }
  ASSERT_EQ(eve->states[room]["status"], "over");
  ASSERT_EQ(eve->states[room]["chat"].size(), 3u);
  EXPECT_EQ(eve->states[room]["chat"][0]["text"], "good luck");
  EXPECT_EQ(eve->states[room]["chat"][1]["channel"], "spectators");
  EXPECT_EQ(ada->states[room]["chat"].size(), 2u);
  // A fresh sync agrees with each patched copy.
  for (const auto& c : {ada, eve}) {
    const json copy = c->states[room];
    send(c, {{"type", "sync"}, {"room", room}});
    EXPECT_EQ(c->take("full").back()["state"], copy);
  }
  // Bad messages, and a stranger to the room.
  EXPECT_EQ(say(ada, {{"text", "   "}}), "chat/bad_text");
  EXPECT_EQ(say(ada, {{"text", "a\u0007b"}}), "chat/bad_text");
  EXPECT_EQ(say(ada, {{"text", std::string(501, 'x')}}), "chat/bad_text");
  EXPECT_EQ(say(ada, {{"phrase", "insult"}}), "chat/bad_text");
  EXPECT_EQ(say(ada, {{"text", "x"}, {"phrase", "thanks"}}), "proto/bad_field");
  EXPECT_EQ(say(ada, {{"text", 5}}), "proto/bad_field");
  auto [stranger, ws] = hello("Stranger");
  EXPECT_EQ(say(stranger, {{"text", "hi"}}), "room/not_in_room");
  // What the store keeps: three messages, in order, with the version that showed each.
  ASSERT_EQ(rooms_store_.chat.size(), 3u);
  EXPECT_EQ(rooms_store_.chat[1].spectators, true);
  EXPECT_EQ(rooms_store_.chat[2].seq, 3);
  EXPECT_GT(rooms_store_.chat[2].version, rooms_store_.chat[1].version);
}

TEST_F(LobbyAccountsTest, ChatLimitsMutesDeletionsAndTablesWithoutChat) {
  auto [ada, wa] = hello("Ada", (*signup("Ada"))["token"].get<std::string>());
  auto [bob, wb] = hello("Bob");
  send(ada, {{"type", "create"}, {"game", "quantik"}});
  const std::string room = ada->take("created").at(0)["room"];
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  const auto say = [&](const std::shared_ptr<FakeConnection>& c, const std::string& r,
                       const std::string& text) {
    send(c, {{"type", "chat"}, {"room", r}, {"text", text}});
    return error_code(c);
  };
  // 20 a minute per person (the default), in one burst.
  for (int i = 0; i < 20; ++i) ASSERT_EQ(say(bob, room, "m" + std::to_string(i)), "") << i;
  EXPECT_EQ(say(bob, room, "one too many"), "chat/rate");
  EXPECT_EQ(say(ada, room, "Ada may still"), "");
  lobby_.tick(61'000);
  EXPECT_EQ(say(bob, room, "a minute later"), "");
  // New guests from one address share three people's worth of messages a minute.
  for (int i = 0; i < 3; ++i) {
    auto [guest, w] = hello("guest" + std::to_string(i));
    send(guest, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
    for (int m = 0; m < 20; ++m) say(guest, room, "spam");
  }
  auto [late, wl] = hello("late");
  send(late, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  EXPECT_EQ(say(late, room, "one more"), "chat/rate");
  lobby_.tick(200'000);
  // The host mutes Ada's account, and deletes one of Bob's messages.
  ASSERT_TRUE(run([&](const AccountReply& r) { accounts_->set_muted("ada", true, r); }));
  EXPECT_EQ(say(ada, room, "hello?"), "chat/muted");
  EXPECT_TRUE(lobby_.delete_chat(room, 2));
  EXPECT_FALSE(lobby_.delete_chat(room, 999));
  const auto& seen = ada->states[room]["chat"];
  ASSERT_GT(seen.size(), 2u);
  EXPECT_EQ(seen[1]["deleted"], true);
  EXPECT_FALSE(seen[1].contains("text"));
  EXPECT_EQ(seen[2]["text"], "m2");
  ASSERT_TRUE(run([&](const AccountReply& r) { accounts_->set_muted("Ada", false, r); }));
  EXPECT_EQ(say(ada, room, "back"), "");
  // A table made without chat has none.
  send(bob, {{"type", "create"}, {"game", "quantik"}, {"chat", "off"}});
  const std::string quiet = bob->take("created").at(0)["room"];
  send(bob, {{"type", "join"}, {"room", quiet}, {"as", "player"}});
  EXPECT_EQ(say(bob, quiet, "hi"), "chat/off");
}

}  // namespace
}  // namespace plateau::server::testing
