// fort_env/game/rules/flow.py in C++ (see include/fort/rules/flow.h): turn flow, the followers'
// round, recruiting and the end triggers (rulebook p.6-10, p.16).
#include "fort/rules/flow.h"

#include <algorithm>
#include <stdexcept>

#include "fort/rules/base.h"
#include "fort/rules/deal.h"
#include "fort/rules/program.h"

namespace fort {

namespace {

// s.played_card as a card index; throws if there is none (Python would index card -1).
int played_card(const State& state) {
    const int64_t c = state.ctx[C_PLAYED_CARD];
    if (c < 0 || c >= state.num_cards) throw std::logic_error("no played card");
    return static_cast<int>(c);
}

int64_t any_suit_slot(int side) { return side == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE; }

}  // namespace

// flow.begin_turn (Cleanup, skipped on the first turn, p.7)
void begin_turn(State& state) {
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    if (state.player(leader, P_TURNS) > 0) {
        for (int c = 0; c < state.num_cards; ++c)
            if (state.zone[c] == Z_YARD && state.owner[c] == leader) state.zone[c] = Z_DISCARD;
    }
    state.ctx[C_PLAYS] = 0;
    to_play(state);
}

// flow.to_play
void to_play(State& state) {
    state.ctx[C_PLAYED_CARD] = -1;
    state.ctx[C_MODE] = -1;
    state.ctx[C_ANY_SUIT_PUBLIC] = state.ctx[C_ANY_SUIT_PRIVATE] = -1;
    state.ctx[C_LEADER_RESOURCE] = -1;
    state.ctx[C_TRASH_THIS] = 0;
    state.ctx[C_ROUGH_HOUSING] = -1;
    std::fill(state.mark.begin(), state.mark.end(), int8_t{0});
    std::fill(state.coin_as.begin(), state.coin_as.end(), int8_t{-1});
    std::fill(state.play_suits.begin(), state.play_suits.end(), int16_t{0});
    state.ctx[C_STAGE] = ST_PLAY;
    set_decision(state, K_PLAY, state.ctx[C_LEADER]);
}

// flow.after_declare_played
void after_declare_played(State& state) {
    state.ctx[C_STAGE] = ST_MODE;
    set_decision(state, K_MODE, state.ctx[C_LEADER]);
}

// flow.used_sides
Sides used_sides(const State& state) {
    const int64_t mode = state.ctx[C_MODE];
    if (mode < 0 || mode >= NUM_MODES) throw std::logic_error("used_sides without a mode");
    Sides out;
    out.side[0] = static_cast<int>(MODE_PLAN[mode][0]);
    out.side[1] = static_cast<int>(MODE_PLAN[mode][1]);
    out.n = out.side[1] < 0 ? 1 : 2;
    return out;
}

// flow.after_mode: choose each used action's "any one suit", then add cards (p.6-7, p.13).
void after_mode(State& state) {
    const Game& game = *state.game;
    const auto played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int64_t leader = state.ctx[C_LEADER];
    const Sides sides = used_sides(state);
    for (int side : sides) {
        if (played >= 0 && game.has_any_suit[2 * played + side] &&
            state.ctx[any_suit_slot(side)] < 0) {
            state.ctx[C_ANY_SUIT_SIDE] = side;
            state.ctx[C_STAGE] = ST_ANY_SUIT;
            set_decision(state, K_ANY_SUIT, leader);
            return;
        }
    }
    if (played >= 0 && std::any_of(sides.begin(), sides.end(), [&](int s) {
            return game.improvable[2 * played + s] != 0;
        })) {
        state.ctx[C_STAGE] = ST_ADD;
        set_decision(state, K_ADD, leader);
        return;
    }
    start_action(state, 0);
}

// flow.start_action
void start_action(State& state, int step) {
    const int64_t mode = state.ctx[C_MODE];
    if (mode < 0 || mode >= NUM_MODES) throw std::logic_error("start_action without a mode");
    const int64_t* plan = MODE_PLAN[mode];
    const int side = step < 2 ? static_cast<int>(plan[step]) : -1;
    if (side < 0) {
        end_leader_play(state);
        return;
    }
    state.ctx[C_ACTION_STEP] = step;
    state.ctx[C_STAGE] = ST_ACTION;
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    const int32_t effect = state.game->effect(played_card(state), side);
    const auto any_suit = static_cast<int>(state.ctx[any_suit_slot(side)]);
    const bool full = side == plan[2] || state.ctx[C_BOTH_FULL] == 1;
    load_program(state, effect, leader, side, full, state.play_suits.data(), any_suit);
    run_program(state);
}

// flow.end_leader_play: the leader's card is resolved; rivals may follow its public action
// (p.8).
void end_leader_play(State& state) {
    state.ctx[C_SERIAL] += 1;
    const auto played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    if (played >= 0 && state.game->effect(played, PUBLIC) >= 0)
        next_follower(state, static_cast<int>(state.ctx[C_LEADER]));
    else
        after_follow(state);
}

// flow.next_follower: ask the next rival in turn order; every rival is asked, even one who
// can only pass, so that who is asked reveals nothing about hands (docs/rules.md).
void next_follower(State& state, int after) {
    const int n = state.num_players;
    const int64_t leader = state.ctx[C_LEADER];
    const int nxt = (after + 1) % n;
    if (nxt == leader) {
        state.ctx[C_FOLLOWER] = -1;
        // Rough Housing, "after each other rival player has followed or chosen not to"
        // (p.16): its holder, a rival who did not follow (-2 marks one who did), decides now.
        const int owner = state.perk_loc[PERK_ROUGH_HOUSING];
        if (owner >= 0 && owner != leader && state.ctx[C_ROUGH_HOUSING] == -1) {
            state.ctx[C_STAGE] = ST_ROUGH_HOUSING;
            set_decision(state, K_ROUGH_HOUSING, owner);
            return;
        }
        after_follow(state);
        return;
    }
    state.ctx[C_FOLLOWER] = nxt;
    state.ctx[C_STAGE] = ST_FOLLOW;
    set_decision(state, K_FOLLOW, nxt);
}

// flow.start_follow_program
void start_follow_program(State& state) {
    const auto f = static_cast<int>(state.ctx[C_FOLLOWER]);
    const int played = played_card(state);
    const FollowCounts fc = follow_counts(state, cards_in(state, Z_FOLLOWED, f));
    state.ctx[C_STAGE] = ST_FOLLOW_RUN;
    state.ctx[C_FOLLOW_TRASH] = 0;
    const int32_t effect = state.game->effect(played, PUBLIC);
    load_program(state, effect, f, PUBLIC, true, fc.counts.data(), fc.any_suit);
    state.ctx[C_RESOURCE_CHOICE] = state.ctx[C_LEADER_RESOURCE];
    run_program(state);
}

// flow.follow_counts: a coin counts as each suit of the leader's card, once per multiplier;
// "any one suit" is the leader's suit the follower holds most of (docs/rules.md R11).
FollowCounts follow_counts(const State& state, const std::vector<int>& cards) {
    const Game& game = *state.game;
    const SuitList follow_suits = leader_suits(state);
    FollowCounts out;
    // numpy's counts[t]: an undeclared coin (-1, only in a corrupt state) is the last entry
    const auto at = [](int t) { return static_cast<size_t>(t < 0 ? t + NUM_SUITS : t); };
    for (int cid : cards) {
        for (int k = 0; k < 2; ++k) {
            const int s = game.suit_lists[2 * cid + k];
            if (s < 0) continue;
            if (s == COIN) {
                for (int t : follow_suits) out.counts[at(t)] += 1;
            } else {
                out.counts[s] += 1;
            }
        }
    }
    // Python's max(follow_suits, key=count): the first of the largest
    bool first = true;
    for (int t : follow_suits) {
        if (first || out.counts[at(t)] > out.counts[at(out.any_suit)]) out.any_suit = t;
        first = false;
    }
    if (first) throw std::logic_error("follow_counts: the played card has no suit");
    return out;
}

// flow.leader_suits: suits a follower must match: the played card's, its coin as declared
// (p.8).
SuitList leader_suits(const State& state) {
    const Game& game = *state.game;
    const int played = played_card(state);
    SuitList out;
    for (int k = 0; k < 2; ++k) {
        const int s = game.suit_lists[2 * played + k];
        if (s < 0) continue;
        const int t = s == COIN ? state.coin_as[played] : s;
        if (std::find(out.begin(), out.end(), t) == out.end()) out.suit[out.n++] = t;
    }
    return out;
}

// flow.end_follow
void end_follow(State& state) {
    const auto f = static_cast<int>(state.ctx[C_FOLLOWER]);
    const auto to = static_cast<int8_t>(state.ctx[C_FOLLOW_TRASH] ? Z_TRASH : Z_DISCARD);
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_FOLLOWED && state.owner[c] == f) state.zone[c] = to;
    state.ctx[C_SERIAL] += 1;
    next_follower(state, f);
}

