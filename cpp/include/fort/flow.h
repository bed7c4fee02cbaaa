// Turn flow: the C++ twin of fort_env/rules/flow.py (p.6-p.10). Phase 1 holds only what the
// deal needs: the start of a turn.
#pragma once

#include "fort/state.h"

namespace fort {

void begin_turn(State& state);
void to_play(State& state);

}  // namespace fort
