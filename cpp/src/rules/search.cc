// fort_env/game/rules/search.py in C++: the exact legal mask (docs/rules.md R32 "Exact masks").
#include "fort/rules/search.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "fort/game/errors.h"
#include "fort/game/game.h"
#include "fort/game/state.h"
#include "fort/rules/base.h"
#include "fort/rules/handlers.h"
#include "fort/rules/legality.h"
#include "fort/rules/program.h"
#include "fort/rules/witness.h"

namespace fort {

// base.SEARCHED_STAGES: stages inside a play whose choices must keep the play completable
bool searched_stage(int64_t stage) {
    switch (stage) {
        case ST_PLAY: case ST_DECLARE: case ST_MODE: case ST_ANY_SUIT: case ST_ADD:
        case ST_ADD_COIN: case ST_ACTION: case ST_FOLLOW: case ST_FOLLOW_SECOND:
        case ST_FOLLOW_RUN: case ST_PROBE:
            return true;
        default:
            return false;
    }
}

namespace {

int start(const Game& g, int range) { return g.action_start[range]; }

// `s` in legality.useful_suits(state)
bool useful_suit(const State& state, int s) {
    const auto useful = useful_suits(state);
    return std::find(useful.begin(), useful.end(), s) != useful.end();
}

bool in_range(const Game& g, int a, int range) {
    const int s = g.action_start[range];
    return s <= a && a < s + (RANGE_SIZE[range] < 0 ? g.num_cards : RANGE_SIZE[range]);
}


// ---------------------------------------------------------------- the memo (one per thread)
constexpr std::size_t MEMO_ENTRY_LIMIT = 200'000;   // as search.SEARCH_MEMO_LIMIT
constexpr std::size_t MEMO_BYTES_LIMIT = 48u << 20;  // keys are ~1 KB: bounded by bytes too

// search.digest + goal: the parts of the state the memo distinguishes, as (pointer, bytes), in
// a fixed order: every array (the running program's rows only: the rest is never read), then
// ctx and the goal. Calls f(part, bytes) for each; the memo hashes, compares and stores these
// parts in place, with no key assembled first (assembling one was most of the memo's cost).
template <typename F>
void for_each_key_part(const State& s, const int64_t& goal, F&& f) {
    const auto part = [&f](const auto& v, std::size_t n) { f(v.data(), n * sizeof(v[0])); };
    part(s.zone, s.zone.size());
    part(s.owner, s.owner.size());
    part(s.pos, s.pos.size());
    part(s.mark, s.mark.size());
    part(s.coin_as, s.coin_as.size());
    part(s.players, s.players.size());
    part(s.rule_loc, s.rule_loc.size());
    part(s.perk_loc, s.perk_loc.size());
    part(s.play_suits, s.play_suits.size());
    const auto len = static_cast<std::size_t>(
        std::clamp<int64_t>(s.ctx[C_PROGRAM_LENGTH], 0, MAX_STEPS));
    part(s.prog, len * PROG_COLUMNS);
    part(s.done, len);
    part(s.ctx, s.ctx.size());
    f(&goal, sizeof goal);
}

__extension__ typedef unsigned __int128 Wide;

// a 64x64 -> 128-bit product folded to 64 bits (wyhash's mixing step)
inline uint64_t fold_mul(uint64_t a, uint64_t b) {
    const Wide r = static_cast<Wide>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

template <typename T>
inline uint64_t load(const uint8_t* p) {
    T w;
    std::memcpy(&w, p, sizeof w);
    return static_cast<uint64_t>(w);
}

// The memo key's 64-bit hash (for the table's slots; equal keys are then compared in full),
// 16 bytes a multiplication.
uint64_t hash_key(const State& s, int64_t goal) {
    constexpr uint64_t K0 = 0xA0761D6478BD642Full, K1 = 0xE7037ED1A0B428DBull;
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for_each_key_part(s, goal, [&h](const void* data, std::size_t n) {
        const auto* p = static_cast<const uint8_t*>(data);
        std::size_t i = 0;
        for (; i + 16 <= n; i += 16) h = fold_mul(load<uint64_t>(p + i) ^ K0 ^ h, load<uint64_t>(p + i + 8) ^ K1);
        // the tail (fewer than 16 bytes) by fixed-size loads
        uint64_t a = 0, b = n;
        if (n - i >= 8) {
            a = load<uint64_t>(p + i);
            i += 8;
        }
        if (n - i >= 4) {
            b ^= load<uint32_t>(p + i) << 8;
            i += 4;
        }
        if (n - i >= 2) {
            b ^= load<uint16_t>(p + i) << 40;
            i += 2;
        }
        if (n - i >= 1) b ^= load<uint8_t>(p + i) << 56;
        h = fold_mul(a ^ K0 ^ h, b ^ K1);
    });
    return fold_mul(h ^ K1, h ^ K0);
}

// The key's length in bytes.
std::size_t key_size(const State& s, int64_t goal) {
    std::size_t n = 0;
    for_each_key_part(s, goal, [&n](const void*, std::size_t k) { n += k; });
    return n;
}

// Whether the stored key at `p` (`n` bytes) is this state's key.
bool key_equals(const uint8_t* p, std::size_t n, const State& s, int64_t goal) {
    std::size_t at = 0;
    bool same = true;
    for_each_key_part(s, goal, [&](const void* data, std::size_t k) {
        same = same && at + k <= n && std::memcmp(p + at, data, k) == 0;
        at += k;
    });
    return same && at == n;
}

// The key, written at `p` (key_size bytes).
void write_key(uint8_t* p, const State& s, int64_t goal) {
    for_each_key_part(s, goal, [&p](const void* data, std::size_t k) {
        std::memcpy(p, data, k);
        p += k;
    });
}

struct Memo {
    struct Slot {
        uint64_t hash = 0;
        uint32_t offset = 0;
        uint32_t len = 0;
        int8_t result = -1;  // -1: empty
    };
    std::weak_ptr<const Game> game;
    const Game* game_ptr = nullptr;
    std::vector<Slot> slots = std::vector<Slot>(1u << 12);
    // the keys, [0, used) of `capacity` bytes: grown by hand, since a vector would zero-fill
    // what it adds (valgrind counts such a fill byte by byte)
    std::unique_ptr<uint8_t[]> arena;
    std::size_t capacity = 0;
    std::size_t used = 0;
    std::size_t count = 0;
    uint64_t generation = 0;  // bumped by clear()

    void clear() {
        std::fill(slots.begin(), slots.end(), Slot{});
        used = 0;
        count = 0;
        ++generation;
    }
    // -1 unknown, else the verdict for the state's key (`n` bytes, hash `h`)
    int lookup(uint64_t h, std::size_t n, const State& state, int64_t goal) const {
        const std::size_t mask = slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot& s = slots[i];
            if (s.result < 0) return -1;
            if (s.hash == h && s.len == n && key_equals(arena.get() + s.offset, n, state, goal))
                return s.result;
        }
    }
    bool full(std::size_t n) const {
        return count >= MEMO_ENTRY_LIMIT || used + n > MEMO_BYTES_LIMIT;
    }
    // The key is stored before the children are searched (the state is consumed by them),
    // and its verdict committed after, unless the memo was cleared in between.
    uint32_t reserve(std::size_t n, const State& state, int64_t goal) {
        if (full(n)) clear();
        const auto offset = static_cast<uint32_t>(used);
        if (used + n > capacity) {  // (full() keeps used + n within the limit)
            capacity = std::min(std::max({2 * capacity, used + n, std::size_t{1} << 16}),
                                MEMO_BYTES_LIMIT);
            std::unique_ptr<uint8_t[]> bigger(new uint8_t[capacity]);  // (not zeroed)
            if (used) std::memcpy(bigger.get(), arena.get(), used);
            arena = std::move(bigger);
        }
        used += n;
        write_key(arena.get() + offset, state, goal);
        return offset;
    }
    void commit(uint64_t h, uint32_t offset, std::size_t n, bool result) {
        if ((count + 1) * 2 > slots.size()) grow();
        const std::size_t mask = slots.size() - 1;
        std::size_t i = h & mask;
        while (slots[i].result >= 0) i = (i + 1) & mask;
        slots[i] = Slot{h, offset, static_cast<uint32_t>(n), static_cast<int8_t>(result)};
        ++count;
    }
    void grow() {
        std::vector<Slot> old(slots.size() * 2);
        old.swap(slots);
        const std::size_t mask = slots.size() - 1;
        for (const Slot& s : old) {
            if (s.result < 0) continue;
            std::size_t i = s.hash & mask;
            while (slots[i].result >= 0) i = (i + 1) & mask;
            slots[i] = s;
        }
    }
};

// How deep search() may recurse: a play the rules reach needs a few hundred levels at most
// (its steps and choices, until its serial grows); past this, a state from outside loops
// (Python's own search would stop with RecursionError, a RuntimeError).
constexpr int MAX_SEARCH_DEPTH = 1000;

// The working lists of one level of the search (compute_legal, search_children), taken from a
// per-thread stack by nesting depth as ScratchState takes its States: once the stack is warm,
// the search allocates nothing for them (allocating and freeing them was about a tenth of a
// batched env's step: docs/performance.md "The legality search's lists").
struct Frame {
    std::vector<int> raw;
    std::vector<int> firsts;   // search_children: one action per equivalence class
    std::vector<EqKey> keys;   // the classes, in order of first appearance
    std::vector<std::vector<int>> members;  // compute_legal: [0, classes) in use, capacity kept
    std::size_t classes = 0;
};

// Objects taken by nesting depth (ScratchState's States, FrameLease's Frames): [0, depth) in
// use, the rest kept for reuse.
template <typename T>
struct Pool {
    std::vector<std::unique_ptr<T>> items;
    std::size_t depth = 0;
};

// What the search keeps per thread, in one object: in a shared library each thread_local is
// reached through a call to __tls_get_addr (and one more for the guard of an object with a
// destructor), which took as many instructions as the memo's table with one thread_local per
// counter and pool; now each function looks it up once.
struct SearchThread {
    Memo memo;
    int memo_off = 0;  // MemoOff objects alive on this thread
    int depth = 0;     // search() levels (DepthGuard), against MAX_SEARCH_DEPTH
    // Positions expanded by the search begun at depth 0, or by every search of one
    // compute_legal (search.py _Budget): a state written through the views, or a card set
    // whose actions branch at every step, would otherwise make the search exponential and
    // hold the GIL for hours; past SEARCH_NODE_BUDGET it throws StateError. The most a game
    // of the shipped cards needs is far below (reliability.md).
    int64_t nodes = 0;
    int64_t nodes_peak = 0;  // the most of one search (search_nodes_peak)
    Pool<State> scratch;     // ScratchState's States
    Pool<Frame> frames;      // FrameLease's Frames
    ~SearchThread();
};
// Reached through a plain pointer (a trivial thread_local: no guard or init call on each
// access), the object itself owned by tl_search_owner, which frees it when the thread ends.
thread_local SearchThread* tl_search = nullptr;
thread_local std::unique_ptr<SearchThread> tl_search_owner;

SearchThread::~SearchThread() { tl_search = nullptr; }  // (made again if used after)

inline SearchThread& search_thread() {
    SearchThread* t = tl_search;
    if (t == nullptr) {
        tl_search_owner = std::make_unique<SearchThread>();
        t = tl_search = tl_search_owner.get();
    }
    return *t;
}

Memo& memo_for(SearchThread& t, const std::shared_ptr<const Game>& game) {
    Memo& m = t.memo;
    // A live weak_ptr to the same address is the same Game; an expired one (a Game freed and
    // another allocated at its address) is not.
    if (m.game_ptr != game.get() || m.game.expired()) {
        m.clear();
        m.game = game;
        m.game_ptr = game.get();
    }
    return m;
}

class DepthGuard {
  public:
    explicit DepthGuard(SearchThread& t) : t_(t) {
        if (t.depth == 0) t.nodes = 0;
        if (++t.depth > MAX_SEARCH_DEPTH) {
            --t.depth;
            throw StateError("position", SEARCH_TOO_DEEP);
        }
    }
    ~DepthGuard() { --t_.depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

  private:
    SearchThread& t_;
};


class FrameLease {
  public:
    FrameLease() {
        Pool<Frame>& pool = search_thread().frames;
        if (pool.depth == pool.items.size()) pool.items.push_back(std::make_unique<Frame>());
        frame_ = pool.items[pool.depth++].get();
        depth_ = &pool.depth;
        frame_->raw.clear();
        frame_->firsts.clear();
        frame_->keys.clear();
        frame_->classes = 0;
    }
    ~FrameLease() { --*depth_; }
    FrameLease(const FrameLease&) = delete;
    FrameLease& operator=(const FrameLease&) = delete;
    Frame& operator*() const { return *frame_; }
    Frame* operator->() const { return frame_; }

