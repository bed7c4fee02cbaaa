// C++ unit tests of the core (run by ctest; scripts/sanitize.sh runs them under ASan/UBSan).
// The same test vectors as tests/test_rng.py; the deal checked by its properties on a small
// made-up card set (tests/differential/test_deal.py compares it with Python's deal exactly).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "fort/constants.h"
#include "fort/game/rng.h"
#include "fort/game/state.h"
#include "fort/rules/deal.h"

#include "check.h"

namespace {

using fort_test::check;

void test_rng_vectors() {
    using fort::EventRng;
    using fort::GAMMA;
    check(fort::mix(GAMMA) == 0xE220A8397B1DCDAFULL, "mix(GAMMA)");
    check(fort::mix(2 * GAMMA) == 0x6E789E6AA1B965F4ULL, "mix(2 * GAMMA)");
    EventRng r(0, 0);
    check(r.next_u64() == 0x568A9B0B1A2C05ECULL, "EventRng(0, 0) draw 1");
    check(r.next_u64() == 0x44E5B8B147EF718BULL, "EventRng(0, 0) draw 2");
    check(r.next_u64() == 0x458563AB55521133ULL, "EventRng(0, 0) draw 3");
    const std::vector<int64_t> want{7, 3, 5, 8, 1, 9, 6, 2, 0, 4};
    check(EventRng(42, 7).permutation(10) == want, "EventRng(42, 7).permutation(10)");
    EventRng b((uint64_t{1} << 62) - 1, 3);
    const uint64_t x = b.below(5), y = b.below(5), z = b.below(5);
    check(x == 0 && y == 2 && z == 0, "EventRng(2**62 - 1, 3).below(5) x3");
    check(EventRng(1, 1).permutation(0).empty(), "permutation(0) is empty");
    check(EventRng(1, 1).permutation(-3).empty(), "permutation(-3) is empty");
    EventRng c(9, 9);
    for (int i = 0; i < 1000; ++i) {
        const uint64_t n = (uint64_t{1} << 63) + 1;  // about half the draws are rejected
        check(c.below(n) < n, "below(2**63 + 1) in range");
    }
}

// A small card set: `park` Park cards, then two Best Friends on each of 4 boards.
std::shared_ptr<const fort::Game> small_game(int num_players, bool advanced, int park) {
    auto gp = std::make_shared<fort::Game>();
    fort::Game& g = *gp;
    g.num_players = num_players;
    g.advanced = advanced;
    for (int i = 0; i < park; ++i) {
        g.is_best_friend.push_back(0);
        g.card_board.push_back(-1);
    }
    for (int b = 0; b < 4; ++b) {
        for (int k = 0; k < 2; ++k) {
            g.is_best_friend.push_back(1);
            g.card_board.push_back(b);
        }
    }
    for (int p = 0; p < num_players; ++p) g.seat_board.push_back(p);
    g.num_cards = static_cast<int>(g.is_best_friend.size());
    g.validate();
    return gp;
}

int count(const fort::State& s, int zone, int owner) {
    int n = 0;
    for (int c = 0; c < s.num_cards; ++c) n += (s.zone[c] == zone && s.owner[c] == owner);
    return n;
}

void test_deal_properties() {
    for (int n = 2; n <= 4; ++n) {
        for (int adv = 0; adv <= 1; ++adv) {
            for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{12345},
                                  (uint64_t{1} << 62) - 1}) {
                const auto g = small_game(n, adv != 0, 60);
                const fort::State s = fort::new_state(g, seed, -1);
                const std::string tag = " (n=" + std::to_string(n) + ", adv=" +
                                        std::to_string(adv) + ", seed=" + std::to_string(seed) +
                                        ")";
                const fort::State again = fort::new_state(g, seed, -1);
                check(s.zone == again.zone && s.pos == again.pos && s.ctx == again.ctx,
                      "deterministic" + tag);
                check(s.game == g && again.game == g, "the state shares its game" + tag);
                fort::State copy = s;  // a clone: arrays copied, the game shared
                copy.zone[0] = static_cast<int8_t>(copy.zone[0] + 1);
                check(copy.game == g && copy.zone[0] != s.zone[0], "copies are independent" + tag);
                const int64_t first = s.ctx[fort::C_FIRST_PLAYER];
                check(first >= 0 && first < n, "first player in range" + tag);
                check(count(s, fort::Z_PARK, -1) == fort::PARK_SIZE, "3 cards in the Park" + tag);
                for (int p = 0; p < n; ++p) {
                    if (adv) {
                        check(count(s, fort::Z_DRAFT_PACK, p) == fort::STARTING_KIDS,
                              "8 cards to draft" + tag);
                        check(count(s, fort::Z_DECK, p) == 2, "2 Best Friends in the deck" + tag);
                    } else {
                        check(count(s, fort::Z_HAND, p) == fort::HAND_SIZE, "hand of 5" + tag);
                        check(count(s, fort::Z_DECK, p) == fort::STARTING_KIDS + 2 - 5,
                              "deck of 5" + tag);
                        std::set<int> order;
                        for (int c = 0; c < s.num_cards; ++c)
                            if (s.owner[c] == p && (s.zone[c] == fort::Z_DECK ||
                                                    s.zone[c] == fort::Z_HAND))
                                order.insert(s.pos[c]);
                        check(order.size() == 10 && *order.begin() == 0 && *order.rbegin() == 9,
                              "deck order is a permutation of 0..9" + tag);
                    }
                }
                check(count(s, fort::Z_OUT_OF_GAME, -1) == 2 * (4 - n),
                      "unused boards' friends out of the game" + tag);
                const auto in_stack = [](const std::vector<int8_t>& v) {
                    return std::count(v.begin(), v.end(), static_cast<int8_t>(fort::IN_STACK));
                };
                check(in_stack(s.rule_loc) == n + 1, "N+1 made-up rules" + tag);
                check(in_stack(s.perk_loc) == n + 1, "N+1 perks" + tag);
                check(s.ctx[fort::C_SHUFFLES] == (adv ? 1 : 2), "events counted" + tag);
                check(s.ctx[fort::C_STAGE] == (adv ? fort::ST_DRAFT : fort::ST_PLAY),
                      "stage" + tag);
                check(s.ctx[fort::C_ACTOR] == first, "first player acts" + tag);
            }
        }
    }
    const auto g = small_game(3, false, 40);
    check(fort::new_state(g, 5, 2).ctx[fort::C_LEADER] == 2, "given first player leads");
}

