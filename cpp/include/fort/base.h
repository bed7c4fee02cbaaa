// Shared pieces of the rules: the C++ twin of fort_env/rules/base.py.
#pragma once

#include <cstdint>

#include "fort/state.h"

namespace fort {

inline void set_decision(State& state, int64_t kind, int64_t player) {
    state.ctx[C_DECISION] = kind;
    state.ctx[C_ACTOR] = player;
}

}  // namespace fort
