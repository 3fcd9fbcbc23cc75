// Stable error codes of the wire protocol (PROTOCOL.md, "Errors"). Clients match on the code;
// the message is for people and may change.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace plateau::protocol {

enum class Code {
  bad_json,           // proto/bad_json: not JSON, or not an object
  too_large,          // proto/too_large: frame over the size limit
  too_deep,           // proto/too_deep: JSON nested deeper than the limit
  unknown_type,       // proto/unknown_type
  bad_field,          // proto/bad_field: a field missing or of the wrong type
  rate_limited,       // proto/rate_limited
  no_hello,           // proto/no_hello: a request before hello
  unknown_game,       // room/unknown_game
  bad_option,         // room/bad_option
  room_not_found,     // room/not_found
  room_full,          // room/full
  seat_taken,         // room/seat_taken
  no_such_seat,       // room/no_such_seat
  not_in_room,        // room/not_in_room
  too_many_rooms,     // room/too_many
  too_many_yours,     // room/too_many_yours: the player has as many open rooms of their own as they
                      // may
  full_audience,      // room/full_audience: the room has as many spectators as it may
  room_unavailable,   // room/unavailable: the store failed; the room takes no more moves
  game_over,          // move/game_over
  not_your_turn,      // move/not_your_turn
  illegal_move,       // move/illegal
  stale_version,      // move/stale_version
  not_a_player,       // move/not_a_player: a spectator (or a stranger) tried to move
  not_started,        // move/not_started: the seats are not all filled yet
  rematch_not_over,   // rematch/not_over
  rate_creates,       // rate/creates: this address created as many rooms this minute as it may
  rate_hello,         // rate/hello: this address made as many new players this minute as it may
  store_unavailable,  // store/unavailable: the store could not write; the change was not made
  bot_level,          // bot/unknown_level: no bot level of that name
  bot_not_allowed,    // bot/not_allowed: only a player at the table or its creator adds a bot
  bot_started,        // bot/started: the game has started; bots sit only at a table waiting
  bot_limit,          // bot/limit: the server runs as many bot games as it may
  bot_unavailable,    // bot/unavailable: this server runs no bots
  bot_none,           // bot/not_a_bot: no bot sits at that seat
  resign_many_seats,  // resign/many_seats: the server runs no bots to play for who leaves
  draw_two_seats,     // draw/two_seats: draws are agreed in games of two seats only
  draw_offered,       // draw/offered: the player's own offer stands already
  draw_no_offer,      // draw/no_offer: no draw is offered to the player
  clock_two_seats,    // clock/two_seats: of more seats, only with bots to play for who leaves
  move_flagged,       // move/flagged: the mover's time ran out before the move came
  claim_not_gone,     // claim/not_gone: the player to move is not gone, or not for long enough
  claim_many_seats,   // claim/many_seats: the server runs no bots to play for who is dropped
  left_round,         // round/left: the player left this round; a bot plays their seat
  offer_pending,      // offer/pending: another offer or request stands; answer it first
  takeback_game,      // takeback/not_in_game: this game draws or hides things; no takebacks
  takeback_timed,     // takeback/timed: takebacks are for casual tables, without a clock
  takeback_nothing,   // takeback/nothing: the player has no move in this round to take back
  takeback_none,      // takeback/none_asked: no takeback is asked of the player
  account_disabled,   // account/disabled: the host disabled this account; it may not sit or create
  signed_out,         // account/signed_out: the session this connection signed in with has ended
  rated_accounts,  // rated/accounts_only: rated tables are for accounts; sign in to create or sit
  rated_no_bots,   // rated/no_bots: bots do not sit at rated tables
  chat_off,        // chat/off: this table (or this server) has no chat
  chat_text,       // chat/bad_text: blank, too long, a control character, or no such phrase
  chat_rate,       // chat/rate: too many messages from this person; wait a little
  chat_muted,      // chat/muted: the host muted this account
  chat_full,       // chat/full: the table's chat holds as many messages as it may
  seat_reserved,   // seat/reserved: this table's seats are a tournament's, each for one player
  tournament_not_found,    // tournament/not_found
  tournament_closed,       // tournament/closed: registration is over (or the event was cancelled)
  tournament_full,         // tournament/full: the event has as many players as it may
  tournament_accounts,     // tournament/accounts_only: the event takes accounts only; sign in
  tournament_unavailable,  // tournament/unavailable: (a cluster) no node directs the events just
                           // now; try again in a few seconds
  internal_error,          // internal/error: the server failed while handling the message (logged)
  internal,                // server/internal (kept last: tests walk the codes up to it)
};

std::string_view code_string(Code c);

struct Error {
  Code code;
  std::string message;
  nlohmann::json id;  // the request's id, or null
};

}  // namespace plateau::protocol
