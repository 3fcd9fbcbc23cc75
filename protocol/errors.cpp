#include "errors.hpp"
#include "rule_errors.hpp"

namespace plateau::protocol {

std::string_view code_string(Code c) {
  switch (c) {
    case Code::bad_json:
      return "proto/bad_json";
    case Code::too_large:
      return "proto/too_large";
    case Code::too_deep:
      return "proto/too_deep";
    case Code::unknown_type:
      return "proto/unknown_type";
    case Code::bad_field:
      return "proto/bad_field";
    case Code::rate_limited:
      return "proto/rate_limited";
    case Code::no_hello:
      return "proto/no_hello";
    case Code::unknown_game:
      return "room/unknown_game";
    case Code::bad_option:
      return "room/bad_option";
    case Code::room_not_found:
      return "room/not_found";
    case Code::room_full:
      return "room/full";
    case Code::seat_taken:
      return "room/seat_taken";
    case Code::no_such_seat:
      return "room/no_such_seat";
    case Code::not_in_room:
      return "room/not_in_room";
    case Code::too_many_rooms:
      return "room/too_many";
    case Code::too_many_yours:
      return "room/too_many_yours";
    case Code::full_audience:
      return "room/full_audience";
    case Code::room_unavailable:
      return "room/unavailable";
    case Code::game_over:
      return "move/game_over";
    case Code::not_your_turn:
      return "move/not_your_turn";
    case Code::illegal_move:
      return "move/illegal";
    case Code::stale_version:
      return "move/stale_version";
    case Code::not_a_player:
      return "move/not_a_player";
    case Code::not_started:
      return "move/not_started";
    case Code::rematch_not_over:
      return "rematch/not_over";
    case Code::rate_creates:
      return "rate/creates";
    case Code::rate_hello:
      return "rate/hello";
    case Code::store_unavailable:
      return "store/unavailable";
    case Code::bot_level:
      return "bot/unknown_level";
    case Code::bot_not_allowed:
      return "bot/not_allowed";
    case Code::bot_started:
      return "bot/started";
    case Code::bot_limit:
      return "bot/limit";
    case Code::bot_unavailable:
      return "bot/unavailable";
    case Code::bot_none:
      return "bot/not_a_bot";
    case Code::resign_many_seats:
      return "resign/many_seats";
    case Code::draw_two_seats:
      return "draw/two_seats";
    case Code::draw_offered:
      return "draw/offered";
    case Code::draw_no_offer:
      return "draw/no_offer";
    case Code::clock_two_seats:
      return "clock/two_seats";
    case Code::move_flagged:
      return "move/flagged";
    case Code::claim_not_gone:
      return "claim/not_gone";
    case Code::claim_many_seats:
      return "claim/many_seats";
    case Code::left_round:
      return "round/left";
    case Code::offer_pending:
      return "offer/pending";
    case Code::takeback_game:
      return "takeback/not_in_game";
    case Code::takeback_timed:
      return "takeback/timed";
    case Code::takeback_nothing:
      return "takeback/nothing";
    case Code::takeback_none:
      return "takeback/none_asked";
    case Code::account_disabled:
      return "account/disabled";
    case Code::signed_out:
      return "account/signed_out";
    case Code::rated_accounts:
      return "rated/accounts_only";
    case Code::rated_no_bots:
      return "rated/no_bots";
    case Code::chat_off:
      return "chat/off";
    case Code::chat_text:
      return "chat/bad_text";
    case Code::chat_rate:
      return "chat/rate";
    case Code::chat_muted:
      return "chat/muted";
    case Code::chat_full:
      return "chat/full";
    case Code::internal_error:
      return "internal/error";
    case Code::internal:
      return "server/internal";
  }
  return "server/internal";
}

Code code_for(rules::RuleError e) {
  switch (e) {
    case rules::RuleError::game_over:
      return Code::game_over;
    case rules::RuleError::not_your_turn:
      return Code::not_your_turn;
    case rules::RuleError::illegal_move:
      return Code::illegal_move;
    case rules::RuleError::bad_option:
      return Code::bad_option;
  }
  return Code::illegal_move;
}

}  // namespace plateau::protocol
