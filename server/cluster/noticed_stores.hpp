// Cluster mode (issue 47): the accounts' and the ratings' writes go to the shared store as
// before, and once each is durable the other nodes are told what it changed, so that they read
// it back (Node::on_notice). Each node keeps accounts and ratings in memory, as one node alone
// does; these notices keep those copies the store's.
//
// Notices (one line, the changed keys after a letter):
//   A <player>        an account, or its sessions, changed: read it again
//   S <hash> ...      sessions ended: sign their connections out at once
//   I                 the invitations changed
//   R <player> ...    ratings changed
//   T <event>         a tournament changed (its director wrote it): read it again
//   O                 the tournaments' organisers changed
#pragma once

#include <functional>
#include <string>

#include "server/store/account_store.hpp"
#include "server/store/rating_store.hpp"
#include "server/store/tournament_store.hpp"

namespace plateau::server::cluster {

using Tell = std::function<void(std::string notice)>;

// `done`, after telling the others `notice` if the write succeeded.
Done then_tell(const Tell& tell, std::string notice, Done done);

class NoticedAccountStore final : public AccountStore {
 public:
  NoticedAccountStore(AccountStore& store, Tell tell) : store_(store), tell_(std::move(tell)) {}
  void put_account(const AccountRow& account, const std::string& player_token_hash,
                   Done done) override;
  void put_session(const SessionRow& session, Done done) override;
  void drop_sessions(const std::vector<std::string>& token_hashes, Done done) override;
  void delete_account(const std::string& player, const std::string& shown_name, Done done) override;
  void put_invite(const InviteRow& invite, Done done) override;
  void drop_invite(const std::string& code_hash, Done done) override;
  std::expected<LoadedAccounts, std::string> load_accounts() override {
    return store_.load_accounts();
  }

 private:
  AccountStore& store_;
  Tell tell_;
};

class NoticedRatingStore final : public RatingStore {
 public:
  NoticedRatingStore(RatingStore& store, Tell tell) : store_(store), tell_(std::move(tell)) {}
  void put_rated_game(const std::vector<RatingRow>& ratings,
                      const std::vector<RatingChange>& changes, Done done) override;
  std::expected<std::vector<RatingRow>, std::string> load_ratings() override {
    return store_.load_ratings();
  }
  std::expected<std::vector<UnratedGame>, std::string> unrated_games() override {
    return store_.unrated_games();
  }
  std::vector<RatingChange> rating_history(const std::string& player) override {
    return store_.rating_history(player);
  }
  std::vector<GameSummary> games_of(const std::string& player, int limit) override {
    return store_.games_of(player, limit);
  }

 private:
  RatingStore& store_;
  Tell tell_;
};

// The director's writes of the events (Tournaments): the other nodes' copies read them again.
class NoticedTournamentStore final : public TournamentStore {
 public:
  NoticedTournamentStore(TournamentStore& store, Tell tell)
      : store_(store), tell_(std::move(tell)) {}
  void put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) override {
    store_.put_tournament(t, at_ms, then_tell(tell_, "T " + t.id, std::move(done)));
  }
  void put_organiser(const std::string& player, bool allowed, Done done) override {
    store_.put_organiser(player, allowed, then_tell(tell_, "O", std::move(done)));
  }
  std::expected<LoadedTournaments, std::string> load_tournaments() override {
    return store_.load_tournaments();
  }

 private:
  TournamentStore& store_;
  Tell tell_;
};

}  // namespace plateau::server::cluster
