// The exact legal mask: the C++ twin of fort_env/game/rules/search.py. Raw-legal actions minus
// those after which the play cannot be completed within the rules ("use at least one action
// fully", "an added card must change the outcome", rulebook p.6-7), by a memoised depth-first
// search over cloned states in which choices that cannot differ in feasibility are tried once
// (docs/rules.md R32 "Exact masks").
//
// The memo: one per thread (thread_local), bounded, for the last few games used on that
// thread. The search's verdict is a pure function of (game, state, goal), so any memo gives
// the same answers; per thread, because a batched env steps states in threads with the GIL
// released and a shared table would need a lock on every lookup (Python keeps one per game:
// it has one thread). Keys are the bytes of the state's arrays (full-key equality: no false
// hits), found by a 64-bit hash.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fort/constants.h"
#include "fort/game/search_tables.h"  // SearchTables, Atom, SingleStep

namespace fort {

struct Game;
struct State;

// The precondition of legal_actions / raw_legal for a state from outside (the bindings call
// it; the engine's own states always meet it): handlers.check_indices, plus the fields the
// mask path indexes by at the pending decision (the acting seat, the played card and mode
// where the decision reads them, the program row a RESOURCE or SPEND choice reads). Throws
// std::invalid_argument naming the field ("state: ctx.actor out of range").
void check_search_indices(const State& state);

// search.legal_actions / compute_legal: raw-legal actions minus those after which the play
// cannot be completed, ascending. Computed on each call (no cache: a playout that asks once
// per position would only pay for storing it); see cached_legal_actions.
std::vector<int> legal_actions(State& state);
std::vector<int> compute_legal(State& state);
// compute_legal into `out` (cleared first; its storage reused).
void compute_legal_into(State& state, std::vector<int>& out);

// FortState.legal_actions through the state's cache (state.h LegalCache), what the bindings
// call: check_search_indices and compute_legal when the position is new (empty once the game
// is over), else the list computed for this position before, found by comparing every byte of
// the arrays and ctx (so a write from Python through a view, or any mutation in C++, is seen).
// Throws as check_search_indices. The reference stays valid until the next call on `state`.
const std::vector<int>& cached_legal_actions(State& state);

// `a in search.legal_set(state)` through cached_legal_actions (a binary search of the
// ascending list; false once the game is over). Throws as check_search_indices.
bool is_legal(State& state, int a);

// base.SEARCHED_STAGES: the stages inside a play whose choices must keep the play
// completable (outside them every raw-legal action is legal).
bool searched_stage(int64_t stage);

// search.constraint_met: the leader resolves the second action after the fully used one ended.
bool constraint_met(const State& state);

// search.unsearched: skipping, passing a follow, Rough Housing, Recycling at the Play decision.
bool unsearched(const State& state, int a);

// search.equivalence_key: actions with equal keys cannot differ in whether the play can be
// completed. Encoded as four ints (a tag, then the Python tuple's fields).
using EqKey = std::array<int64_t, 4>;
EqKey equivalence_key(const State& state, int a);

// search.interchangeable_suit (docs/rules.md R32)
bool interchangeable_suit(const State& state, int s);

// search.adding_cannot_help: after "stop adding" failed, more cards cannot help.
bool adding_cannot_help(const State& state);

// search.search: depth-first, can this play (or follow) still be completed? Consumes the state.
bool search(State& state, int64_t goal);
bool search_children(State& state, int64_t goal);

// A clone of a state for the search and its probes (Python's state.clone()), without
// allocating: each thread keeps a stack of scratch States whose arrays are reused by copy
// assignment. The clone lives as long as this object (scoped, strictly nested).
class ScratchState {
  public:
    ScratchState();
    ~ScratchState();
    ScratchState(const ScratchState&) = delete;
    ScratchState& operator=(const ScratchState&) = delete;
    // A copy of `source` (the previous copy held here is overwritten).
    State& copy_of(const State& source);

  private:
    State* state_;
    std::size_t* depth_;  // the pool's (no thread_local lookup when released)
};

// While one lives, search() on the calling thread neither reads nor fills the memo (nestable).
// For playouts (playout.h): their positions rarely recur, and there the memo's keys (every
// array of each searched state) cost more than its hits save (docs/cpp.md "Playouts"). The
// verdicts are the same either way: a pure function of (game, state, goal).
class MemoOff {
  public:
    MemoOff();
    ~MemoOff();
    MemoOff(const MemoOff&) = delete;
    MemoOff& operator=(const MemoOff&) = delete;
};

// The calling thread's memo (tests and tools): entries held, and clearing it.
std::size_t search_memo_size();
void clear_search_memo();

// The most positions one search (from depth 0) of the calling thread has expanded since the
// last reset, against SEARCH_NODE_BUDGET (constants.h); `reset` starts the count again.
int64_t search_nodes_peak(bool reset);

}  // namespace fort
