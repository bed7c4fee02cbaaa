// fort_env/game/state_arrays.py in C++ (see include/fort/game/state.h).
#include "fort/game/state.h"

#include <cstring>
#include <utility>

namespace fort {

namespace {

// Calls f(pointer, bytes) for every array of the state and ctx, in state_arrays.ARRAYS' order.
template <typename F>
void for_each_array(const State& s, F&& f) {
    const auto bytes = [&f](const auto& v) { f(v.data(), v.size() * sizeof(v[0])); };
    bytes(s.zone);
    bytes(s.owner);
    bytes(s.pos);
    bytes(s.mark);
    bytes(s.coin_as);
    bytes(s.players);
    bytes(s.rule_loc);
    bytes(s.perk_loc);
    bytes(s.play_suits);
    bytes(s.prog);
    bytes(s.done);
    bytes(s.ctx);
}

}  // namespace

void state_bytes(const State& s, std::vector<uint8_t>& out) {
    std::size_t n = 0;
    for_each_array(s, [&n](const void*, std::size_t k) { n += k; });
    out.resize(n);
    uint8_t* dst = out.data();
    for_each_array(s, [&dst](const void* p, std::size_t k) {
        if (k) std::memcpy(dst, p, k);
        dst += k;
    });
}

bool same_bytes(const State& s, const std::vector<uint8_t>& bytes) {
    std::size_t at = 0;
    bool same = true;
    for_each_array(s, [&](const void* p, std::size_t k) {
        same = same && at + k <= bytes.size() && (k == 0 || std::memcmp(bytes.data() + at, p, k) == 0);
        at += k;
    });
    return same && at == bytes.size();
}

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