  private:
    Frame* frame_;
    std::size_t* depth_;  // the pool's (no thread_local lookup when released)
};

}  // namespace

MemoOff::MemoOff() { ++search_thread().memo_off; }
MemoOff::~MemoOff() { --search_thread().memo_off; }

// ---------------------------------------------------------------- clones
ScratchState::ScratchState() {
    Pool<State>& pool = search_thread().scratch;
    if (pool.depth == pool.items.size()) pool.items.push_back(std::make_unique<State>());
    state_ = pool.items[pool.depth++].get();
    depth_ = &pool.depth;
}

ScratchState::~ScratchState() {
    state_->game.reset();  // a pooled state does not keep a game alive
    --*depth_;
}


// ---------------------------------------------------------------- the search
// (not in Python: the binding's check of a state from outside; see search.h)
void check_search_indices(const State& state) {
    check_indices(state);
    auto need = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("state: ") + what + " out of range");
    };
    const auto& x = state.ctx;
    const int64_t kind = x[C_DECISION], stage = x[C_STAGE];
    need(kind >= 0 && kind < NUM_DECISION_KINDS, "ctx.decision");
    need(stage >= 0 && stage < NUM_STAGES, "ctx.stage");
    // A finished game reads no actor; but its decision kind is still read by raw_legal (a
    // finished game whose ctx.decision was written through the views crashed it: issue 42),
    // so the fields that kind reads are checked whatever the stage.
    const bool over = stage == ST_OVER || kind == K_TERMINAL;
    need(over || (x[C_ACTOR] >= 0 && x[C_ACTOR] < state.num_players), "ctx.actor");
    const bool reads_played =
        kind == K_MODE || kind == K_DECLARE_COIN || kind == K_ANY_SUIT || kind == K_ADD ||
        kind == K_ADD_COIN || kind == K_FOLLOW || kind == K_FOLLOW_SECOND ||
        stage == ST_DECLARE || stage == ST_MODE || stage == ST_ANY_SUIT || stage == ST_ADD ||
        stage == ST_ADD_COIN || stage == ST_FOLLOW || stage == ST_FOLLOW_SECOND ||
        stage == ST_FOLLOW_RUN;
    need(!reads_played || x[C_PLAYED_CARD] >= 0, "ctx.played_card");
    const bool reads_mode = kind == K_ADD || kind == K_ADD_COIN || stage == ST_ANY_SUIT ||
                            stage == ST_ADD || stage == ST_ADD_COIN || stage == ST_ACTION;
    need(!reads_mode || x[C_MODE] >= 0, "ctx.mode");
    const bool reads_coin = kind == K_DECLARE_COIN || kind == K_ADD_COIN;
    need(!reads_coin || x[C_PENDING_COIN] >= 0, "ctx.pending_coin");
    const bool reads_row = kind == K_RESOURCE || kind == K_SPEND;
    need(!reads_row || x[C_PC] < x[C_PROGRAM_LENGTH], "ctx.pc");
}

