// The one mapping of errors to the wire (protocol/errors.hpp).
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "protocol/rule_errors.hpp"
#include "rules/game.hpp"

using namespace plateau;
using protocol::Code;

TEST(Errors, RuleRefusalsMapToTheirWireCodes) {
  const auto wire = [](rules::RuleError e) {
    return std::string(protocol::code_string(protocol::code_for(e)));
  };
  EXPECT_EQ(wire(rules::RuleError::game_over), "move/game_over");
  EXPECT_EQ(wire(rules::RuleError::not_your_turn), "move/not_your_turn");
  EXPECT_EQ(wire(rules::RuleError::illegal_move), "move/illegal");
  EXPECT_EQ(wire(rules::RuleError::bad_option), "room/bad_option");
}

TEST(Errors, EveryCodeHasItsOwnString) {
  std::set<std::string> seen;
  for (int c = 0; c <= static_cast<int>(Code::internal); ++c) {
    const std::string s(protocol::code_string(static_cast<Code>(c)));
    EXPECT_NE(s.find('/'), std::string::npos) << s;
    EXPECT_TRUE(seen.insert(s).second) << s << " twice";
  }
  EXPECT_EQ(protocol::code_string(Code::internal), "server/internal");
  EXPECT_EQ(protocol::code_string(Code::store_unavailable), "store/unavailable");
}
