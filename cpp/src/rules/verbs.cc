// fort_env/game/rules/verbs.py in C++ (see include/fort/rules/verbs.h): step statuses and the steps
// carried out at once (rulebook p.12-15 action glossary).
#include "fort/rules/verbs.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fort/rules/base.h"
#include "fort/rules/deal.h"
#include "fort/rules/flow.h"
#include "fort/rules/program.h"

namespace fort {

namespace {

// len(lookout_sources(state, p)) > 0, without building the list.
bool any_lookout_source(const State& state, int p) {
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_HAND && state.owner[c] == p) return true;
    if (has_perk(state, p, PERK_BRIBE) && is_leader(state, p)) {
        for (int c = 0; c < state.num_cards; ++c)
            if (state.zone[c] == Z_PARK || state.zone[c] == Z_YARD) return true;
        if (top_of_park_deck(state) >= 0) return true;
    }
    return false;
}

// len(trash_sources(state, p)) > 0
bool any_trash_source(const State& state, int p) {
    for (int c = 0; c < state.num_cards; ++c)
        if ((state.zone[c] == Z_HAND || state.zone[c] == Z_DISCARD) && state.owner[c] == p)
            return true;
    return false;
}

// convert_options(state, p)[i] holds: option i of CONVERT_OPTIONS is allowed now.
bool convert_option_ok(const State& state, int p, int i) {
    const auto src = static_cast<int>(CONVERT_OPTIONS[i][0]);
    const bool in_pack = CONVERT_OPTIONS[i][1] != 0;
    if (state.ctx[C_CONVERT_FROM] >= 0 && state.ctx[C_CONVERT_FROM] != src) return false;
    const int dst = 1 - src;
    return in_pack ? state.player(p, P_PACK_PIZZA + src) > 0
                   : state.player(p, P_STUFF_PIZZA + src) > 0 &&
                         state.player(p, P_STUFF_PIZZA + dst) < STUFF_CAPACITY;
}

// the resources a gather/spend step may use now: both before "either" is chosen
struct Resources {
    int first, last;
};
Resources step_resources(const State& state, int arg) {
    if (arg == ANY_RESOURCE && state.ctx[C_RESOURCE_CHOICE] < 0) return {PIZZA, TOYS};
    const int r = resource_of(state, arg);
    return {r, r};
}

}  // namespace

// verbs.atom_status
int atom_status(const State& state, int p, int verb, int arg) {
    switch (verb) {
        case V_GATHER: {
            const Resources rs = step_resources(state, arg);
            for (int r = rs.first; r <= rs.last; ++r)
                if (state.player(p, P_STUFF_PIZZA + r) < STUFF_CAPACITY) return STATUS_FULL;
            return STATUS_NONE;
        }
        case V_SCORE:
        case V_TRASH_THIS:
            return STATUS_FULL;
        case V_PACK: {
            if (state.player(p, P_PACK_PIZZA) + state.player(p, P_PACK_TOYS) >=
                pack_capacity(state, p))
                return STATUS_NONE;
            const bool sticky = has_perk(state, p, PERK_STICKY_FINGERS) && is_leader(state, p);
            return sticky || state.player(p, P_STUFF_PIZZA) + state.player(p, P_STUFF_TOYS) > 0
                       ? STATUS_FULL
                       : STATUS_NONE;
        }
        case V_LOOKOUT:
            if (count_in(state, Z_LOOKOUT, p) >= lookout_capacity(state, p)) return STATUS_NONE;
            // Recycling, usable at this step's decision, can bring a card to hand (R15)
            return any_lookout_source(state, p) || can_recycle(state, p) ? STATUS_FULL
                                                                         : STATUS_NONE;
        case V_TRASH:
            return any_trash_source(state, p) ? STATUS_FULL : STATUS_NONE;
        case V_RECRUIT:
            return recruit_options(state, p, true) ? STATUS_FULL : STATUS_NONE;
        case V_ADVANCE: {
            if (state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] + state.ctx[C_PAY_EITHER] > 0)
                return STATUS_FULL;  // a payment under way
            if (state.player(p, P_FORT_LEVEL) >= MAX_FORT_LEVEL) return STATUS_NONE;
            const Cost c = cost(state, p, arg);
            return payable(state, p, c.toys, c.pizza, c.either) ? STATUS_FULL : STATUS_NONE;
        }
        case V_SPEND: {
            const Resources rs = step_resources(state, arg);
            for (int r = rs.first; r <= rs.last; ++r)
                if (state.player(p, P_STUFF_PIZZA + r) + state.player(p, P_PACK_PIZZA + r) > 0)
                    return STATUS_FULL;
            return STATUS_NONE;
        }
        case V_TRASH_RIVAL:
            for (int r : rivals(state, p))
                if (count_in(state, Z_YARD, r)) return STATUS_FULL;
            return STATUS_NONE;
        case V_COPY_PACK:
            return copy_status(state, p, p);
        case V_COPY_RIVAL_PACK: {
            int best = STATUS_NONE;
            for (int r : rivals(state, p)) best = std::max(best, copy_status(state, p, r));
            return best;
        }
        case V_CONVERT:  // convert_options(state, p) not empty
            for (int i = 0; i < 4; ++i)
                if (convert_option_ok(state, p, i)) return STATUS_FULL;
            return STATUS_NONE;
        default:
            throw std::logic_error("atom_status: unknown verb " + std::to_string(verb));
    }
}

