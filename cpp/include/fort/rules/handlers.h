// Applying an action: the C++ twin of fort_env/game/rules/handlers.py: one handler per action range
// (fort_env/game/actions.py), found through the table HANDLERS (indexed by the generated R_*
// codes). Every handler is called as handler(state, acting seat, index within its range, pending
// decision kind).
#pragma once

#include <cstdint>

#include "fort/game/state.h"

namespace fort {

// handlers.apply: apply an action known to be (locally) legal. Throws std::out_of_range for
// an action outside [0, num_actions) or a terminal state, std::invalid_argument for an
// action of a range the pending decision does not offer (decision_offers); the state is then
// unchanged. An error deeper in the rules (std::logic_error: a state the engine cannot
// reach; std::overflow_error: a program past MAX_STEPS) may leave it changed, as in Python.
void apply(State& state, int a);

// Throws std::invalid_argument if a field the rules use as an index (a seat, a card, a suit,
// a program row...) is out of range: apply's precondition for a state from outside
// (_core.apply_unchecked checks it; the engine's own states always meet it).
void check_indices(const State& state);

// Whether the pending decision `kind` offers actions of range `range` (R_*) at all: the
// ranges legality.raw_legal draws from for that kind (a precondition of apply).
bool decision_offers(int64_t kind, int range);

// handlers._count_suits: count card c's suits for the play; a coin waits for its declared
// suit (decision `kind` at `stage`, p.6). Returns whether that decision is now pending.
bool count_suits(State& state, int p, int c, int64_t stage, int64_t kind);
// handlers.recruit
void recruit(State& state, int p, int c);
// handlers.after_recruit
void after_recruit(State& state, int p, int kind);

using Handler = void (*)(State& state, int p, int i, int kind);
void on_play_card(State& state, int p, int c, int kind);
void on_skip_play(State& state, int p, int i, int kind);
void on_use_diy(State& state, int p, int i, int kind);
void on_recycle(State& state, int p, int c, int kind);
void on_suit(State& state, int p, int s, int kind);
void on_mode(State& state, int p, int m, int kind);
void on_add_card(State& state, int p, int c, int kind);
void on_stop_adding(State& state, int p, int i, int kind);
void on_resource(State& state, int p, int r, int kind);
void on_pack_from(State& state, int p, int i, int kind);
void on_lookout_card(State& state, int p, int c, int kind);
void on_lookout_park_deck(State& state, int p, int i, int kind);
void on_trash_card(State& state, int p, int c, int kind);
void on_recruit_card(State& state, int p, int c, int kind);
void on_recruit_park_deck(State& state, int p, int i, int kind);
void on_pay(State& state, int p, int i, int kind);
void on_spend_from(State& state, int p, int i, int kind);
void on_trash_rival_card(State& state, int p, int c, int kind);
void on_copy_rival(State& state, int p, int k, int kind);
void on_convert(State& state, int p, int i, int kind);
void on_pick_rule(State& state, int p, int i, int kind);
void on_pick_perk(State& state, int p, int i, int kind);
void on_follow_card(State& state, int p, int c, int kind);
void on_pass(State& state, int p, int i, int kind);
void on_rough_house(State& state, int p, int i, int kind);
void on_do_over(State& state, int p, int i, int kind);
void on_draft_card(State& state, int p, int c, int kind);
void on_stop_action(State& state, int p, int i, int kind);
void on_continue_action(State& state, int p, int i, int kind);

// handlers.HANDLERS: action range (R_*) -> its handler.
extern const Handler HANDLERS[NUM_RANGES];

}  // namespace fort