// search.legal_actions (computed on each call; cached_legal_actions keeps it per position)
std::vector<int> legal_actions(State& state) { return compute_legal(state); }

// FortState.legal_actions with search.legal_cache's role (the cache: state.h LegalCache)
const std::vector<int>& cached_legal_actions(State& state) {
    LegalCache& cache = state.legal_cache;
    if (cache.valid && same_bytes(state, cache.position)) return cache.legal;
    cache.valid = false;
    check_search_indices(state);  // the arrays are writable from Python
    if (state.ctx[C_STAGE] == ST_OVER)
        cache.legal.clear();  // FortState.legal_actions: none once the game is over
    else
        compute_legal_into(state, cache.legal);  // leaves the state as it was
    state_bytes(state, cache.position);
    cache.valid = true;
    return cache.legal;
}

// search.legal_set: membership
bool is_legal(State& state, int a) {
    const std::vector<int>& legal = cached_legal_actions(state);
    return std::binary_search(legal.begin(), legal.end(), a);
}

// search.compute_legal
std::vector<int> compute_legal(State& state) {
    std::vector<int> out;
    compute_legal_into(state, out);
    return out;
}

void compute_legal_into(State& state, std::vector<int>& out) {
    out.clear();
    if (!searched_stage(state.ctx[C_STAGE])) {
        raw_legal_into(state, out);
        std::sort(out.begin(), out.end());
        return;
    }
    const FrameLease frame;
    std::vector<int>& raw = frame->raw;
    raw_legal_into(state, raw);
    if (constraint_met(state)) {
        out.assign(raw.begin(), raw.end());
        std::sort(out.begin(), out.end());
        return;
    }
    // one budget for the searches of every class (SearchThread::nodes): a level of its own
    const DepthGuard session(search_thread());
    const int64_t goal = state.ctx[C_SERIAL];
    std::vector<EqKey>& keys = frame->keys;
    std::vector<std::vector<int>>& members = frame->members;
    std::size_t& classes = frame->classes;
    for (int a : raw) {
        if (unsearched(state, a)) {
            out.push_back(a);
            continue;
        }
        const EqKey key = equivalence_key(state, a);
        const auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            keys.push_back(key);
            if (classes == members.size()) members.emplace_back();
            members[classes].assign(1, a);
            ++classes;
        } else {
            members[static_cast<std::size_t>(it - keys.begin())].push_back(a);
        }
    }
    // Inside a play already under way the state is known to be completable (every action
    // that led here was checked), so when only one class is left it needs no search.
    bool known_completable =
        state.ctx[C_STAGE] != ST_PLAY && state.ctx[C_STAGE] != ST_FOLLOW;
    std::size_t remaining = classes;
    const DeadTest dead = dead_modes_of_choice(state);
    for (std::size_t k = 0; k < classes; ++k) {
        const std::vector<int>& cls = members[k];
        bool ok;
        if (dead.active() && dead(state, cls[0])) {
            ok = false;  // no step of any way to use it can start: docs/rules.md R32
        } else if (known_completable && remaining == 1) {
            ok = true;  // the last class of a completable state: it is the completion
        } else if (runs_straight_through(state, cls[0])) {
            ok = true;
        } else {
            ScratchState clone;
            State& child = clone.copy_of(state);
            apply(child, cls[0]);
            ok = search(child, goal);
        }
        --remaining;
        if (ok) {
            out.insert(out.end(), cls.begin(), cls.end());
            known_completable = false;  // one completion found; the rest must be searched
        }
    }
    std::sort(out.begin(), out.end());
}