// verbs.copy_status (copying an empty Pack changes nothing: not a use, docs/rules.md)
int copy_status(const State& state, int p, int source) {
    const int want[2] = {state.player(source, P_PACK_PIZZA), state.player(source, P_PACK_TOYS)};
    if (want[0] + want[1] == 0) return STATUS_NONE;
    const int room[2] = {static_cast<int>(STUFF_CAPACITY) - state.player(p, P_STUFF_PIZZA),
                         static_cast<int>(STUFF_CAPACITY) - state.player(p, P_STUFF_TOYS)};
    if (want[0] <= room[0] && want[1] <= room[1]) return STATUS_FULL;
    return std::min(want[0], room[0]) > 0 || std::min(want[1], room[1]) > 0 ? STATUS_PARTIAL
                                                                             : STATUS_NONE;
}

// verbs.lookout_sources (hand; Park and every Yard with Bribe, p.16)
std::vector<int> lookout_sources(const State& state, int p) {
    std::vector<int> out = cards_in(state, Z_HAND, p);
    if (has_perk(state, p, PERK_BRIBE) && is_leader(state, p)) {
        for (int c = 0; c < state.num_cards; ++c)
            if (state.zone[c] == Z_PARK || state.zone[c] == Z_YARD) out.push_back(c);
        if (top_of_park_deck(state) >= 0) out.push_back(-1);  // the Park deck's top card
    }
    return out;
}

// verbs.trash_sources
std::vector<int> trash_sources(const State& state, int p) {
    std::vector<int> out;
    for (int c = 0; c < state.num_cards; ++c)
        if ((state.zone[c] == Z_HAND || state.zone[c] == Z_DISCARD) && state.owner[c] == p)
            out.push_back(c);
    return out;
}

// verbs.convert_options
std::vector<int> convert_options(const State& state, int p) {
    std::vector<int> out;
    for (int i = 0; i < 4; ++i)
        if (convert_option_ok(state, p, i)) out.push_back(i);
    return out;
}

// verbs.do_atom
void do_atom(State& state, int p, int verb, int arg) {
    switch (verb) {
        case V_GATHER:
            gain(state, p, resource_of(state, arg), 1);
            break;
        case V_SCORE:
            state.player(p, P_SCORE) += 1;
            break;
        case V_TRASH_THIS:
            if (state.ctx[C_STAGE] == ST_FOLLOW_RUN)
                state.ctx[C_FOLLOW_TRASH] = 1;
            else
                state.ctx[C_TRASH_THIS] = 1;
            break;
        case V_COPY_PACK:
            copy_from(state, p, p);
            break;
        default:
            throw std::logic_error("do_atom: verb " + std::to_string(verb) + " needs a choice");
    }
}

}  // namespace fort
