// fort_env/rules/flow.py in C++ (phase 1: the start of a turn).
#include "fort/flow.h"

#include <algorithm>

#include "fort/base.h"

namespace fort {

void begin_turn(State& state) {
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    if (state.player(leader, P_TURNS) > 0) {  // Cleanup, skipped on the first turn (p.7)
        for (int c = 0; c < state.num_cards; ++c)
            if (state.zone[c] == Z_YARD && state.owner[c] == leader) state.zone[c] = Z_DISCARD;
    }
    state.ctx[C_PLAYS] = 0;
    to_play(state);
}

void to_play(State& state) {
    state.ctx[C_PLAYED_CARD] = -1;
    state.ctx[C_MODE] = -1;
    state.ctx[C_ANY_SUIT_PUBLIC] = state.ctx[C_ANY_SUIT_PRIVATE] = -1;
    state.ctx[C_LEADER_RESOURCE] = -1;
    state.ctx[C_TRASH_THIS] = 0;
    state.ctx[C_ROUGH_HOUSING] = -1;
    std::fill(state.mark.begin(), state.mark.end(), int8_t{0});
    std::fill(state.coin_as.begin(), state.coin_as.end(), int8_t{-1});
    std::fill(state.play_suits.begin(), state.play_suits.end(), int16_t{0});
    state.ctx[C_STAGE] = ST_PLAY;
    set_decision(state, K_PLAY, state.ctx[C_LEADER]);
}

}  // namespace fort