// flow.after_follow: Rough Housing, then "trash this card", then Do-Over (p.12, p.16).
void after_follow(State& state) {
    const auto played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    if (played >= 0 && (state.ctx[C_ROUGH_HOUSING] >= 0 || state.ctx[C_TRASH_THIS]))
        state.zone[played] = Z_TRASH;
    if (state.ctx[C_PLAYS] == 1 && played >= 0  // Do-Over follows a played card, not DIY
        && has_perk(state, leader, PERK_DO_OVER)
        // a card to play: in hand, or one Recycling can bring there first (R14, R15)
        && (count_in(state, Z_HAND, leader) > 0 || can_recycle(state, leader))) {
        state.ctx[C_STAGE] = ST_DO_OVER;
        set_decision(state, K_DO_OVER, leader);
        return;
    }
    to_recruit(state);
}

// flow.recruit_options
bool recruit_options(const State& state, int p, bool yards) {
    for (int c = 0; c < state.num_cards; ++c)
        if (state.zone[c] == Z_PARK || state.zone[c] == Z_PARK_DECK) return true;
    if (!yards) return false;
    for (int r : rivals(state, p))
        if (count_in(state, Z_YARD, r)) return true;
    return false;
}

// flow.to_recruit (p.9; nothing to recruit: the phase is skipped, docs/rules.md)
void to_recruit(State& state) {
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    state.ctx[C_PLAYED_CARD] = -1;
    if (recruit_options(state, leader, true)) {
        state.ctx[C_STAGE] = ST_RECRUIT;
        set_decision(state, K_RECRUIT, leader);
        return;
    }
    to_birthday(state);
}