// search.constraint_met (never inside a legality probe: there the second action, used
// partially, must still reach the repetition an added card brings, R7)
bool constraint_met(const State& state) {
    return state.ctx[C_BOTH_FULL] == 0 && state.ctx[C_STAGE] == ST_ACTION &&
           state.ctx[C_ACTION_STEP] == 1 &&
           !state.ctx[C_PROGRAM_FULL] &&
           MODE_PLAN[state.ctx[C_MODE]][2] == MODE_PLAN[state.ctx[C_MODE]][0];
}

// search.unsearched (Recycling only at the Play decision: inside the leader's actions it
// uses up the perk, which a later tuck may need, R15)
bool unsearched(const State& state, int a) {
    const Game& g = *state.game;
    const int64_t kind = state.ctx[C_DECISION];
    return a == start(g, R_SKIP_PLAY) || a == start(g, R_ROUGH_HOUSE) ||
           (a == start(g, R_PASS) && kind == K_FOLLOW) ||
           (kind == K_PLAY && in_range(g, a, R_RECYCLE));
}

// search.equivalence_key (docs/rules.md R32 "Equivalent choices are tried once")
EqKey equivalence_key(const State& state, int a) {
    const Game& g = *state.game;
    const int range = g.action_range[a];
    const int i = g.action_index[a];
    switch (range) {
        case R_LOOKOUT_CARD: case R_TRASH_CARD: case R_RECRUIT_CARD: case R_TRASH_RIVAL_CARD:
            return {1, range, state.zone[i], state.owner[i]};
        case R_PLAY_CARD:
            return {2, g.kind[i], 0, 0};
        case R_ADD_CARD: case R_FOLLOW_CARD:
            return {3, range, state.zone[i], g.search_tables.suit_list_id(i)};
        case R_PICK_RULE:
            return {4, 0, 0, 0};  // which made-up rule cannot change what can be done now
        case R_RECYCLE:
            // inside the leader's actions (the only searched decisions that offer it) a hand
            // card matters to the rest of the play only by being there (R15)
            return {8, 0, 0, 0};
        default:
            break;
    }
    if (range == R_MODE && MODE_PLAN[i][2] == MODE_PLAN[i][0])
        // "X fully, then Y" can be completed exactly when "X only" can: Y, used as far as
        // it goes, never fails, and every card added for X is still allowed.
        return {5, MODE_PLAN[i][0], 0, 0};
    const int64_t kind = state.ctx[C_DECISION];
    if (range == R_SUIT && (kind == K_DECLARE_COIN || kind == K_ANY_SUIT)) {
        const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
        if (!g.has_any_suit[2 * played] && !g.has_any_suit[2 * played + 1]) {
            // the declared suit matters to the play only if one of the card's multipliers
            // counts it; other suits differ only for followers
            if (g.search_tables.counted_suits(played) >> i & 1u) return {0, a, 0, 0};
            return {6, 0, 0, 0};
        }
        if (interchangeable_suit(state, i)) return {7, state.play_suits[i], 0, 0};
    }
    if (range == R_SUIT && kind == K_ADD_COIN && !useful_suit(state, i))
        // an added coin declared as a suit no used action counts changes no count of the
        // play: every such suit has the same verdict (R7, docs/rules.md R32)
        return {6, 0, 0, 0};
    return {0, a, 0, 0};
}

