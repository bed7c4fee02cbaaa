// C++ unit tests of the views (run by ctest; scripts/sanitize.sh runs them under ASan/UBSan):
// the observation's layout and what a seat may see, scoring's totals and tie-break, and the
// re-deal's properties on a small made-up card set. tests/differential/test_views.py compares
// all three with the Python engine exactly on real games.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fort/constants.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/views/hidden.h"
#include "fort/views/observation.h"
#include "fort/views/scoring.h"

#include "check.h"

namespace {

using fort_test::check;

constexpr int NC = 12;  // cards 0..9 kids (suit i % 3), 10: seat 1's Best Friend, 11: seat 0's

// Suit classes as hidden.suit_class gives them: the smallest id with the same suits.
std::shared_ptr<const fort::Game> small_game() {
    auto gp = std::make_shared<fort::Game>();
    fort::Game& g = *gp;
    g.num_players = 2;
    g.num_cards = NC;
    g.seat_board = {0, 1};
    for (int c = 0; c < NC; ++c) {
        const int suit = c < 10 ? c % 3 : 0;  // the friends look like cards 0, 3, 6, 9
        g.is_best_friend.push_back(c >= 10);
        g.card_board.push_back(c == 10 ? 1 : c == 11 ? 0 : -1);
        for (int k = 0; k < fort::NUM_SUITS; ++k) g.suit_counts.push_back(k == suit);
        g.suit_class.push_back(c < 3 ? c : c < 10 ? c % 3 : 0);
        g.printed_advances.push_back(c == 4 ? 2 : 0);
    }
    g.level_points = {0, 1, 3, 6, 9, 13};
    g.build_views();
    return gp;
}

// Seat 0 observes: Park deck 0-2, seat 1's hand 3 4, deck 5 10 (its friend), Lookout 6 (a
// suit-0 card), seat 0's hand 7, deck 8 11, discard 9.
fort::State position(const std::shared_ptr<const fort::Game>& g) {
    fort::State s = fort::empty_state(g);
    const int zone[NC] = {0, 0, 0, 2, 2, 3, 6, 2, 3, 4, 3, 3};
    const int owner[NC] = {-1, -1, -1, 1, 1, 1, 1, 0, 0, 0, 1, 0};
    const int pos[NC] = {2, 0, 1, 7, 9, 4, 3, 5, 1, 0, 2, 0};
    for (int c = 0; c < NC; ++c) {
        s.zone[c] = static_cast<int8_t>(zone[c]);
        s.owner[c] = static_cast<int8_t>(owner[c]);
        s.pos[c] = static_cast<int16_t>(pos[c]);
    }
    s.rule_loc.assign(fort::NUM_MADE_UP_RULES, fort::IN_BOX);
    s.rule_loc[fort::RULE_SLIME_LAB] = 1;
    s.rule_loc[fort::RULE_LONER] = fort::IN_STACK;
    s.rule_loc[fort::RULE_POPULARITY] = 0;
    s.perk_loc.assign(fort::NUM_PERKS, fort::IN_BOX);
    s.ctx[fort::C_DECISION] = fort::K_PLAY;
    s.ctx[fort::C_SEED] = 77;
    return s;
}

float at(const std::vector<float>& obs, const fort::Game& g, int64_t slice, int64_t i) {
    return obs[g.obs_offset[slice] + i];
}

void test_observation() {
    const auto g = small_game();
    const fort::State s = position(g);
    check(g->obs_offset[fort::NUM_OBS_SLICES] == fort::observation_size(NC), "size");
    std::vector<float> obs(static_cast<size_t>(fort::observation_size(NC)), -7.0f);
    fort::observation_tensor(s, 0, obs.data());
    check(std::none_of(obs.begin(), obs.end(), [](float x) { return x == -7.0f; }),
          "every entry written");
    check(at(obs, *g, fort::OBS_MY_HAND, 7) == 1.0f && at(obs, *g, fort::OBS_MY_HAND, 3) == 0,
          "my hand seen, the rival's not");
    check(at(obs, *g, fort::OBS_MY_DECK, 11) == 1.0f, "my deck's contents seen");
    check(at(obs, *g, fort::OBS_RIVAL_LOOKOUT_SUITS, 0) == 1.0f, "rival Lookout: suits only");
    float lookout_cards = 0;
    for (int c = 0; c < NC; ++c) lookout_cards += at(obs, *g, fort::OBS_MY_LOOKOUT, c);
    check(lookout_cards == 0, "the rival's Lookout card is not named");
    check(at(obs, *g, fort::OBS_PILE_SIZES, 5 + 0) == 0.2f, "rival hand size / 10");
    check(at(obs, *g, fort::OBS_PARK_DECK_SIZE, 0) == static_cast<float>(3.0 / 60.0),
          "Park deck / 60");
    check(at(obs, *g, fort::OBS_MY_MADE_UP_RULE, fort::RULE_POPULARITY) == 1.0f &&
              at(obs, *g, fort::OBS_MY_MADE_UP_RULE, fort::RULE_SLIME_LAB) == 0.0f,
          "only my made-up rule");
    check(at(obs, *g, fort::OBS_HAS_MADE_UP_RULE, 1) == 1.0f, "the rival holds one");
    check(at(obs, *g, fort::OBS_RULE_STACK_SIZE, 0) == 1.0f, "stack size");
    std::vector<float> other(obs.size());
    fort::observation_tensor(s, 1, other.data());
    check(at(other, *g, fort::OBS_MY_HAND, 3) == 1.0f && at(other, *g, fort::OBS_MY_LOOKOUT, 6) == 1.0f,
          "seat 1 sees its own hand and Lookout");
    fort::State bad = s;
    bad.player(0, fort::P_FORT_LEVEL) = 9;
    bool threw = false;
    try {
        fort::observation_tensor(bad, 0, other.data());
    } catch (const std::out_of_range&) {
        threw = true;
    }
    check(threw, "a Fort Level out of range throws");
}

void test_scoring() {
    const auto g = small_game();
    fort::State s = position(g);
    s.player(0, fort::P_SCORE) = 10;
    s.player(1, fort::P_SCORE) = 11;
    s.player(0, fort::P_FORT_LEVEL) = 1;
    // seat 0: Popularity counts its Lookout (empty); seat 1: Slime Lab counts suit 0 it has
    // (cards 3, 6 and its friend 10)
    const auto rows = fort::score_breakdown(s);
    check(rows[0].made_up_rule == 0 && rows[1].made_up_rule == 3, "made-up rules' points");
    check(rows[0].total == 11 && rows[1].total == 14, "totals");
    check(fort::winners(s) == std::vector<int>{1}, "most points wins");
    s.player(0, fort::P_SCORE) = 13;
    check(fort::winners(s) == std::vector<int>{0}, "tie on points: the higher Fort Level");
    s.player(1, fort::P_FORT_LEVEL) = 1;  // seat 1: 11 + 1 + 3 = 15
    s.player(0, fort::P_SCORE) = 14;      // seat 0: 14 + 1 + 0 = 15
    check(fort::winners(s) == std::vector<int>{0, 1}, "still tied: shared");
}

void test_resample() {
    const auto g = small_game();
    const fort::State s = position(g);
    bool varied[NC] = {};
    bool friend_in_lookout = false;
    for (uint64_t seed = 0; seed < 200; ++seed) {
        const fort::State t = fort::resample_hidden(s, 0, seed);
        for (int c : {7, 9})
            check(t.zone[c] == s.zone[c] && t.owner[c] == s.owner[c] && t.pos[c] == s.pos[c],
                  "visible cards stay");
        for (int c : {8, 11})
            check(t.zone[c] == fort::Z_DECK && t.owner[c] == 0, "my deck stays mine");
        check(t.owner[10] == 1 && (t.zone[10] == fort::Z_HAND || t.zone[10] == fort::Z_DECK ||
                                   t.zone[10] == fort::Z_LOOKOUT),
              "the rival's friend stays with it");
        friend_in_lookout |= t.zone[10] == fort::Z_LOOKOUT;
        for (int c = 0; c < NC; ++c) {
            varied[c] |= t.zone[c] != s.zone[c] || t.owner[c] != s.owner[c];
            if (t.zone[c] == fort::Z_LOOKOUT) check(g->suit_class[c] == 0, "Lookout keeps suits");
        }
        int hand = 0, deck = 0, park_deck = 0;
        for (int c = 0; c < NC; ++c) {
            hand += t.zone[c] == fort::Z_HAND && t.owner[c] == 1;
            deck += t.zone[c] == fort::Z_DECK && t.owner[c] == 1;
            park_deck += t.zone[c] == fort::Z_PARK_DECK;
        }
        check(hand == 2 && deck == 2 && park_deck == 3, "pile sizes kept");
        check(t.rule_loc[fort::RULE_POPULARITY] == 0, "my rule stays");
        check(t.ctx[fort::C_SHUFFLES] == 0 && t.ctx[fort::C_SEED] != s.ctx[fort::C_SEED],
              "new future shuffles");
        // the same information set: swap two hidden non-friend cards of the Park deck and
        // the rival's hand, and the friend between the rival's deck and its Lookout slot
        fort::State u = s;
        std::swap(u.zone[1], u.zone[4]);
        std::swap(u.owner[1], u.owner[4]);
        std::swap(u.zone[10], u.zone[6]);
        u.pos[3] = 123;
        const fort::State w = fort::resample_hidden(u, 0, seed);
        check(w.zone == t.zone && w.owner == t.owner && w.pos == t.pos &&
                  w.rule_loc == t.rule_loc && w.ctx == t.ctx,
              "a function of the information set");
    }
    for (int c : {0, 1, 2, 3, 4, 5})
        check(varied[c], "hidden card " + std::to_string(c) + " moves");
    check(friend_in_lookout, "the friend is dealt into the Lookout slot sometimes");
}

}  // namespace

int main() {
    test_observation();
    test_scoring();
    test_resample();
    return fort_test::report();
}
