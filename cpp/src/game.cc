// fort_env/game.py's facts in C++ (see include/fort/game.h): the checks at the boundary.
#include "fort/game.h"

#include <stdexcept>
#include <string>

namespace fort {

void Game::validate() const {
    // --- phase 1 (the deal)
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
    // --- end phase 1

    // --- rules (A)
    // --- end rules (A)

    // --- mask path (B)
    // --- end mask path (B)

    // --- views (C)
    // --- end views (C)
}

}  // namespace fort