// search.interchangeable_suit (docs/rules.md R32)
bool interchangeable_suit(const State& state, int s) {
    const Game& g = *state.game;
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    if (s == COIN || (g.search_tables.counted_suits(played) >> s & 1u)) return false;
    if (s == state.ctx[C_ANY_SUIT_PUBLIC] || s == state.ctx[C_ANY_SUIT_PRIVATE]) return false;
    const int leader = static_cast<int>(state.ctx[C_LEADER]);
    for (int c = 0; c < state.num_cards; ++c) {
        if (state.owner[c] != leader) continue;
        const int64_t z = state.zone[c];
        if (!(z == Z_HAND || (z == Z_LOOKOUT && !state.mark[c]))) continue;
        if (g.suit_lists[2 * c] == s || g.suit_lists[2 * c + 1] == s) return false;
    }
    return true;
}

// search.adding_cannot_help
bool adding_cannot_help(const State& state) {
    const Game& g = *state.game;
    const auto& plan = MODE_PLAN[state.ctx[C_MODE]];
    const int first = static_cast<int>(plan[0]), second = static_cast<int>(plan[1]);
    const int full = static_cast<int>(plan[2]);
    const int played = static_cast<int>(state.ctx[C_PLAYED_CARD]);
    const int effect = g.card_effects[2 * played + full];
    if (effect < 0 || !repeats_plain_body(g, effect)) return false;
    if (second >= 0) {
        const int other = full == first ? second : first;
        const int oe = g.card_effects[2 * played + other];
        if (oe >= 0)
            for (const auto& m : mults(g, oe))
                if (m.mult == MULT_SUIT || m.mult == MULT_ANY_SUIT) return false;
    }
    const int any_suit =
        static_cast<int>(state.ctx[full == PUBLIC ? C_ANY_SUIT_PUBLIC : C_ANY_SUIT_PRIVATE]);
    const int leader = static_cast<int>(state.ctx[C_LEADER]);
    const auto& outer = mults(g, effect)[0];  // the repeat's own multiplier
    return count_for(state, outer.mult, outer.arg, leader, state.play_suits.data(), any_suit) >= 1;
}

