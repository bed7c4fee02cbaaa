// Local legality: the C++ twin of fort_env/game/rules/legality.py. The actions the rules allow at
// the pending decision, before the search (search.h) removes those after which the play
// cannot be completed (rulebook p.6-16; docs/rules.md "Exact masks").
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "fort/game/state.h"

namespace fort {

// legality.raw_legal: the actions allowed by the local rules of the pending decision, in the
// Python engine's order (not sorted). Reads the state only (probes run on clones).
std::vector<int> raw_legal(State& state);
// raw_legal into `out` (cleared first; its storage reused).
void raw_legal_into(State& state, std::vector<int>& out);

// Distinct suits in first-seen order: useful_suits' and fully_counted's lists, without
// allocating (the search asks for them at every addable card and coin suit). Room for every
// suit plus the two any-one-suit declarations as ctx holds them, checked or not.
struct CountedSuits {
    static constexpr int CAPACITY = NUM_SUITS + 2;
    int n = 0;
    std::array<int, CAPACITY> suit{};
    std::size_t size() const { return static_cast<std::size_t>(n); }
    bool empty() const { return n == 0; }
    const int* begin() const { return suit.data(); }
    const int* end() const { return suit.data() + n; }
    // appends `s` unless it is listed already
    void add(int s) {
        for (int k = 0; k < n; ++k)
            if (suit[static_cast<std::size_t>(k)] == s) return;
        if (n < CAPACITY) suit[static_cast<std::size_t>(n++)] = s;
    }
};

// legality.useful_suits: suits counted by a used action of the played card (its "x suit" and
// any-one-suit), in first-seen order.
CountedSuits useful_suits(const State& state);

// legality.fully_counted: suits counted by the action used fully ("x suit", any-one-suit), in
// first-seen order.
CountedSuits fully_counted(const State& state);

// legality.addable: cards that may be added now (hand, or Lookout cards not yet added) one of
// whose suits (a coin: declared as some suit) changes the outcome of a used action (p.6-7;
// changes_outcome on the play with the card added), ascending ids. Inside a legality probe
// (ctx.both_full set) every card with a counted suit or a coin (docs/rules.md R7).
std::vector<int> addable(State& state);

// legality.coin_suits: the suits the coin of `card`, being added (ADD_COIN), may be declared as:
// those with which one of its suits changes the outcome (README fact 1: "one suit of your
// choice"); all seven inside a legality probe. Ascending.
std::vector<int> coin_suits(State& state, int card);

// legality.changes_outcome_with: whether `card`, being added (ADD_COIN), changes the outcome
// with its coin declared as `suit`.
bool changes_outcome_with(State& state, int card, int suit);

// legality.changes_outcome: whether `card`, just added (its coin declared; `state` at the ADD
// decision that follows), changes the effect of a used action (p.7; docs/rules.md R7): one of
// its suits is counted by the action used fully, or a probe (the play searched from here, with
// ctx.both_full = BOTH_FULL_TAIL + the first repetition the card brings, or 1 for an action
// that is not one plain body repeated) finds a completion in which the other action uses it.
// Consumes `state` (the probe runs on it): callers pass a copy they no longer need.
bool changes_outcome(State& state, int card);

}  // namespace fort
