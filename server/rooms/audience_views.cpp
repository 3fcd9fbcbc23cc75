#include "server/rooms/audience_views.hpp"

#include <algorithm>

#include "protocol/messages.hpp"

namespace plateau::server {

using nlohmann::json;

void AudienceViews::build(const Scene& scene) {
  if (!built()) seen_ = current(scene);
}

void AudienceViews::clear() { seen_.clear(); }

std::optional<rules::Seat> AudienceViews::viewer_of(int a) const {
  if (a == spectators()) return std::nullopt;
  return a;
}

json AudienceViews::state_of(int a) const {
  const auto& seen = seen_[static_cast<std::size_t>(a)];
  return protocol::assemble_state(seen.envelope, seen.complete_board());
}

bool AudienceViews::board_is_private(int a, bool delayed, bool shared, const Scene& scene) const {
  const auto& previous = seen_[static_cast<std::size_t>(a)];
  if (previous.round != scene.round || previous.delayed != delayed || !previous.board ||
      previous.owner != a)
    return false;
  for (int b = 0; b < audiences_; ++b) {
    const bool holds = seen_[static_cast<std::size_t>(b)].board == previous.board;
    // Audience b will see this board (a's own, or its state's shared one): it must hold it,
    // and no other audience may, since they would see it change under them.
    const bool will_see = b == a || (shared && (b == spectators() && scene.delayed) == delayed);
    if (holds != will_see) return false;
  }
  return true;
}

bool AudienceViews::update_board(const rules::ViewParts& parts, const Seen& previous,
                                 std::optional<rules::Seat> viewer, std::string& ops) {
  rules::ViewParts::Update update;
  const bool updated = parts.update_view(*previous.board, viewer, previous.shown.get(), update);
  if (updated) protocol::append_view_update(ops, *previous.board, std::move(update), "/board");
  return updated;
}

std::vector<AudienceViews::Seen> AudienceViews::current(const Scene& scene) {
  std::vector<Seen> views(static_cast<std::size_t>(audiences_));
  // At most two states are shown (the game, and the spectators' delayed copy); each builds one
  // board for all its viewers unless its game shows viewers different boards.
  std::optional<int> shared[2];  // the audience whose board the others of its state share
  // Each state's view extension, looked up once rather than once per audience.
  const rules::ViewParts* parts_of[2] = {
      rules::view_parts(*scene.state), scene.delayed ? rules::view_parts(*scene.delayed) : nullptr};
  for (int a = 0; a < audiences_; ++a) {
    const bool delayed = a == spectators() && scene.delayed;
    const rules::State& st = delayed ? *scene.delayed : *scene.state;
    protocol::RoomFacts facts;
    facts.game = scene.game;
    const bool over = scene.ended || st.is_over();
    facts.status = !scene.started ? protocol::Status::waiting
                                  : (over ? protocol::Status::over : protocol::Status::playing);
    facts.seats = scene.seats;
    facts.rematch = scene.rematch;
    facts.round = scene.round;
    facts.options = scene.options;
    facts.fairness = over ? scene.revealed : scene.sealed;
    facts.ended = scene.ended;
    facts.offer = scene.offer;
    facts.clock = scene.clock;
    facts.gone = scene.gone;
    facts.left = scene.left;
    facts.rated = scene.rated;
    facts.chat = a == spectators() ? scene.chat_spectators : scene.chat_players;
    auto& v = views[static_cast<std::size_t>(a)];
    v.envelope = protocol::make_envelope(facts, st, viewer_of(a));
    v.board_generation = scene.generation;
    const auto previous =
        static_cast<std::size_t>(a) < seen_.size() ? &seen_[static_cast<std::size_t>(a)] : nullptr;
    // Borrows the board of `from`, but not its operations: they led to a version already sent.
    const auto take_board = [&v](const Seen& from, bool with_ops) {
      v.board = from.board;
      v.fixed = from.fixed;
      v.owner = from.owner;
      v.round = from.round;
      v.line = from.line;
      v.delayed = from.delayed;
      v.shown = from.shown;
      if (with_ops) v.board_ops = from.board_ops;
    };
    if (previous && previous->board_generation == scene.generation) {
      take_board(*previous, false);  // nothing that shows on a board changed
      continue;
    }
    const rules::ViewParts* parts = parts_of[delayed];
    const bool per_viewer = !parts || parts->view_depends_on_viewer();
    if (!per_viewer && shared[delayed]) {
      take_board(views[static_cast<std::size_t>(*shared[delayed])], true);
      continue;
    }
    if (parts) v.fixed = parts->fixed_view();
    v.owner = a;
    v.round = scene.round;
    v.line = scene.line;
    v.delayed = delayed;
    const auto viewer = per_viewer ? viewer_of(a) : std::nullopt;
    // A board is brought up to date only from a position of the same line: a takeback goes
    // back, and an update in place only ever goes forward.
    if (parts && previous && previous->fixed == v.fixed && previous->line == scene.line &&
        board_is_private(a, delayed, !per_viewer, scene)) {
      std::string ops;
      if (update_board(*parts, *previous, viewer, ops)) {
        v.board = previous->board;
        v.board_ops = std::make_shared<const std::string>(std::move(ops));
      }
    }
    if (!v.board)
      v.board = std::make_shared<json>(parts ? parts->changing_view(viewer) : st.view(viewer));
    if (parts) v.shown = parts->shown();
    if (!per_viewer) shared[delayed] = a;
  }
  return views;
}

std::vector<std::pair<int, Frame>> AudienceViews::advance(const Scene& scene, std::string_view room,
                                                          std::int64_t version) {
  auto next = current(scene);
  // Board diffs computed so far: audiences that saw the same board and now see the same board
  // get the same operations.
  struct BoardDiff {
    const json* from;
    const json* to;
    std::string ops;
  };
  std::vector<BoardDiff> board_diffs;
  std::vector<std::pair<int, Frame>> frames;
  frames.reserve(static_cast<std::size_t>(audiences_));
  for (int a = 0; a < audiences_; ++a) {
    const auto& before = seen_[static_cast<std::size_t>(a)];
    const auto& after = next[static_cast<std::size_t>(a)];
    std::string ops = "[";
    protocol::append_envelope_diff(ops, before.envelope, after.envelope);
    if (after.board_ops) {  // brought up to date in place: the operations are already written
      if (!after.board_ops->empty()) {
        if (ops.size() > 1) ops += ',';
        ops += *after.board_ops;
      }
    } else if (before.board != after.board) {
      auto it = std::ranges::find_if(board_diffs, [&](const BoardDiff& d) {
        return d.from == before.board.get() && d.to == after.board.get();
      });
      if (it == board_diffs.end()) {
        std::string board_ops;
        if (before.fixed == after.fixed)  // the same object: nothing in it changed
          protocol::append_diff(board_ops, *before.board, *after.board, "/board");
        else  // a new round whose fixed part may differ
          protocol::append_diff(board_ops, before.complete_board(), after.complete_board(),
                                "/board");
        board_diffs.push_back({before.board.get(), after.board.get(), std::move(board_ops)});
        it = board_diffs.end() - 1;
      }
      if (!it->ops.empty()) {
        if (ops.size() > 1) ops += ',';
        ops += it->ops;
      }
    }
    ops += ']';
    frames.emplace_back(a, make_frame(protocol::encode_patch_text(room, version, ops)));
  }
  retire(std::exchange(seen_, std::move(next)), seen_);
  return frames;
}

void AudienceViews::retire(std::vector<Seen>&& old, const std::vector<Seen>& now) {
  if (!reaper_) return;  // freed by the caller
  // Whether a view of `now` shows what `held` points to, as its `member`.
  const auto shows = [&now](auto member, const auto& held) {
    return std::ranges::any_of(now, [&](const Seen& v) { return v.*member == held; });
  };
  // The audiences that borrowed a board let go of it first, so that its owner hands over the
  // last reference and it is freed on the reaper's thread. A fixed part is the position's too,
  // which may outlive it: the reaper then only lets go of that reference.
  for (std::size_t a = 0; a < old.size(); ++a) {
    if (old[a].owner == static_cast<int>(a)) continue;
    old[a].board.reset();
    old[a].fixed.reset();
    old[a].shown.reset();
  }
  for (auto& v : old) {
    if (v.board && !shows(&Seen::board, v.board)) reaper_->retire(std::move(v.board));
    if (v.fixed && !shows(&Seen::fixed, v.fixed)) reaper_->retire(std::move(v.fixed));
    if (v.shown && !shows(&Seen::shown, v.shown)) reaper_->retire(std::move(v.shown));
  }
}

}  // namespace plateau::server