// state_bytes / same_bytes, which the legal-action cache (LegalCache) trusts: one changed
// byte in any array or ctx makes the position differ; a copy of a State starts with an empty
// cache.
void test_state_bytes() {
    fort::State s = fort::new_state(small_game(3, false, 30), 5, -1);
    std::vector<uint8_t> bytes;
    fort::state_bytes(s, bytes);
    check(fort::same_bytes(s, bytes), "state_bytes: a state equals its own bytes");
    const auto flip = [&](auto& v, const char* name) {
        if (v.empty()) return;
        const std::size_t i = v.size() - 1;  // the last entry: a key cut short would miss it
        v[i] = static_cast<std::decay_t<decltype(v[i])>>(v[i] + 1);
        check(!fort::same_bytes(s, bytes), std::string("same_bytes sees a write to ") + name);
        v[i] = static_cast<std::decay_t<decltype(v[i])>>(v[i] - 1);
        check(fort::same_bytes(s, bytes), std::string("same_bytes after undoing ") + name);
    };
    flip(s.zone, "zone");
    flip(s.owner, "owner");
    flip(s.pos, "pos");
    flip(s.mark, "mark");
    flip(s.coin_as, "coin_as");
    flip(s.players, "players");
    flip(s.rule_loc, "rule_loc");
    flip(s.perk_loc, "perk_loc");
    flip(s.play_suits, "play_suits");
    flip(s.prog, "prog");
    flip(s.done, "done");
    flip(s.ctx, "ctx");
    std::vector<uint8_t> shorter(bytes.begin(), bytes.end() - 1);
    check(!fort::same_bytes(s, shorter), "same_bytes: bytes of another length differ");

    s.legal_cache.valid = true;
    s.legal_cache.legal = {1, 2, 3};
    s.legal_cache.position = bytes;
    const fort::State copy = s;
    check(!copy.legal_cache.valid && copy.legal_cache.legal.empty(),
          "a copied State starts with an empty legal-action cache");
    fort::State assigned = fort::new_state(small_game(3, false, 30), 6, -1);
    assigned.legal_cache.valid = true;
    assigned = s;
    check(!assigned.legal_cache.valid, "copy-assignment leaves the legal-action cache invalid");
}

}  // namespace

int main() {
    test_rng_vectors();
    test_deal_properties();
    test_state_bytes();
    return fort_test::report();
}
