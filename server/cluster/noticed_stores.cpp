#include "server/cluster/noticed_stores.hpp"

namespace plateau::server::cluster {

Done then_tell(const Tell& tell, std::string notice, Done done) {
  return [tell, notice = std::move(notice), done = std::move(done)](bool ok) {
    if (ok) tell(notice);
    done(ok);
  };
}

void NoticedAccountStore::put_account(const AccountRow& account,
                                      const std::string& player_token_hash, Done done) {
  store_.put_account(account, player_token_hash,
                     then_tell(tell_, "A " + account.player, std::move(done)));
}

void NoticedAccountStore::put_session(const SessionRow& session, Done done) {
  store_.put_session(session, then_tell(tell_, "A " + session.player, std::move(done)));
}

void NoticedAccountStore::drop_sessions(const std::vector<std::string>& token_hashes, Done done) {
  std::string notice = "S";
  for (const auto& h : token_hashes) notice += " " + h;
  store_.drop_sessions(token_hashes, then_tell(tell_, std::move(notice), std::move(done)));
}

void NoticedAccountStore::delete_account(const std::string& player, const std::string& shown_name,
                                         Done done) {
  store_.delete_account(player, shown_name, then_tell(tell_, "A " + player, std::move(done)));
}

void NoticedAccountStore::put_invite(const InviteRow& invite, Done done) {
  store_.put_invite(invite, then_tell(tell_, "I", std::move(done)));
}

void NoticedAccountStore::drop_invite(const std::string& code_hash, Done done) {
  store_.drop_invite(code_hash, then_tell(tell_, "I", std::move(done)));
}

void NoticedRatingStore::put_rated_game(const std::vector<RatingRow>& ratings,
                                        const std::vector<RatingChange>& changes, Done done) {
  std::string notice = "R";
  for (const auto& r : ratings) notice += " " + r.player;
  store_.put_rated_game(ratings, changes, then_tell(tell_, std::move(notice), std::move(done)));
}

}  // namespace plateau::server::cluster
