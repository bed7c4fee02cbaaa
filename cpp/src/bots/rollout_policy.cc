// agents/bots/heuristics.py (HeuristicAgent: BuilderAgent, ScorerAgent, OpportunistAgent) in
// C++ (see include/fort/bots/rollout_policy.h); the economy model it scores actions with,
// agents/bots/econ.py, is econ.cc, and the seat's view it reads, heuristic_view.h. The functions
// keep the Python names (_play_gain -> play_gain, ...), so the two can be read side by side;
// HeuristicAgent's methods take the bot (`self`: its style and perk order) first.
#include "fort/bots/rollout_policy.h"

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fort/bots/econ.h"
#include "fort/bots/heuristic_view.h"
#include "fort/bots/weights.h"
#include "fort/constants.h"
#include "fort/game/errors.h"
#include "fort/game/game.h"

namespace fort {

namespace {

using econ::advance;
using econ::Counts;
using econ::Econ;
using econ::econ_of;
using econ::econ_value;
using econ::simulate;
using econ::simulate_play;
using heuristic::View;

// ---------------------------------------------------------------------- the styles
// agents.bots.heuristics.BUILDER, SCORER and OPPORTUNIST (econ.Style), their perk orders as a
// rank per perk index and econ.MAX_REPEAT are generated from the Python source into
// fort/bots/weights.h (scripts/gen_weights.py): BUILDER_STYLE, BUILDER_PERK_RANK, ...,
// ECON_MAX_REPEAT. The bots (rollout_policy.h Heuristic) are below, after the handlers.

constexpr double TIE = 1e-9;  // scores this close are ties (drawn uniformly)

// heuristics.ORDERS (generated: weights.h)
constexpr auto& ORDERS = HEURISTIC_ORDERS;
constexpr auto& ORDER_LEN = HEURISTIC_ORDER_LEN;

// count_verb_arg over an effect tree.
int count_verb_arg(const Game& g, int32_t node, int verb, int arg) {
    if (node < 0) return 0;
    const EffectNode& nd = g.nodes[node];
    if (nd.kind == E_ATOM) return nd.a == verb && nd.b == arg;
    if (nd.kind == E_THEN)
        return count_verb_arg(g, nd.a, verb, arg) + count_verb_arg(g, nd.b, verb, arg);
    return count_verb_arg(g, nd.a, verb, arg);
}

// ---------------------------------------------------------------------- card values
// HeuristicAgent._compute_base_values without the suits' worth: the mean gain of the card's
// best way to be played over canonical positions (per game, style and made-up rule; cached per
// thread, as the search memo is).
struct BaseValues {
    std::weak_ptr<const Game> game;
    const Game* raw = nullptr;
    // [policy code][rule + 1]: the style's values for the rule
    std::array<std::array<std::vector<double>, NUM_MADE_UP_RULES + 1>, NUM_POLICIES> by_rule;
};

std::vector<double> compute_base_values(const Heuristic& self, const Game& g, int rule) {
    std::vector<Econ> bases;
    for (int level = 0; level < MAX_FORT_LEVEL; ++level) {  // heuristics._CANONICAL
        Econ e;
        e.game = &g;
        e.level = level;
        e.stuff[0] = e.stuff[1] = 2;
        e.pack[0] = e.pack[1] = std::min(level, 1);
        e.lookout = std::min(level, 2);
        e.pack_cap = level + 1;
        e.score = 0;
        e.spare_cards = 2;
        e.rival_yard_cards = 2;
        e.num_rivals = g.num_players - 1;
        for (int k = 0; k < e.num_rivals; ++k) e.rival_packs[k][0] = e.rival_packs[k][1] = 1;
        bases.push_back(e);
    }
    std::vector<double> out(static_cast<size_t>(g.num_cards), 0.0);
    for (int c = 0; c < g.num_cards; ++c) {
        Counts counts;
        int mx = 0;
        for (int k = 0; k < NUM_SUITS; ++k) {
            counts.suits[k] = g.suit_counts[c * NUM_SUITS + k] + 1;  // one added card
            mx = std::max(mx, counts.suits[k]);
        }
        counts.any_suit = mx;
        double sum = 0.0;
        for (const Econ& e : bases) {
            const double before = econ_value(e, self.style, rule);
            double best = -1e300;
            for (int o = 0; o < 4; ++o)
                best = std::max(best,
                                econ_value(simulate_play(g, c, ORDERS[o], ORDER_LEN[o], e, counts),
                                           self.style, rule));
            sum += best - before;
        }
        out[c] = sum / static_cast<double>(bases.size());
    }
    return out;
}

const std::vector<double>& base_values(const Heuristic& self, const State& s, int rule) {
    thread_local BaseValues cache;
    const Game* g = s.game.get();
    if (cache.raw != g || cache.game.expired()) {
        cache = BaseValues{};
        cache.game = s.game;
        cache.raw = g;
    }
    std::vector<double>& v = cache.by_rule[static_cast<int>(self.policy)][rule + 1];
    if (v.empty()) v = compute_base_values(self, *g, rule);
    return v;
}

// The card values of one view (HeuristicAgent.card_values): base + the suits' worth
// (_static_suit_worth, _bracelet_worth).
struct CardValues {
    const Heuristic& self;
    const View& v;
    const std::vector<double>& base;
    std::array<int, NUM_SUITS> mine{};  // for Friendship Bracelet
    CardValues(const Heuristic& bot, const View& view)
        : self(bot), v(view), base(base_values(bot, view.s, view.my_rule)) {
        if (v.my_rule == RULE_FRIENDSHIP_BRACELET) mine = v.my_suits();
    }
    // _static_suit_worth and _bracelet_worth
    double suit_worth(int c) const {
        const double w = self.style.w_rule;
        switch (v.my_rule) {
            case RULE_PLAY_PALACE:
                return w * v.suit_count(c, 1);
            case RULE_SLIME_LAB:
                return w * v.suit_count(c, 0);
            case RULE_BIG_PLANS:
                return w * v.g.printed_advances[c];
            case RULE_FRIENDSHIP_BRACELET: {
                int k = 0;
                for (int sk = 0; sk < NUM_PLAIN_SUITS; ++sk) k += v.suit_count(c, sk) && !mine[sk];
                return w * k;
            }
            case RULE_LONER:
                return v.g.is_best_friend[c] ? -2.0 * w : 0.0;
            default:
                return 0.0;
        }
    }
    double operator()(int c) const { return base[c] + suit_worth(c); }
};

// ---------------------------------------------------------------------- building blocks
// HeuristicAgent._available_counts: the played card's base counts plus my other hand cards
// (each coin a wild) and my Lookout.
Counts available_counts(const View& v, int played, const int* base) {
    std::array<int, NUM_SUITS> suits{};
    for (int k = 0; k < NUM_SUITS; ++k) suits[k] = base[k];
    int wild = 0;
    for (const int c : v.hand) {
        if (c == played) continue;
        for (int j = 0; j < 2; ++j) {
            const int sk = v.g.suit_lists[2 * c + j];
            if (sk < 0) continue;
            if (sk == COIN) {
                ++wild;
            } else {
                ++suits[sk];
            }
        }
    }
    for (const int c : v.lookout)
        for (int j = 0; j < 2; ++j) {
            const int sk = v.g.suit_lists[2 * c + j];
            if (sk >= 0 && sk != COIN) ++suits[sk];
        }
    Counts out;
    int mx = 0;
    for (int k = 0; k < NUM_SUITS; ++k) {
        out.suits[k] = suits[k] + wild;
        if (k < COIN) mx = std::max(mx, out.suits[k]);
    }
    out.any_suit = mx;
    return out;
}

// HeuristicAgent._play_gain over the given orders (indices into ORDERS, or one explicit).
double play_gain(const Heuristic& self, const View& v, int card, const Counts& counts) {
    const Econ e = econ_of(v);
    const double before = econ_value(e, self.style, v.my_rule);
    double best = -1e300;
    for (int o = 0; o < 4; ++o)
        best =
            std::max(best, econ_value(simulate_play(v.g, card, ORDERS[o], ORDER_LEN[o], e, counts),
                                      self.style, v.my_rule));
    return best - before;
}

double play_gain_order(const Heuristic& self, const View& v, int card, const Counts& counts,
                       const int* order, int len) {
    const Econ e = econ_of(v);
    const double before = econ_value(e, self.style, v.my_rule);
    return econ_value(simulate_play(v.g, card, order, len, e, counts), self.style, v.my_rule) -
           before;
}

// HeuristicAgent._counted_suits as a bitmask
uint32_t counted_suits(const View& v, int card) {
    uint32_t out = 0;
    for (int side = 0; side < 2; ++side) {
        const int32_t root = v.g.effect(card, side);
        if (root < 0) continue;
        for (const Mult& m : v.g.node_mults[root]) {
            if (m.mult == MULT_SUIT) out |= 1u << m.arg;
            if (m.mult == MULT_ANY_SUIT) out |= (1u << NUM_SUITS) - 1;
        }
    }
    return out;
}

// HeuristicAgent._is_spend_choice
bool is_spend_choice(const View& v) {
    if (v.played < 0 || v.running_side < 0) return false;
    const int32_t effect = v.g.effect(v.played, v.running_side);
    return count_verb_arg(v.g, effect, V_SPEND, ANY_RESOURCE) > 0 &&
           count_verb_arg(v.g, effect, V_GATHER, ANY_RESOURCE) == 0;
}

// HeuristicAgent.rule_estimate
double rule_estimate(const Heuristic& self, const View& v, int rule) {
    std::array<int, NUM_SUITS> suits{};
    int advances = 0, friends = 0;
    for (int c = 0; c < v.s.num_cards; ++c) {
        if (!v.mine_owned(c)) continue;
        for (int k = 0; k < NUM_SUITS; ++k) suits[k] += v.suit_count(c, k);
        advances += v.g.printed_advances[c];
        friends += v.g.is_best_friend[c] != 0;
    }
    switch (rule) {
        case RULE_BIG_PLANS:
            return 1.0 + advances;
        case RULE_FRIENDSHIP_BRACELET: {
            int distinct = 0;
            for (int k = 0; k < NUM_PLAIN_SUITS; ++k) distinct += suits[k] != 0;
            return distinct + (distinct == NUM_PLAIN_SUITS ? 1.0 : 0.5);
        }
        case RULE_PIGGY_BANK:
            return 2.0 + v.res(0, 1) + v.res(0, 3);
        case RULE_PIZZA_PARTY:
            return 2.0 + v.res(0, 0) + v.res(0, 2);
        case RULE_LONER:
            return 5.0 - 2.0 * friends;
        case RULE_MINIMALISM:
            return self.style.scorer ? 6.0 : 0.0;  // self.style.name == "scorer"
        case RULE_POPULARITY:
            return 2.0 + static_cast<double>(v.lookout.size());
        case RULE_PLAY_PALACE:
            return suits[1] + 1.0;
        case RULE_SECRET_STASH:
            return 1.0 + v.pack_capacity();
        case RULE_SLEEPOVER:
            return 3.0;
        case RULE_SLIME_LAB:
            return suits[0] + 1.0;
        default:
            return 0.0;
    }
}

// HeuristicAgent.follow_gain
double follow_gain(const Heuristic& self, const View& v, int card) {
    const Game& g = v.g;
    const int played = v.played;
    uint32_t leader_suits = 0;
    for (int k = 0; k < NUM_SUITS; ++k) {
        if (v.s.play_suits[k] <= 0) continue;
        bool on_card = false;
        for (int j = 0; j < 2; ++j) on_card = on_card || g.suit_lists[2 * played + j] == k;
        if (on_card || g.has_coin[played]) leader_suits |= 1u << k;
    }
    Counts counts;
    for (int j = 0; j < 2; ++j) {
        const int sk = g.suit_lists[2 * card + j];
        if (sk < 0) continue;
        if (sk == COIN) {
            if (leader_suits == 0) {
                ++counts.suits[COIN];
            } else {
                for (int t = 0; t < NUM_SUITS; ++t)
                    if (leader_suits & (1u << t)) ++counts.suits[t];
            }
        } else if (leader_suits & (1u << sk)) {
            ++counts.suits[sk];
        }
    }
    for (int k = 0; k < NUM_SUITS; ++k) counts.any_suit += counts.suits[k];
    Econ e = econ_of(v);
    e.spare_cards = std::max(0, static_cast<int>(v.hand.size()) - 1);
    Econ after = e;
    simulate(g, g.effect(played, PUBLIC), after, counts, v.leader_resource);
    return econ_value(after, self.style, v.my_rule) - econ_value(e, self.style, v.my_rule);
}

// HeuristicAgent._wanted: the resource to gather (Econ.wanted), unless my made-up rule scores
// one and the style weighs the rule above 1 (the scorer).
int wanted(const Heuristic& self, const View& v) {
    const Econ e = econ_of(v);
    if (v.my_rule == RULE_PIGGY_BANK && self.style.w_rule > 1) return TOYS;
    if (v.my_rule == RULE_PIZZA_PARTY && self.style.w_rule > 1) return PIZZA;
    return e.wanted();
}

double park_deck_value(const View& v, const CardValues& values) {
    double sum = 0.0;
    int k = 0;
    for (int c = 0; c < v.g.num_cards; ++c)
        if (!v.g.is_best_friend[c]) {
            sum += values(c);
            ++k;
        }
    return k ? sum / k : 0.0;
}

// ---------------------------------------------------------------------- the handlers
// One score per legal action; `range`/`idx` decode each (ActionLayout.decode).
void score_actions(const Heuristic& self, const View& v, const std::vector<int>& legal,
                   std::vector<double>& out) {
    const Game& g = v.g;
    auto range_of = [&](int a) { return static_cast<int>(g.action_range[a]); };
    auto index_of = [&](int a) { return static_cast<int>(g.action_index[a]); };
    out.assign(legal.size(), HEURISTIC_NEVER);
    const size_t n = legal.size();
    switch (v.kind) {
        case K_PLAY: {
            for (size_t k = 0; k < n; ++k) {
                const int a = legal[k], r = range_of(a), i = index_of(a);
                if (r == R_PLAY_CARD) {
                    const int c = i;
                    int own[NUM_SUITS];
                    for (int s = 0; s < NUM_SUITS; ++s) own[s] = v.suit_count(c, s);
                    if (g.has_coin[c]) own[COIN] -= 1;  // the coin is a wild below
                    Counts counts = available_counts(v, c, own);
                    if (g.has_coin[c]) {
                        for (int s = 0; s < NUM_SUITS; ++s) counts.suits[s] += 1;
                        counts.any_suit += 1;
                    }
                    out[k] = play_gain(self, v, c, counts);
                } else if (r == R_SKIP_PLAY) {
                    out[k] = -0.5;
                } else if (r == R_USE_DIY) {
                    const Econ e = econ_of(v);
                    Econ after = e;
                    advance(after, 1);
                    out[k] = econ_value(after, self.style, v.my_rule) -
                             econ_value(e, self.style, v.my_rule);
                }
            }
            return;
        }
        case K_DECLARE_COIN: {
            const uint32_t counted = counted_suits(v, v.played);
            int base[NUM_SUITS];
            for (int s = 0; s < NUM_SUITS; ++s) base[s] = v.s.play_suits[s];
            const Counts avail = available_counts(v, v.played, base);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_SUIT) continue;
                const int s = index_of(legal[k]);
                if (counted) {
                    out[k] = (counted & (1u << s)) ? avail.suits[s] : -1.0;
                } else {  // nothing counts it: the coin, which the fewest rivals can follow
                    out[k] = s == COIN ? 1.0 : 0.0;
                }
            }
            return;
        }
        case K_ANY_SUIT: {
            int base[NUM_SUITS];
            for (int s = 0; s < NUM_SUITS; ++s) base[s] = v.s.play_suits[s];
            const Counts avail = available_counts(v, v.played, base);
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_SUIT) out[k] = avail.suits[index_of(legal[k])];
            return;
        }
        case K_MODE: {
            int base[NUM_SUITS];
            for (int s = 0; s < NUM_SUITS; ++s) base[s] = v.s.play_suits[s];
            const Counts counts = available_counts(v, v.played, base);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_MODE) continue;
                const int m = index_of(legal[k]);
                const int first = static_cast<int>(MODE_PLAN[m][0]);
                const int second = static_cast<int>(MODE_PLAN[m][1]);
                const int full = static_cast<int>(MODE_PLAN[m][2]);
                const int order[2] = {first, second};
                out[k] = play_gain_order(self, v, v.played, counts, order, second < 0 ? 1 : 2) +
                         (full == first ? 0.01 : 0.0);
            }
            return;
        }
        case K_ADD: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_ADD_CARD) {
                    const int c = index_of(legal[k]);
                    out[k] = v.in_lookout(c) ? 10.0 : 5.0 - 0.1 * values(c);
                } else if (r == R_STOP_ADDING) {
                    out[k] = 0.0;
                }
            }
            return;
        }
        case K_ADD_COIN: {
            const uint32_t counted = counted_suits(v, v.played);
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_SUIT)
                    out[k] = (counted & (1u << index_of(legal[k]))) ? 1.0 : 0.0;
            return;
        }
        case K_RESOURCE: {
            const int want = wanted(self, v);
            const bool gathering = !is_spend_choice(v);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_RESOURCE) continue;
                const int r = index_of(legal[k]);
                const double room = static_cast<double>(STUFF_CAPACITY - v.res(0, r));
                const double sc = (r == want ? 1.0 : 0.0) + 0.1 * room;
                out[k] = gathering ? sc : -sc;
            }
            return;
        }
        case K_PACK: {
            const int want = wanted(self, v);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_PACK_FROM) continue;
                const int i = index_of(legal[k]);
                const int r = static_cast<int>(PACK_OPTIONS[i][0]);
                const bool supply = PACK_OPTIONS[i][1] != 0;
                out[k] =
                    (supply ? 5.0 : 0.0) + (r == want && supply ? 1.0 : 0.0) + 0.1 * v.res(0, r);
            }
            return;
        }
        case K_LOOKOUT: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_LOOKOUT_CARD) {
                    const int c = index_of(legal[k]);
                    const bool dbl = g.suit_lists[2 * c + 1] >= 0;
                    out[k] = (v.in_hand(c) ? -values(c) : 2.0) + (dbl ? 0.5 : 0.0);
                } else if (r == R_LOOKOUT_PARK_DECK) {
                    out[k] = 1.0;
                } else if (r == R_PASS) {
                    out[k] = 0.0;  // a tuck only Recycling could make: keep the perk (R15)
                }
            }
            return;
        }
        case K_TRASH: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_TRASH_CARD) out[k] = -values(index_of(legal[k]));
            return;
        }
        case K_RECRUIT:
        case K_BIRTHDAY: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_RECRUIT_CARD) {
                    const int c = index_of(legal[k]);
                    out[k] = values(c) + (v.s.zone[c] == Z_PARK ? 0.0 : self.style.yard_bonus);
                } else if (r == R_RECRUIT_PARK_DECK) {
                    out[k] = park_deck_value(v, values);
                } else if (r == R_PASS) {
                    out[k] = -0.5;
                }
            }
            return;
        }
        case K_PAY: {
            const double pack_weight =
                self.style.w_pack + (v.my_rule == RULE_SECRET_STASH ? self.style.w_rule : 0.0);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_PAY) continue;
                const int i = index_of(legal[k]);
                const int r = static_cast<int>(PAY_OPTIONS[i][0]);
                const bool from_pack = PAY_OPTIONS[i][1] != 0;
                const int total = v.res(0, r) + v.res(0, 2 + r);
                out[k] = 0.1 * total - (from_pack ? pack_weight + 0.1 : 0.0);
            }
            return;
        }
        case K_SPEND: {
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_SPEND_FROM)
                    out[k] = PAY_OPTIONS[index_of(legal[k])][1] ? -1.0 : 0.0;
            return;
        }
        case K_TRASH_RIVAL: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_TRASH_RIVAL_CARD) continue;
                const int c = index_of(legal[k]);
                const int owner = v.rival_yard_owner(c);
                const double strength = v.score(owner) + g.level_points[v.level(owner)];
                out[k] = values(c) + 0.05 * strength;
            }
            return;
        }
        case K_COPY_RIVAL: {
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_COPY_RIVAL) continue;
                const int r = index_of(legal[k]) + 1;
                out[k] = std::min(v.res(r, 2 + PIZZA), v.stuff_room(PIZZA)) +
                         std::min(v.res(r, 2 + TOYS), v.stuff_room(TOYS));
            }
            return;
        }
        case K_CONVERT: {
            const Econ e = econ_of(v);
            const double before = econ_value(e, self.style, v.my_rule);
            for (size_t k = 0; k < n; ++k) {
                if (range_of(legal[k]) != R_CONVERT) continue;
                const int i = index_of(legal[k]);
                const int src = static_cast<int>(CONVERT_OPTIONS[i][0]);
                Econ after = e;
                int* where = CONVERT_OPTIONS[i][1] ? after.pack : after.stuff;
                where[src] -= 1;
                where[1 - src] += 1;
                out[k] = econ_value(after, self.style, v.my_rule) - before;
            }
            return;
        }
        case K_PICK_RULE: {
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_PICK_RULE)
                    out[k] = rule_estimate(self, v, index_of(legal[k]));
            return;
        }
        case K_PICK_PERK: {
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_PICK_PERK)
                    out[k] = -self.perk_rank[index_of(legal[k])];
            return;
        }
        case K_FOLLOW:
        case K_FOLLOW_SECOND:
        case K_ROUGH_HOUSING: {
            const CardValues values(self, v);
            const bool second = v.kind == K_FOLLOW_SECOND;
            const size_t keep = second ? 0 : static_cast<size_t>(self.style.keep_cards);
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_PASS) {
                    out[k] = 0.0;
                } else if (r == R_FOLLOW_CARD && v.hand.size() > keep) {
                    const int c = index_of(legal[k]);
                    const double cost =
                        self.style.follow_threshold + 0.1 * std::max(0.0, values(c));
                    out[k] = follow_gain(self, v, c) - cost;
                } else if (r == R_ROUGH_HOUSE) {
                    const double worth = v.played >= 0 ? values(v.played) : 0.0;
                    out[k] = worth - self.style.rough_housing;
                }
            }
            return;
        }
        case K_DO_OVER: {
            double best = 0.0;
            for (const int c : v.hand) {
                int own[NUM_SUITS];
                for (int s = 0; s < NUM_SUITS; ++s) own[s] = v.suit_count(c, s);
                best = std::max(best, play_gain(self, v, c, available_counts(v, c, own)));
            }
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_DO_OVER) out[k] = best - 2.0;
                if (r == R_PASS) out[k] = 0.0;
            }
            return;
        }
        case K_STOP_OR_CONTINUE: {
            for (size_t k = 0; k < n; ++k) {
                const int r = range_of(legal[k]);
                if (r == R_CONTINUE_ACTION) out[k] = 1.0;
                if (r == R_STOP_ACTION) out[k] = 0.0;
            }
            return;
        }
        case K_DRAFT: {
            const CardValues values(self, v);
            for (size_t k = 0; k < n; ++k)
                if (range_of(legal[k]) == R_DRAFT_CARD) out[k] = values(index_of(legal[k]));
            return;
        }
        default:
            return;
    }
}

}  // namespace