// flow.to_birthday (Birthday Party, p.16)
void to_birthday(State& state) {
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    if (has_perk(state, leader, PERK_BIRTHDAY_PARTY) && recruit_options(state, leader, false)) {
        state.ctx[C_STAGE] = ST_BIRTHDAY;
        set_decision(state, K_BIRTHDAY, leader);
        return;
    }
    end_turn(state);
}

// flow.end_turn: Discard (p.9) and Draw (p.9) phases; then the next turn or the end (p.10).
void end_turn(State& state) {
    const Game& game = *state.game;
    const auto leader = static_cast<int>(state.ctx[C_LEADER]);
    for (int c = 0; c < state.num_cards; ++c) {
        if (state.owner[c] != leader) continue;
        if (state.zone[c] == Z_IN_PLAY)
            state.zone[c] = Z_DISCARD;
        else if (state.zone[c] == Z_HAND)  // Best Friends to the discard pile, others to the Yard
            state.zone[c] = static_cast<int8_t>(game.is_best_friend[c] ? Z_DISCARD : Z_YARD);
    }
    draw(state, leader, HAND_SIZE);
    state.player(leader, P_TURNS) += 1;
    check_end(state);
    const int nxt = (leader + 1) % state.num_players;
    if (state.ctx[C_END_TRIGGERED] && nxt == state.ctx[C_FIRST_PLAYER]) {
        state.ctx[C_STAGE] = ST_OVER;
        set_decision(state, K_TERMINAL, TERMINAL_PLAYER);
        return;
    }
    state.ctx[C_LEADER] = nxt;
    begin_turn(state);
}

// flow.check_end: end triggers (p.10): 25+ points, a Fort at Level 5, or an empty Park deck.
void check_end(State& state) {
    if (state.ctx[C_END_TRIGGERED]) return;
    bool end = true;  // an empty Park deck
    for (int c = 0; c < state.num_cards && end; ++c)
        if (state.zone[c] == Z_PARK_DECK) end = false;
    for (int p = 0; p < state.num_players && !end; ++p)
        if (state.player(p, P_SCORE) >= SCORE_TRIGGER ||
            state.player(p, P_FORT_LEVEL) >= MAX_FORT_LEVEL)
            end = true;
    if (end) state.ctx[C_END_TRIGGERED] = 1;
}

}  // namespace fort
