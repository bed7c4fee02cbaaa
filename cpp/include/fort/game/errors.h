// The C++ twin of fort_env.game.errors.StateError for the engine's own checks of a running
// position: thrown from inside the core (the built-in policies, the re-deal), translated at the
// binding (core_module.cc) to StateError(field, problem) with the same words as Python.
#pragma once

#include <stdexcept>

namespace fort {

class StateError : public std::logic_error {
   public:
    // `field` must be a string literal (kept by pointer: copying the error cannot throw).
    StateError(const char* field, const char* problem) : std::logic_error(problem), field_(field) {}
    const char* field() const noexcept { return field_; }

   private:
    const char* field_;
};

// fort_env/views/hidden.py NO_LEGAL_ACTION, NO_COMPLETION: a running position that cannot go on.
inline constexpr const char* NO_LEGAL_ACTION =
    "no legal action in a running game (a position the rules cannot reach)";
inline constexpr const char* NO_COMPLETION =
    "the play under way cannot be completed within the rules (p.7)";

// search.SEARCH_BUDGET_EXCEEDED: one search for a completion (search.h search, from depth 0)
// expanded more than SEARCH_NODE_BUDGET positions (constants.h; docs/reliability.md).
inline constexpr const char* SEARCH_BUDGET_EXCEEDED =
    "the legality search for this play expanded more positions than its budget "
    "(search.SEARCH_NODE_BUDGET): the position is not one the rules reach, or the card set's "
    "actions branch too much";

// search.SEARCH_TOO_DEEP: the search recursed past its depth limit (Python: RecursionError).
inline constexpr const char* SEARCH_TOO_DEEP =
    "the legality search for this play went deeper than its limit: the position is not one "
    "the rules reach";

// program.PROGRAM_IN_NO_STAGE: an action's program ended in a stage that runs none.
inline constexpr const char* PROGRAM_IN_NO_STAGE =
    "an action's program ended in a stage that runs none (a position the rules cannot reach)";

// The error for a running position with no legal action (every built-in policy, the re-deal).
[[noreturn]] inline void throw_no_legal_action() {
    throw StateError("ctx.decision", NO_LEGAL_ACTION);
}

}  // namespace fort