namespace {
// search._expand: search_children, counted against the budget
bool expand(SearchThread& t, State& state, int64_t goal) {
    if (++t.nodes > SEARCH_NODE_BUDGET) throw StateError("position", SEARCH_BUDGET_EXCEEDED);
    t.nodes_peak = std::max(t.nodes_peak, t.nodes);
    return search_children(state, goal);
}
}  // namespace

// search.search (the memo: see search.h)
bool search(State& state, int64_t goal) {
    if (state.ctx[C_PROGRAM_FAILED]) return false;
    if (state.ctx[C_SERIAL] > goal || !searched_stage(state.ctx[C_STAGE])) return true;
    if (constraint_met(state)) return true;
    SearchThread& t = search_thread();
    const DepthGuard depth(t);  // (not in Python: its recursion limit plays this part)
    if (t.memo_off > 0) return expand(t, state, goal);
    Memo& memo = memo_for(t, state.game);
    const std::size_t n = key_size(state, goal);
    const uint64_t h = hash_key(state, goal);
    const int known = memo.lookup(h, n, state, goal);
    if (known >= 0) return known != 0;
    const uint32_t offset = memo.reserve(n, state, goal);
    const uint64_t generation = memo.generation;
    const bool result = expand(t, state, goal);
    if (memo.generation == generation) memo.commit(h, offset, n, result);
    return result;
}

