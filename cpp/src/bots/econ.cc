// agents/bots/econ.py in C++ (see include/fort/bots/econ.h).
#include "fort/bots/econ.h"

#include <algorithm>

namespace fort::econ {

namespace {

// econ._rule_points
double rule_points(const Econ& e, int rule) {
    switch (rule) {
        case RULE_PIGGY_BANK:
            return e.total(TOYS);
        case RULE_PIZZA_PARTY:
            return e.total(PIZZA);
        case RULE_SECRET_STASH:
            return e.pack[0] + e.pack[1];
        case RULE_POPULARITY:
            return e.lookout;
        case RULE_MINIMALISM:
            return e.level == 2 ? 8.0 : 0.0;
        default:
            return 0.0;
    }
}

// econ._pay
void pay(Econ& e, int r, int n) {
    const int from_stuff = std::min(n, e.stuff[r]);
    e.stuff[r] -= from_stuff;
    e.pack[r] -= n - from_stuff;
}

}  // namespace

// econ.econ_value
double econ_value(const Econ& e, const HeuristicStyle& st, int rule) {
    double v = st.w_score * e.score + st.level_value[std::min<int>(e.level, MAX_FORT_LEVEL)];
    const int toys = e.total(TOYS), pizza = e.total(PIZZA);
    if (e.level < MAX_FORT_LEVEL) {
        const FortStep& step = e.game->fort_steps[e.level];
        const int use_t = std::min(toys, step.toys), use_p = std::min(pizza, step.pizza);
        const int rest = toys - use_t + pizza - use_p;
        const int useful = use_t + use_p + std::min(rest, step.either);
        v += st.w_useful * useful + st.w_surplus * (toys + pizza - useful);
    } else {
        v += 0.2 * (toys + pizza);
    }
    v += st.w_pack * (e.pack[0] + e.pack[1]) + st.w_lookout * e.lookout;
    v += st.w_trash * e.trashed + st.w_recruit * e.recruited;
    v += st.w_rival_trash * e.rival_trashed + st.w_trash_this * e.trash_this;
    if (rule >= 0) v += st.w_rule * rule_points(e, rule);
    return v;
}

// econ.advance
bool advance(Econ& e, int modifier) {
    if (e.level >= MAX_FORT_LEVEL) return false;
    const Cost c = advance_cost(e.game->fort_steps[e.level], modifier);
    const int toys = e.total(TOYS), pizza = e.total(PIZZA);
    if (toys < c.toys || pizza < c.pizza || toys + pizza < c.toys + c.pizza + c.either)
        return false;
    pay(e, TOYS, c.toys);
    pay(e, PIZZA, c.pizza);
    for (int k = 0; k < c.either; ++k) pay(e, e.total(TOYS) >= e.total(PIZZA) ? TOYS : PIZZA, 1);
    e.level += 1;
    e.pack_cap += 1;
    return true;
}

namespace {

// econ._choose
int choose(Econ& e, int arg, bool gather) {
    if (arg != ANY_RESOURCE) return arg;
    if (e.choice < 0) {
        const int want = e.wanted();
        if (gather) {
            e.choice = e.stuff[want] < STUFF_CAPACITY ? want : 1 - want;
        } else {  // spend the resource the next step needs less
            e.choice = e.total(1 - want) ? 1 - want : want;
        }
    }
    return e.choice;
}

// econ._gain_pack
bool gain_pack(Econ& e, int p0, int p1) {
    const int from[2] = {p0, p1};
    int gained = 0;
    for (const int r : {static_cast<int>(PIZZA), static_cast<int>(TOYS)}) {
        const int add = std::min<int>(from[r], STUFF_CAPACITY - e.stuff[r]);
        e.stuff[r] += add;
        gained += add;
    }
    return gained > 0;
}

// econ._convert
bool convert(Econ& e) {
    if (e.convert_from < 0) {
        const auto n = e.need();
        e.convert_from = n[1] > n[0] ? TOYS : PIZZA;
    }
    const int src = e.convert_from, dst = 1 - src;
    if (e.stuff[src] && e.stuff[dst] < STUFF_CAPACITY) {
        e.stuff[src] -= 1;
        e.stuff[dst] += 1;
        return true;
    }
    if (e.pack[src]) {
        e.pack[src] -= 1;
        e.pack[dst] += 1;
        return true;
    }
    return false;
}

// econ._atom
bool atom(int verb, int arg, Econ& e) {
    switch (verb) {
        case V_GATHER: {
            const int r = choose(e, arg, true);
            if (e.stuff[r] >= STUFF_CAPACITY) return false;
            e.stuff[r] += 1;
            return true;
        }
        case V_SCORE:
            e.score += 1;
            return true;
        case V_PACK: {
            if (e.pack[0] + e.pack[1] >= e.pack_cap || e.stuff[0] + e.stuff[1] == 0) return false;
            const int r = e.stuff[PIZZA] >= e.stuff[TOYS] ? PIZZA : TOYS;
            e.stuff[r] -= 1;
            e.pack[r] += 1;
            return true;
        }
        case V_ADVANCE:
            return advance(e, arg);
        case V_SPEND: {
            const int r = choose(e, arg, false);
            if (e.total(r) == 0) return false;
            if (e.stuff[r]) {
                e.stuff[r] -= 1;
            } else {
                e.pack[r] -= 1;
            }
            return true;
        }
        case V_LOOKOUT:
            if (e.lookout >= e.level + 1 + e.lookout_bonus || e.spare_cards <= 0) return false;
            e.lookout += 1;
            e.spare_cards -= 1;
            return true;
        case V_TRASH:
            e.trashed += 1;
            return true;
        case V_TRASH_THIS:
            e.trash_this += 1;
            return true;
        case V_RECRUIT:
            e.recruited += 1;
            return true;
        case V_TRASH_RIVAL:
            if (e.rival_yard_cards <= 0) return false;
            e.rival_yard_cards -= 1;
            e.rival_trashed += 1;
            return true;
        case V_COPY_PACK:
            return gain_pack(e, e.pack[0], e.pack[1]);
        case V_COPY_RIVAL_PACK: {
            if (e.num_rivals == 0) return false;
            int best = 0, best_key = -1;
            for (int k = 0; k < e.num_rivals; ++k) {
                const int key = std::min<int>(e.rival_packs[k][0], STUFF_CAPACITY - e.stuff[0]) +
                                std::min<int>(e.rival_packs[k][1], STUFF_CAPACITY - e.stuff[1]);
                if (key > best_key) best = k, best_key = key;  // the first of equal ones
            }
            return gain_pack(e, e.rival_packs[best][0], e.rival_packs[best][1]);
        }
        case V_CONVERT:
            return convert(e);
        default:
            return false;
    }
}

struct Start {
    int level, pack, lookout;  // the action's start: what "x Fort Level/Pack/Lookout" count
};

// econ._count
int count(int mult, int arg, const Counts& counts, const Start& start) {
    switch (mult) {
        case MULT_CONST:
            return arg;
        case MULT_SUIT:
            return counts.suits[arg];
        case MULT_ANY_SUIT:
            return counts.any_suit;
        case MULT_FORT_LEVEL:
            return start.level;
        case MULT_PACK_SIZE:
            return start.pack;
        case MULT_LOOKOUT_SIZE:
            return start.lookout;
        default:
            return 0;
    }
}

// econ._run
bool run(const Game& g, int32_t node, Econ& e, const Counts& counts, const Start& start) {
    const EffectNode& nd = g.nodes[node];
    if (nd.kind == E_ATOM) return atom(nd.a, nd.b, e);
    if (nd.kind == E_THEN) {
        if (run(g, nd.a, e, counts, start)) {
            run(g, nd.b, e, counts, start);
            return true;
        }
        return false;
    }
    bool done = false;
    const int times = std::min(ECON_MAX_REPEAT, count(nd.b, nd.c, counts, start));
    for (int k = 0; k < times; ++k) done = run(g, nd.a, e, counts, start) || done;
    return done;
}

}  // namespace

// econ.simulate: run effect `root` (-1: blank) on e in place, as far as it goes.
bool simulate(const Game& g, int32_t root, Econ& e, const Counts& counts, int resource) {
    if (root < 0) return false;
    e.choice = resource;
    e.convert_from = -1;
    const Start start{e.level, e.pack[0] + e.pack[1], e.lookout};
    return run(g, root, e, counts, start);
}

// econ.simulate_play: a copy of e after using the sides in `order` (0 public, 1 private).
Econ simulate_play(const Game& g, int card, const int* order, int n_order, const Econ& e,
                   const Counts& counts, int resource) {
    Econ out = e;
    for (int k = 0; k < n_order; ++k) simulate(g, g.effect(card, order[k]), out, counts, resource);
    return out;
}

// Econ.of(view) for relative seat 0.
Econ econ_of(const heuristic::View& v) {
    Econ e;
    e.game = &v.g;
    e.stuff[0] = v.res(0, 0);
    e.stuff[1] = v.res(0, 1);
    e.pack[0] = v.res(0, 2);
    e.pack[1] = v.res(0, 3);
    e.level = v.level(0);
    e.score = v.score(0);
    e.lookout = static_cast<int>(v.lookout.size());
    e.pack_cap = v.pack_capacity(0);
    e.spare_cards = std::max(0, static_cast<int>(v.hand.size()) - 1);
    e.num_rivals = v.n - 1;
    for (int r = 1; r < v.n; ++r) {
        e.rival_packs[r - 1][0] = v.res(r, 2);
        e.rival_packs[r - 1][1] = v.res(r, 3);
    }
    for (int c = 0; c < v.s.num_cards; ++c)
        if (v.s.zone[c] == Z_YARD && v.s.owner[c] >= 0 && v.s.owner[c] != v.p) ++e.rival_yard_cards;
    return e;
}

}  // namespace fort::econ