// The bots (BuilderAgent, ScorerAgent, OpportunistAgent): a style and its perk order.
const Heuristic& heuristic_of(Policy policy) {
    static const Heuristic builder{Policy::BUILDER, BUILDER_STYLE, BUILDER_PERK_RANK};
    static const Heuristic scorer{Policy::SCORER, SCORER_STYLE, SCORER_PERK_RANK};
    static const Heuristic opportunist{Policy::OPPORTUNIST, OPPORTUNIST_STYLE,
                                       OPPORTUNIST_PERK_RANK};
    switch (policy) {
        case Policy::BUILDER:
            return builder;
        case Policy::SCORER:
            return scorer;
        case Policy::OPPORTUNIST:
            return opportunist;
        case Policy::RANDOM:
            break;
    }
    throw std::invalid_argument("heuristic_of: policy code " +
                                std::to_string(static_cast<int>(policy)) +
                                " is not a heuristic (builder, scorer, opportunist)");
}

std::vector<double> heuristic_scores(const Heuristic& self, const State& state,
                                     const std::vector<int>& legal) {
    std::vector<double> out;
    const int actor = static_cast<int>(state.ctx[C_ACTOR]);
    if (actor < 0 || actor >= state.num_players) {
        out.assign(legal.size(), HEURISTIC_NEVER);
        return out;
    }
    const View v(state, actor);
    score_actions(self, v, legal, out);
    return out;
}

int heuristic_action(const Heuristic& self, const State& state, const std::vector<int>& legal,
                     EventRng& rng) {
    if (legal.empty()) throw_no_legal_action();  // nothing to score (errors.h)
    if (legal.size() == 1) return legal[0];
    const std::vector<double> scores = heuristic_scores(self, state, legal);
    double best = -1e300;
    for (const double x : scores) best = std::max(best, x);
    int ties = 0;
    for (const double x : scores) ties += x >= best - TIE;
    uint64_t pick = ties > 1 ? rng.below(static_cast<uint64_t>(ties)) : 0;
    for (size_t k = 0; k < scores.size(); ++k)
        if (scores[k] >= best - TIE && pick-- == 0) return legal[k];
    return legal[0];
}

std::vector<double> builder_scores(const State& state, const std::vector<int>& legal) {
    return heuristic_scores(heuristic_of(Policy::BUILDER), state, legal);
}

int builder_action(const State& state, const std::vector<int>& legal, EventRng& rng) {
    return heuristic_action(heuristic_of(Policy::BUILDER), state, legal, rng);
}

}  // namespace fort