// search.search_children
bool search_children(State& state, int64_t goal) {
    const Game& g = *state.game;
    const FrameLease frame;
    std::vector<EqKey>& seen = frame->keys;
    if (state.ctx[C_DECISION] == K_ADD) {
        // Adding nothing is the cheapest completion to try; the addable cards (which need
        // probes to find) are only listed when it fails.
        ScratchState clone;
        State& child = clone.copy_of(state);
        apply(child, start(g, R_STOP_ADDING));
        if (search(child, goal)) return true;
        if (adding_cannot_help(state)) return false;
        seen.push_back({0, start(g, R_STOP_ADDING), 0, 0});
    }
    std::vector<int>& raw = frame->raw;
    raw_legal_into(state, raw);
    if (state.ctx[C_DECISION] == K_DECLARE_COIN) {
        // a coin declared as a suit the card counts is the likeliest completion: try first
        const uint32_t counted =
            g.search_tables.counted_suits(static_cast<int>(state.ctx[C_PLAYED_CARD]));
        const int suit0 = start(g, R_SUIT);
        std::stable_partition(raw.begin(), raw.end(),
                              [&](int a) { return (counted >> (a - suit0) & 1u) != 0; });
    } else if (state.ctx[C_DECISION] == K_MODE) {
        const auto dead = dead_modes(state, static_cast<int>(state.ctx[C_PLAYED_CARD]));
        const int mode0 = start(g, R_MODE);
        raw.erase(std::remove_if(raw.begin(), raw.end(), [&](int a) { return dead[a - mode0]; }),
                  raw.end());
        // A one-action mode whose straight run is a full use completes the play: try those
        // witnesses before searching any mode's subtree.
        for (int a : raw)
            if (runs_straight_through(state, a)) return true;
    }
    std::vector<int>& firsts = frame->firsts;
    const bool at_play = state.ctx[C_DECISION] == K_PLAY;
    for (int a : raw) {
        if (a == start(g, R_SKIP_PLAY) || (at_play && in_range(g, a, R_RECYCLE)))
            continue;  // not a way to complete the play under test
        const EqKey key = equivalence_key(state, a);
        if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
            seen.push_back(key);
            firsts.push_back(a);
        }
    }
    const std::size_t n = firsts.size();
    ScratchState clone;
    for (std::size_t j = 0; j < n; ++j) {
        // A searched state is a throwaway copy (its verdict is memoised under the key taken
        // before its children), so the last child is played on it without a clone.
        if (j + 1 == n) {
            apply(state, firsts[j]);
            return search(state, goal);
        }
        State& child = clone.copy_of(state);
        apply(child, firsts[j]);
        if (search(child, goal)) return true;
    }
    return false;
}

std::size_t search_memo_size() { return search_thread().memo.count; }

int64_t search_nodes_peak(bool reset) {
    SearchThread& t = search_thread();
    const int64_t peak = t.nodes_peak;
    if (reset) t.nodes_peak = 0;
    return peak;
}

void clear_search_memo() { search_thread().memo.clear(); }

}  // namespace fort
