// fort_env/state_arrays.py in C++ (see include/fort/state.h).
#include "fort/state.h"

#include <stdexcept>
#include <string>

namespace fort {

void GameTables::validate() const {
    if (num_players < MIN_PLAYERS || num_players > MAX_PLAYERS)
        throw std::invalid_argument("num_players must be 2, 3 or 4, got " +
                                    std::to_string(num_players));
    if (num_cards < 0 || num_cards > 32767)
        throw std::invalid_argument("num_cards must be in [0, 32767], got " +
                                    std::to_string(num_cards));
    if (is_best_friend.size() != static_cast<size_t>(num_cards) ||
        card_board.size() != static_cast<size_t>(num_cards))
        throw std::invalid_argument("is_best_friend and card_board need num_cards entries");
    if (seat_board.size() != static_cast<size_t>(num_players))
        throw std::invalid_argument("seat_board needs num_players entries");
}

State empty_state(const GameTables& game) {
    State s;
    s.num_cards = game.num_cards;
    s.num_players = game.num_players;
    const auto c = static_cast<size_t>(game.num_cards);
    s.zone.assign(c, 0);
    s.owner.assign(c, -1);
    s.pos.assign(c, 0);
    s.mark.assign(c, 0);
    s.coin_as.assign(c, -1);
    s.players.assign(static_cast<size_t>(game.num_players * NUM_PLAYER_FIELDS), 0);
    s.rule_loc.assign(NUM_MADE_UP_RULES, 0);
    s.perk_loc.assign(NUM_PERKS, 0);
    s.play_suits.assign(NUM_SUITS, 0);
    s.prog.assign(MAX_STEPS * PROG_COLUMNS, 0);
    s.done.assign(MAX_STEPS, 0);
    for (int64_t i = 0; i < NUM_CTX; ++i) s.ctx[i] = CTX_DEFAULT[i];
    return s;
}

}  // namespace fort
