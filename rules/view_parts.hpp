// An optional extension of a State, for a server that keeps each viewer's board from move to
// move and sends only what changed (protocol/view.cpp diffs two boards). A game implements it
// to say how its board may be shared, split and updated, so that the server builds, compares
// and frees less at every move. It never changes what a viewer sees: a viewer's board is always
// State::view(viewer), which a game with this extension writes as whole_view(viewer).
//
// The server finds the extension with view_parts(state). A game without it gets one board per
// viewer, built whole at every change and diffed by the protocol. Each game keeps its
// implementation in rules/<game>/<game>_view.cpp, apart from its rules.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "game.hpp"

namespace plateau::rules {

class ViewParts {
 public:
  virtual ~ViewParts() = default;

  // Whether the board can differ from one viewer to another. A game that shows every viewer
  // the same board says false, and the server builds and diffs one board for all of them. The
  // conformance suite checks every game that says false.
  virtual bool view_depends_on_viewer() const = 0;
  // The part of the board no move changes and every viewer sees alike (a board's geometry,
  // say): a JSON object, or null for none. A server keeps it as one shared object, puts it into
  // every full state and never rebuilds or diffs it while it stays the same object.
  virtual std::shared_ptr<const nlohmann::json> fixed_view() const { return nullptr; }
  // The rest of the board. None of its keys is one of fixed_view()'s.
  virtual nlohmann::json changing_view(std::optional<Seat> viewer) const = 0;

  // What update_view did to a board: the members it added or replaced in place, and the
  // top-level keys it built afresh instead.
  struct Update {
    struct Edit {
      bool added = false;   // a new object member or a new last array element; else replaced
      std::string pointer;  // JSON pointer from the board's root, e.g. "/tiles/12"
    };
    std::vector<Edit> edits;                         // in order; none removes anything
    nlohmann::json rest = nlohmann::json::object();  // key -> its value now; each an existing key

    // Grows `array`, at `pointer` on the board, to `count` items, each new one make(index), and
    // lists each as added: the lists games only ever append to.
    template <class Make>
    void append(nlohmann::json& array, std::size_t count, const std::string& pointer, Make&& make) {
      for (std::size_t i = array.size(); i < count; ++i) {
        array.push_back(make(i));
        edits.push_back({true, pointer + "/" + std::to_string(i)});
      }
    }
  };

  // What a game keeps of the position a board shows, in a type of its own derived from this,
  // for a game that finds the next position's changes faster in its own typed data than on the
  // board's nodes. The server keeps it beside the board and hands it back to update_view; the
  // rules never see it.
  struct Shown {
    virtual ~Shown() = default;
  };
  // This position's Shown, or nullptr (the default) for a game that keeps none.
  virtual std::shared_ptr<const Shown> shown() const { return nullptr; }

  // Brings `board`, changing_view(viewer) of an earlier position of this same game, up to this
  // position in place, so that a long board is not built, compared and freed whole at every
  // move: afterwards `board` with `rest`'s keys set is exactly changing_view(viewer). `shown`
  // is what shown() said of the position `board` shows, or nullptr when nothing was kept. A
  // game checks on `board` itself that it can (the earlier position may be any number of moves
  // back); when it cannot it returns false and leaves `board` untouched, and the server builds
  // the board afresh. The default always declines. The conformance suite checks every game.
  virtual bool update_view(nlohmann::json& board, std::optional<Seat> viewer, const Shown* shown,
                           Update& update) const {
    (void)board, (void)viewer, (void)shown, (void)update;
    return false;
  }

  // changing_view(viewer) with fixed_view()'s keys added: State::view(viewer).
  nlohmann::json whole_view(std::optional<Seat> viewer) const {
    return complete_view(changing_view(viewer), fixed_view().get());
  }
  // `changing` with the keys of `fixed` (an object, or null for none) added.
  static nlohmann::json complete_view(nlohmann::json changing, const nlohmann::json* fixed);
};

// The extension of `state`, or nullptr for a game that has none.
inline const ViewParts* view_parts(const State& state) {
  return dynamic_cast<const ViewParts*>(&state);
}

// Helpers for building a board and bringing it up to date (game.hpp has list_of and object_of).
// `board`'s member `key` when it has type `type`; nullptr when it is missing or of another
// type: for update_view, which must check the board it is given before it changes it.
nlohmann::json* member_of(nlohmann::json& board, std::string_view key,
                          nlohmann::json::value_t type);

// The JSON array [element(0), ..., element(n - 1)].
template <class Element>
nlohmann::json array_of(std::size_t n, Element element) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) list.push_back(element(i));
  return list;
}

}  // namespace plateau::rules
