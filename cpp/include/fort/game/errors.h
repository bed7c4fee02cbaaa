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

// The error for a running position with no legal action (every built-in policy, the re-deal).
[[noreturn]] inline void throw_no_legal_action() {
    throw StateError("ctx.decision", NO_LEGAL_ACTION);
}

}  // namespace fort
