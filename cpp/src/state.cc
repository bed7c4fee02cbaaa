// fort_env/state_arrays.py in C++ (see include/fort/state.h).
#include "fort/state.h"

#include <utility>

namespace fort {

State empty_state(std::shared_ptr<const Game> game) {
    State s;
    s.num_cards = game->num_cards;
    s.num_players = game->num_players;
    const auto c = static_cast<size_t>(game->num_cards);
    s.zone.assign(c, 0);
    s.owner.assign(c, -1);
    s.pos.assign(c, 0);
    s.mark.assign(c, 0);
    s.coin_as.assign(c, -1);
    s.players.assign(static_cast<size_t>(game->num_players * NUM_PLAYER_FIELDS), 0);
    s.rule_loc.assign(NUM_MADE_UP_RULES, 0);
    s.perk_loc.assign(NUM_PERKS, 0);
    s.play_suits.assign(NUM_SUITS, 0);
    s.prog.assign(MAX_STEPS * PROG_COLUMNS, 0);
    s.done.assign(MAX_STEPS, 0);
    for (int64_t i = 0; i < NUM_CTX; ++i) s.ctx[i] = CTX_DEFAULT[i];
    s.game = std::move(game);
    return s;
}

}  // namespace fort
