#include "server/rooms/bot_seat.hpp"

#include <algorithm>
#include <cctype>

#include "server/rooms/room.hpp"

namespace plateau::server {

std::string bot_player_id(bots::Level level, std::string_view random_hex, int ordinal) {
  std::string id = "bot-" + std::string(bots::spec(level).name) + "-";
  if (ordinal > 1) id += std::to_string(ordinal) + "-";
  return id + std::string(random_hex);
}

std::string bot_name(std::string_view player_id) {
  const auto level = bot_level_in(player_id);
  if (!level || level->empty()) return "Bot";
  std::string name(*level);
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  name += " bot";
  // "bot-<level>-<n>-<hex>": the n-th bot of that level at its table.
  const auto rest = player_id.substr(4 + level->size() + 1);
  const auto dash = rest.find('-');
  if (dash != std::string_view::npos && dash > 0 && dash <= 2 &&
      std::ranges::all_of(rest.substr(0, dash), [](char c) { return c >= '0' && c <= '9'; }))
    name += " " + std::string(rest.substr(0, dash));
  return name;
}

std::optional<bots::Level> bot_level_of(std::string_view player_id) {
  const auto level = bot_level_in(player_id);
  return level ? bots::level_named(*level) : std::nullopt;
}

BotSeat::BotSeat(Player player, bots::Level level, BotHouse& house, Submit submit,
                 std::uint64_t seed)
    : level_(level), house_(house), submit_(std::move(submit)), seed_(seed) {
  set_player(std::move(player));
}

void BotSeat::send(const Frame&) {
  // The room is in the middle of a change: look once it is made, and once however many frames
  // the change sends.
  if (looking_ || !house_.background) return;
  looking_ = true;
  house_.background->post([weak = weak_from_this()] {
    if (const auto self = weak.lock()) {
      self->looking_ = false;
      self->look();
    }
  });
}

void BotSeat::look() {
  const auto room = room_.lock();
  if (!room || room->failed() || thinking_ || refused_ >= 3) return;
  const auto seat = stand_in_ ? stand_in_ : room->seat_of(player()->id);
  if (!seat) return;
  const rules::State& state = room->state();
  if (room->status() == protocol::Status::over) {
    if (stand_in_) return;  // its round is over: the seat is its player's again
    // Always up for another round, once a person asked: bots alone never play on for ever.
    const auto& asked = room->rematch_asked();
    bool person_asked = false, me_asked = false;
    const auto seated = room->seated();
    for (std::size_t s = 0; s < seated.size() && s < asked.size(); ++s) {
      if (static_cast<int>(s) == *seat)
        me_asked = asked[s];
      else if (asked[s] && seated[s].first && !bot_level_in(*seated[s].first))
        person_asked = true;
    }
    if (person_asked && !me_asked)
      submit_(shared_from_this(), protocol::Request{nullptr, protocol::Rematch{room->id()}});
    return;
  }
  // A bot never holds up a takeback its opponent asks for: it agrees (and thinks again).
  if (!stand_in_ && room->takeback_asked_of(*seat)) {
    submit_(
        shared_from_this(),
        protocol::Request{nullptr, protocol::Takeback{room->id(), protocol::DrawAction::accept}});
    return;
  }
  if (room->status() != protocol::Status::playing || state.to_move() != *seat) return;
  thinking_ = true;
  const Turn turn{room->round(), room->moves_made()};
  // The search runs on a copy: the room's own state never leaves the loop.
  std::shared_ptr<const rules::State> position = state.clone();
  seed_ = seed_ * 6364136223846793005ULL + 1442695040888963407ULL;
  house_.background->run(
      [position, game = std::string(room->game_id()), level = level_, seed = seed_,
       cap = house_.max_think, weak = weak_from_this(), turn]() -> Background::OnLoop {
        const auto start = std::chrono::steady_clock::now();
        auto move = bots::choose(game, *position, level, seed, bots::steady_now(), cap);
        const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - start);
        return [weak, turn, move = std::move(move), took] {
          if (const auto self = weak.lock()) self->play(turn, move, took);
        };
      },
      [weak = weak_from_this()](const std::string&) {
        if (const auto self = weak.lock()) {
          self->thinking_ = false;
          ++self->house_.failures;
        }
      });
}

void BotSeat::play(Turn turn, const std::expected<rules::Move, bots::SearchError>& move,
                   std::chrono::microseconds took) {
  thinking_ = false;
  ++house_.thoughts;
  house_.think_us += static_cast<std::uint64_t>(took.count());
  const auto room = room_.lock();
  if (!room) return;
  if (!move) {
    ++house_.failures;
    return;
  }
  // The game moved on while the bot thought (it cannot here, but a round may have been
  // replaced): think again from where it is.
  // (A resignation or an agreed draw ends it as the bot thinks.)
  if (room->round() != turn.round || room->moves_made() != turn.moves ||
      room->status() != protocol::Status::playing)
    return look();
  submit_(
      shared_from_this(),
      protocol::Request{nullptr, protocol::MoveRequest{room->id(), room->version(), move->text}});
  if (room->round() == turn.round && room->moves_made() == turn.moves) {
    // Refused (the room failed, or a bug): try a few times, then leave the seat to its clock.
    ++refused_;
    ++house_.failures;
    return look();
  }
  refused_ = 0;
  ++house_.moves;
}

}  // namespace plateau::server
