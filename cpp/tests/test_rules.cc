// C++ unit tests of the apply path (run by ctest as fort_rules_tests; scripts/sanitize.sh runs
// them under ASan/UBSan): the unrolling of effect trees (the same rows as program.unroll gives
// in Python for the same trees and counts), advance_cost (R25), the checks of Game::validate
// and the tables Game::build derives. tests/differential/test_apply.py compares whole games
// with the Python engine.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fort/constants.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/base.h"
#include "fort/rules/handlers.h"
#include "fort/rules/program.h"

#include "check.h"

namespace {

using fort_test::check;

using fort::EffectNode;
using Rows = std::vector<std::vector<int>>;

// A builder of effect trees in a Game's node table (children first, as Python flattens).
struct Trees {
    fort::Game game;
    int atom(int64_t verb, int arg = 0) { return add({int32_t(fort::E_ATOM), int32_t(verb), arg, 0}); }
    int then(int left, int right) { return add({int32_t(fort::E_THEN), left, right, 0}); }
    int repeat(int body, int64_t mult, int arg) {
        return add({int32_t(fort::E_REPEAT), body, int32_t(mult), arg});
    }
    int add(EffectNode n) {
        game.nodes.push_back(n);
        return static_cast<int>(game.nodes.size()) - 1;
    }
};

// A valid game of two cards whose public actions are `pub0`, `pub1` (private blank).
void finish(fort::Game& g, int pub0, int pub1) {
    g.num_players = 2;
    g.num_cards = 2;
    g.is_best_friend = {0, 0};
    g.card_board = {-1, -1};
    g.seat_board = {0, 1};
    g.card_effects = {pub0, -1, pub1, -1};
    g.suit_lists = {static_cast<int8_t>(fort::COIN), -1, 0, 3};
    g.suit_counts.assign(2 * fort::NUM_SUITS, 0);
    g.suit_counts[fort::COIN] = 1;
    g.suit_counts[fort::NUM_SUITS + 0] = 1;
    g.suit_counts[fort::NUM_SUITS + 3] = 1;
    g.kind = {0, 1};
    for (auto& st : g.fort_steps) st = fort::FortStep{1, 1, 0};
    int32_t offset = 0;
    for (int r = 0; r < fort::NUM_RANGES; ++r) {
        g.action_start[r] = offset;
        offset += static_cast<int32_t>(fort::RANGE_SIZE[r] < 0 ? g.num_cards : fort::RANGE_SIZE[r]);
    }
    g.num_actions = offset;
}

Rows unrolled(const fort::Game& g, int effect, std::vector<int> counts) {
    std::vector<int16_t> rows(fort::MAX_STEPS * fort::PROG_COLUMNS, 0);
    counts.push_back(0);  // never read past the multipliers
    const int n = fort::unroll(g, effect, counts.data(), rows.data());
    Rows out;
    for (int i = 0; i < n; ++i)
        out.push_back({rows[4 * i], rows[4 * i + 1], rows[4 * i + 2], rows[4 * i + 3]});
    return out;
}

// The rows program.unroll gives in Python (printed from fort_env for the same trees).
void test_unroll() {
    using namespace fort;
    Trees t;
    // gather(pizza) -> gather(toys)
    const int lefty = t.then(t.atom(V_GATHER, 0), t.atom(V_GATHER, 1));
    // (gather(pizza) -> score) x 2
    const int twice = t.repeat(t.then(t.atom(V_GATHER, 0), t.atom(V_SCORE)), MULT_CONST, 2);
    // (gather(any) x book -> pack x 2) x fort_level
    const int nested = t.repeat(t.then(t.repeat(t.atom(V_GATHER, 2), MULT_SUIT, 0),
                                       t.repeat(t.atom(V_PACK), MULT_CONST, 2)),
                                MULT_FORT_LEVEL, 0);
    // trash -> (score x shovel)
    const int trash_score = t.then(t.atom(V_TRASH), t.repeat(t.atom(V_SCORE), MULT_SUIT, 3));
    // advance(-1) -> score x 0
    const int zero = t.then(t.atom(V_ADVANCE, -1), t.repeat(t.atom(V_SCORE), MULT_CONST, 0));
    finish(t.game, lefty, twice);
    t.game.build_rules();
    const Game& g = t.game;
    check(unrolled(g, lefty, {}) == Rows{{0, 0, -1, -1}, {0, 1, 0, 1}}, "unroll lefty");
    check(unrolled(g, twice, {2}) ==
              Rows{{0, 0, -1, -1}, {7, 0, 0, 1}, {0, 0, -1, -1}, {7, 0, 2, 3}},
          "unroll (gather -> score) x 2");
    check(unrolled(g, nested, {2, 3, 2}) == Rows{{0, 2, -1, -1}, {0, 2, -1, -1},
                                                 {0, 2, -1, -1}, {1, 0, 0, 3},
                                                 {1, 0, 0, 3}, {0, 2, -1, -1},
                                                 {0, 2, -1, -1}, {0, 2, -1, -1},
                                                 {1, 0, 5, 8}, {1, 0, 5, 8}},
          "unroll nested multipliers read the same count each repetition");
    check(unrolled(g, trash_score, {3}) ==
              Rows{{3, 0, -1, -1}, {7, 0, 0, 1}, {7, 0, 0, 1}, {7, 0, 0, 1}},
          "unroll trash -> score x shovel");
    check(unrolled(g, zero, {0}) == Rows{{6, -1, -1, -1}}, "unroll x 0");
    check(unrolled(g, -1, {}).empty(), "a blank action unrolls to nothing");
    // the multipliers in cards.multipliers order, outermost first
    const auto& ms = mults(g, nested);
    check(ms.size() == 3 && ms[0].mult == MULT_FORT_LEVEL && ms[1].mult == MULT_SUIT &&
              ms[2].mult == MULT_CONST && ms[2].arg == 2,
          "node_mults in pre-order");
    check(repeats_plain_body(g, twice) && !repeats_plain_body(g, nested) &&
              !repeats_plain_body(g, lefty),
          "repeats_plain_body");
    check(g.node_atoms[g.nodes[twice].a] == 2, "node_atoms of a plain body");
    // more than MAX_STEPS rows: std::overflow_error, as Python's OverflowError
    bool threw = false;
    try {
        unrolled(g, twice, {MAX_STEPS});
    } catch (const std::overflow_error&) {
        threw = true;
    }
    check(threw, "unrolling past MAX_STEPS throws overflow_error");
    // derived tables
    check(g.has_coin[0] && !g.has_coin[1], "has_coin");
    check(!g.improvable[0] && !g.improvable[2], "improvable: no suit multiplier");
    check(g.nodes[g.diy_effect].kind == E_ATOM && g.nodes[g.diy_effect].a == V_ADVANCE &&
              g.nodes[g.diy_effect].b == 1,
          "DIY's effect is advance(+1)");
    check(g.action_range[g.action_start[R_SUIT] + 3] == R_SUIT &&
              g.action_index[g.action_start[R_SUIT] + 3] == 3,
          "action decode");
}

// game.advance_cost (docs/rules.md R25)
void test_advance_cost() {
    using fort::advance_cost;
    using fort::FortStep;
    auto eq = [](fort::Cost c, int t, int z, int e) {
        return c.toys == t && c.pizza == z && c.either == e;
    };
    check(eq(advance_cost(FortStep{2, 2, 1}, 0), 2, 2, 1), "cost +0");
    check(eq(advance_cost(FortStep{2, 2, 1}, 1), 2, 2, 2), "cost +1 adds an either");
    check(eq(advance_cost(FortStep{2, 2, 1}, -1), 1, 1, 2), "cost -1 with both printed");
    check(eq(advance_cost(FortStep{2, 0, 1}, -1), 1, 0, 1), "cost -1 toys only");
    check(eq(advance_cost(FortStep{0, 3, 0}, -1), 0, 2, 0), "cost -1 pizza only");
    check(eq(advance_cost(FortStep{0, 0, 2}, -1), 0, 0, 1), "cost -1 either only");
    check(eq(advance_cost(FortStep{0, 0, 0}, -1), 0, 0, 0), "cost -1 never negative");
}

bool rejects(fort::Game g, const std::string& table) {
    try {
        g.validate();
    } catch (const std::invalid_argument& e) {
        return std::string(e.what()).find(table) != std::string::npos;
    }
    return false;
}

// Game::validate names the bad table
void test_validate() {
    using namespace fort;
    Trees t;
    const int a = t.atom(V_GATHER, 0);
    finish(t.game, a, -1);
    const Game good = t.game;
    good.validate();
    Game g = good;
    g.nodes.push_back({int32_t(E_THEN), 0, 5, 0});  // names a later node
    check(rejects(g, "effect_nodes[1]"), "a forward child is refused");
    g = good;
    g.nodes[0] = {int32_t(E_ATOM), int32_t(NUM_VERBS), 0, 0};
    check(rejects(g, "effect_nodes[0]"), "an unknown verb is refused");
    g = good;
    g.nodes[0] = {int32_t(E_ATOM), int32_t(V_SCORE), 1, 0};
    check(rejects(g, "effect_nodes[0]"), "an argument of a verb without one is refused");
    g = good;
    g.nodes.push_back({int32_t(E_REPEAT), 0, int32_t(MULT_SUIT), int32_t(NUM_SUITS)});
    check(rejects(g, "effect_nodes[1]"), "a suit out of range is refused");
    g = good;
    g.card_effects[1] = 7;
    check(rejects(g, "card_effects"), "a root out of range is refused");
    g = good;
    g.suit_counts[0] = 1;
    check(rejects(g, "suit_counts"), "suit counts disagreeing with suit_lists are refused");
    g = good;
    g.suit_lists[0] = -1;
    check(rejects(g, "suit_lists"), "a card without a suit is refused");
    g = good;
    g.action_start[3] += 1;
    check(rejects(g, "action_starts"), "a wrong action layout is refused");
    g = good;
    g.num_actions += 1;
    check(rejects(g, "num_actions"), "a wrong number of actions is refused");
    g = good;
    g.fort_steps[2].either = -1;
    check(rejects(g, "fort_steps"), "a negative cost is refused");
    g = good;
    g.kind.pop_back();
    check(rejects(g, "kind"), "a short table is refused");
}

// A state of a 2-card game whose card 0's public action is `pub0`, seat 0 running it in the
// probe stage (program_done then only marks the stage), its Stuff as given.
struct Running {
    std::shared_ptr<fort::Game> game;
    fort::State state;
};

Running running(Trees& t, int pub0, bool full, int pizza, int toys) {
    using namespace fort;
    finish(t.game, pub0, -1);
    auto g = std::make_shared<Game>(t.game);
    g->build_rules();
    Running r{g, empty_state(g)};
    State& s = r.state;
    s.player(0, P_STUFF_PIZZA) = static_cast<int16_t>(pizza);
    s.player(0, P_STUFF_TOYS) = static_cast<int16_t>(toys);
    std::fill(s.rule_loc.begin(), s.rule_loc.end(), static_cast<int8_t>(IN_BOX));
    s.rule_loc[3] = IN_STACK;
    std::fill(s.perk_loc.begin(), s.perk_loc.end(), static_cast<int8_t>(IN_BOX));
    s.ctx[C_PLAYED_CARD] = 0;
    s.ctx[C_STAGE] = ST_PROBE;
    load_program(s, g->effect(0, PUBLIC), 0, PUBLIC, full, s.play_suits.data(), -1);
    run_program(s);
    return r;
}

// program.run_program: "as far as it goes", "then", used fully, paying and the reward
void test_run_program() {
    using namespace fort;
    {  // a full Stuff of pizza: the gather is skipped, so is the "then" after it
        Trees t;
        const int e = t.then(t.atom(V_GATHER, 0), t.atom(V_GATHER, 1));
        Running r = running(t, e, false, 4, 0);
        check(r.state.ctx[C_STAGE] == ST_PROBE_DONE && r.state.player(0, P_STUFF_TOYS) == 0,
              "a step that cannot be done is skipped, and the 'then' after it");
        check(r.state.ctx[C_SERIAL] == 1, "the probe's program_done counts a play");
    }
    {  // the same used fully fails
        Trees t;
        const int e = t.then(t.atom(V_GATHER, 0), t.atom(V_GATHER, 1));
        Running r = running(t, e, true, 4, 0);
        check(r.state.ctx[C_PROGRAM_FAILED] == 1 && r.state.ctx[C_STAGE] == ST_PROBE,
              "an action used fully fails where a step cannot be done");
    }
    {  // gather twice, then score
        Trees t;
        const int e = t.then(t.repeat(t.atom(V_GATHER, 1), MULT_CONST, 2), t.atom(V_SCORE));
        Running r = running(t, e, false, 0, 3);
        check(r.state.player(0, P_STUFF_TOYS) == 4 && r.state.player(0, P_SCORE) == 1 &&
                  r.state.ctx[C_PROGRAM_FAILED] == 0,
              "gather stops at the Stuff's capacity; the 'then' after one done goes on");
        Running f = running(t, e, true, 0, 3);
        check(f.state.ctx[C_PROGRAM_FAILED] == 1 && f.state.player(0, P_SCORE) == 0,
              "used fully, the second gather cannot be done: failed");
    }
    {  // advance: PAY decisions, then the level and its reward
        Trees t;
        const int e = t.atom(V_ADVANCE, 0);
        Running r = running(t, e, true, 1, 1);
        State& s = r.state;
        check(s.ctx[C_DECISION] == K_PAY && s.ctx[C_ACTOR] == 0 && s.ctx[C_PAY_TOYS] == 1 &&
                  s.ctx[C_PAY_PIZZA] == 1,
              "advance asks for the payment");
        apply(s, static_cast<int>(r.game->action_start[R_PAY] + 0));  // toys from Stuff
        check(s.ctx[C_PAY_TOYS] == 0 && s.player(0, P_STUFF_TOYS) == 0, "a toy paid");
        apply(s, static_cast<int>(r.game->action_start[R_PAY] + 2));  // pizza from Stuff
        check(s.player(0, P_FORT_LEVEL) == 1 && s.ctx[C_REWARD] == REWARD_RULE &&
                  s.ctx[C_DECISION] == K_PICK_RULE,
              "Level 1 and its made-up rule to pick");
        apply(s, static_cast<int>(r.game->action_start[R_PICK_RULE] + 3));
        check(s.rule_loc[3] == 0 && s.ctx[C_STAGE] == ST_PROBE_DONE, "the rule picked");
        bool threw = false;
        try {
            apply(s, static_cast<int>(r.game->action_start[R_MODE]));
        } catch (const std::invalid_argument&) {
            threw = true;
        }
        check(threw, "an action of a range the decision does not offer is refused");
    }
}

}  // namespace

int main() {
    test_unroll();
    test_advance_cost();
    test_validate();
    test_run_program();
    return fort_test::report();
}
