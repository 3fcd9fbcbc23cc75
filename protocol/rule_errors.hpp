// The wire code of each refusal by the rules. Defined in errors.cpp beside code_string, so the
// server maps every error, its own and the rules', in one place.
#pragma once

#include "protocol/errors.hpp"
#include "rules/game.hpp"

namespace plateau::protocol {

Code code_for(rules::RuleError e);

}  // namespace plateau::protocol
