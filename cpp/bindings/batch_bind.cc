// _core.Batch and _core.SelfPlay: the batched envs (cpp/include/fort/envs/batch.h,
// self_play.h; what they share is env_batch.h) as Python sees them. Thin: every argument and
// buffer is checked here, with the GIL held, before the GIL is released for the call; the
// envs' logic is in src/envs/. The built-in seats are the bots' policies
// (native/seat_policies.h), one table shared by every env.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bind_common.h"
#include "fort/constants.h"
#include "fort/envs/batch.h"
#include "fort/envs/self_play.h"
#include "fort/native/seat_policies.h"

namespace py = pybind11;

namespace {

// The most threads a Batch may start (more than any machine it runs on has cores).
constexpr int64_t MAX_THREADS = 256;

std::string short_repr(const py::handle& v) { return py::repr(v).cast<std::string>().substr(0, 80); }

using fort_bind::int_value;

int64_t int_arg(const py::handle& v, const char* name, int64_t lo, int64_t hi) {
    int64_t x = 0;
    if (!int_value(v, &x) || x < lo || x > hi)
        throw py::value_error(std::string(name) + " must be an int in [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + "], got " + short_repr(v));
    return x;
}

// SingleAgentEnv's check of seat / first_player: None (-1) or a seat in [0, n).
int seat_arg(const py::handle& v, const char* name, int n) {
    if (v.is_none()) return -1;
    int64_t x = -1;
    if (!int_value(v, &x) || x < 0 || x >= n)
        fort_bind::raise_fort_error("ConfigError", std::string(name) + " must be None or in [0, " +
                                                       std::to_string(n) + "), got " + short_repr(v));
    return static_cast<int>(x);
}

double float_arg(const py::handle& v, const char* name) {
    PyObject* o = v.ptr();
    const bool number = !PyBool_Check(o) && (PyFloat_Check(o) || PyLong_Check(o) ||
                                             py::isinstance(v, py::module_::import("numpy").attr("number")));
    double x = number ? PyFloat_AsDouble(o) : NAN;
    if (x == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    if (!std::isfinite(x))
        throw py::value_error(std::string(name) + " must be a finite float, got " + short_repr(v));
    return x;
}

fort::RewardMode reward_arg(const py::handle& v) {
    static const char* const MODES[] = {"win_loss", "rank", "score_margin"};  // env.REWARD_MODES
    if (py::isinstance<py::str>(v)) {
        const auto s = v.cast<std::string>();
        for (int m = 0; m < 3; ++m)
            if (s == MODES[m]) return static_cast<fort::RewardMode>(m);
    }
    fort_bind::raise_fort_error(
        "ConfigError",
        "reward must be one of ('win_loss', 'rank', 'score_margin'), got " + short_repr(v));
}

// A 1-d (or, with cols > 0, 2-d (len, cols)) numpy integer array as int64 values, C order.
std::vector<int64_t> int_array(const py::handle& v, const char* name, int64_t length,
                               int64_t cols = 0) {
    const auto shape = [&]() -> std::string {
        return cols > 0 ? "(" + std::to_string(length) + ", " + std::to_string(cols) + ")"
                        : (length >= 0 ? "(" + std::to_string(length) + ",)" : "(K,)");
    };
    if (!py::isinstance<py::array>(v))
        throw py::type_error(std::string(name) + " must be a numpy integer array of shape " +
                             shape() + ", got " + py::str(py::type::of(v)).cast<std::string>());
    auto a = py::reinterpret_borrow<py::array>(v);
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u')
        throw py::type_error(std::string(name) + " must be a numpy integer array, got dtype " +
                             py::str(a.dtype()).cast<std::string>());
    const bool ok = cols > 0 ? a.ndim() == 2 && a.shape(0) == length && a.shape(1) == cols
                             : a.ndim() == 1 && (length < 0 || a.shape(0) == length);
    if (!ok)
        throw py::value_error(std::string(name) + " must have shape " + shape() + ", got " +
                              py::str(a.attr("shape")).cast<std::string>());
    auto c = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!c) throw py::error_already_set();
    return std::vector<int64_t>(c.data(), c.data() + c.size());
}

std::string shape_str(const std::vector<py::ssize_t>& shape) {
    std::string out = "(";
    for (size_t k = 0; k < shape.size(); ++k)
        out += std::to_string(shape[k]) + (shape.size() == 1 ? "," : k + 1 < shape.size() ? ", " : "");
    return out + ")";
}

// out[name]: a writeable C-contiguous numpy array of dtype T and exactly `shape`, else
// ValueError naming the buffer and what is wrong (the messages are built only then: this
// runs for ten buffers on every call).
template <typename T>
T* buffer(std::vector<py::array>& keep, const py::dict& d, const char* name, const std::vector<py::ssize_t>& shape) {
    const auto describe = [&] {
        return py::str(py::dtype::of<T>()).cast<std::string>() + " array of shape " +
               shape_str(shape);
    };
    PyObject* item = PyDict_GetItemString(d.ptr(), name);  // borrowed
    if (item == nullptr)
        throw py::value_error(std::string("out has no buffer '") + name + "' (a " + describe() +
                              "); Batch.buffers() makes them all");
    py::handle v(item);
    if (!py::isinstance<py::array>(v))
        throw py::value_error(std::string("out['") + name + "'] must be a numpy " + describe() +
                              ", got " + py::str(py::type::of(v)).cast<std::string>());
    auto a = py::reinterpret_borrow<py::array>(v);
    if (!a.dtype().is(py::dtype::of<T>()))
        throw py::value_error(std::string("out['") + name + "'] must be a " + describe() +
                              ", got dtype " + py::str(a.dtype()).cast<std::string>());
    bool same = a.ndim() == static_cast<py::ssize_t>(shape.size());
    for (size_t k = 0; same && k < shape.size(); ++k) same = a.shape(k) == shape[k];
    if (!same)
        throw py::value_error(std::string("out['") + name + "'] must be a " + describe() +
                              ", got shape " + py::str(a.attr("shape")).cast<std::string>());
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(std::string("out['") + name + "'] must be C-contiguous");
    if (!a.writeable()) throw py::value_error(std::string("out['") + name + "'] must be writeable");
    keep.push_back(a);
    return static_cast<T*>(a.mutable_data());
}

// The buffers of a call (batch.h BatchOut, self_play.h SelfPlayOut), checked, and references
// that keep them alive while the GIL is released.
template <typename Out>
struct Buffers {
    Out out;
    std::vector<py::array> keep;
};

// Each buffer of an env's calls, in the order buffers() makes them: field(name, the Out
// member, shape).
template <typename Fn>
void each_buffer(const fort::Batch& b, fort::BatchOut& o, Fn&& field) {
    const py::ssize_t B = b.num_envs(), D = b.observation_size(), N = b.num_actions();
    field("obs", o.obs, {B, D});
    field("mask", o.mask, {B, N});
    field("actor", o.actor, {B});
    field("seat", o.seat, {B});
    field("game_seed", o.game_seed, {B});
    field("reward", o.reward, {B});
    field("done", o.done, {B});
    field("illegal", o.illegal, {B});
    field("terminal_obs", o.terminal_obs, {B, D});
    field("end_info", o.end_info, {B, fort::END_FIELDS});
    field("end_scores", o.end_scores, {B, fort::MAX_PLAYERS, fort::SCORE_FIELDS});
}

template <typename Fn>
void each_buffer(const fort::SelfPlay& sp, fort::SelfPlayOut& o, Fn&& field) {
    const py::ssize_t B = sp.num_envs(), D = sp.observation_size(), N = sp.num_actions(),
                      n = sp.num_players();
    field("obs", o.obs, {B, D});
    field("mask", o.mask, {B, N});
    field("actor", o.actor, {B});
    field("codes", o.codes, {B, n});
    field("game_seed", o.game_seed, {B});
    field("rewards", o.rewards, {B, n});
    field("done", o.done, {B});
    field("end_info", o.end_info, {B, fort::SP_END_FIELDS});
    field("end_scores", o.end_scores, {B, fort::MAX_PLAYERS, fort::SCORE_FIELDS});
}

// The optional buffers of the observation's active features (env_batch.h EnvOut): all three
// or none.
template <typename Env, typename Fn>
void each_feature_buffer(const Env& env, fort::EnvOut& o, Fn&& field) {
    const py::ssize_t B = env.num_envs(), W = env.feature_width();
    field("features", o.features, {B, W});
    field("feature_values", o.feature_values, {B, W});
    field("feature_counts", o.feature_counts, {B});
}

constexpr const char* FEATURE_BUFFERS[] = {"features", "feature_values", "feature_counts"};

// The element type T of an Out member T*.
template <typename Ptr>
using element_of = std::remove_pointer_t<std::remove_reference_t<Ptr>>;

template <typename Out, typename Env>
Buffers<Out> buffers(const Env& env, const py::handle& out, const char* cls) {
    if (!py::isinstance<py::dict>(out))
        throw py::type_error(std::string("out must be a dict of numpy arrays (") + cls +
                             ".buffers()), got " + py::str(py::type::of(out)).cast<std::string>());
    const auto d = py::reinterpret_borrow<py::dict>(out);
    Buffers<Out> bs;
    const auto checked = [&](const char* name, auto& ptr, std::vector<py::ssize_t> shape) {
        ptr = buffer<element_of<decltype(ptr)>>(bs.keep, d, name, shape);
    };
    each_buffer(env, bs.out, checked);
    bool features = false;  // any of the three asks for all three
    for (const char* name : FEATURE_BUFFERS)
        features = features || PyDict_GetItemString(d.ptr(), name) != nullptr;
    if (features) each_feature_buffer(env, bs.out, checked);
    return bs;
}

template <typename Out, typename Env>
py::dict new_buffers(const Env& env, bool features) {
    const py::object zeros = py::module_::import("numpy").attr("zeros");
    py::dict d;
    Out unused;
    const auto fresh = [&](const char* name, auto& ptr, std::vector<py::ssize_t> shape) {
        d[name] = zeros(py::tuple(py::cast(shape)), py::dtype::of<element_of<decltype(ptr)>>());
    };
    each_buffer(env, unused, fresh);
    if (features) each_feature_buffer(env, unused, fresh);
    return d;
}

// The (K, cols) int codes of a call as int32 (a value outside int32 becomes INT32_MIN, which
// the env refuses as an unknown code).
std::vector<int32_t> codes_arg(const py::handle& codes, int64_t rows, int64_t cols) {
    const std::vector<int64_t> c = int_array(codes, "codes", rows, cols);
    std::vector<int32_t> c32(c.size());
    for (size_t k = 0; k < c.size(); ++k)
        c32[k] = c[k] < INT32_MIN || c[k] > INT32_MAX ? INT32_MIN : static_cast<int32_t>(c[k]);
    return c32;
}

// The docstrings of the methods an env defines alike (def_env).
struct EnvDocs {
    const char* buffers;
    const char* reset;
    const char* step;
    const char* state;
    const char* seat_codes;
};

// What Batch and SelfPlay define alike: their sizes, buffers(), reset, step (arguments and
// buffers checked with the GIL held, then released), state, seat_codes.
template <typename Env, typename Out>
void def_env(py::class_<Env>& cls, const char* name, const EnvDocs& docs) {
    cls.def_property_readonly("num_envs", &Env::num_envs)
        .def_property_readonly("num_players", &Env::num_players)
        .def_property_readonly("observation_size", &Env::observation_size)
        .def_property_readonly("num_actions", &Env::num_actions)
        .def_property_readonly("threads", &Env::threads)
        .def_property_readonly("feature_width", &Env::feature_width,
                               "W of the feature buffers: the most active entries an "
                               "observation can have (views/observation.h max_active_features).")
        .def("buffers", &new_buffers<Out, Env>, py::arg("features") = false, docs.buffers)
        .def(
            "reset",
            [name](Env& env, const py::handle& env_ids, const py::handle& seeds,
                   const py::handle& out) {
                const std::vector<int64_t> ids = int_array(env_ids, "env_ids", -1);
                const std::vector<int64_t> s =
                    int_array(seeds, "seeds", static_cast<int64_t>(ids.size()));
                Buffers<Out> bs = buffers<Out>(env, out, name);
                py::gil_scoped_release release;
                env.reset(ids.data(), static_cast<int>(ids.size()), s.data(), bs.out);
            },
            py::arg("env_ids"), py::arg("seeds"), py::arg("out"), docs.reset)
        .def(
            "step",
            [name](Env& env, const py::handle& env_ids, const py::handle& actions,
                   const py::handle& out, bool obs_kept) {
                const std::vector<int64_t> ids = int_array(env_ids, "env_ids", -1);
                const std::vector<int64_t> a =
                    int_array(actions, "actions", static_cast<int64_t>(ids.size()));
                Buffers<Out> bs = buffers<Out>(env, out, name);
                bs.out.obs_kept = obs_kept;
                py::gil_scoped_release release;
                env.step(ids.data(), static_cast<int>(ids.size()), a.data(), bs.out);
            },
            py::arg("env_ids"), py::arg("actions"), py::arg("out"), py::kw_only(),
            py::arg("obs_kept") = false, docs.step)
        .def(
            "state",
            [](const Env& env, const py::handle& i) {
                return env.state(static_cast<int>(int_arg(i, "env", 0, env.num_envs() - 1)));
            },
            py::arg("env"), docs.state)
        .def(
            "seat_codes",
            [](const Env& env, const py::handle& i) {
                return env.seat_codes(static_cast<int>(int_arg(i, "env", 0, env.num_envs() - 1)));
            },
            py::arg("env"), docs.seat_codes);
}

// The built-in seats' policies (native/seat_policies.h), one shared by every env.
std::shared_ptr<const fort::SeatPolicies> builtin_policies() {
    static const auto policies = std::make_shared<const fort::BuiltinPolicies>();
    return policies;
}

}  // namespace

void bind_batch(py::module_& m) {
    m.attr("NUM_POLICIES") = fort::NUM_POLICIES;
    m.attr("EXTERNAL") = fort::EXTERNAL;
    m.attr("LEARNER") = fort::LEARNER;
    m.attr("POLICY_STREAM") = py::int_(fort::POLICY_STREAM);
    py::dict end;
    end["seat"] = fort::END_SEAT;
    end["game_seed"] = fort::END_GAME_SEED;
    end["winners"] = fort::END_WINNERS;
    m.attr("END_INFO") = end;

    py::class_<fort::Batch> batch(m, "Batch", R"doc(B single-agent games of one Game stepped in one call
(cpp/include/fort/envs/batch.h is the spec: seats, seeds, rewards, buffers, threads).

Batch(game, num_envs, seat=None, first_player=None, reward="win_loss", shaping=0.0,
      illegal_reward=-1.0, threads=1)

Raises ValueError for num_envs < 1, threads outside [1, 256], a non-finite shaping or
illegal_reward; ConfigError for a bad seat, first_player or reward mode (SingleAgentEnv's
messages).)doc");
    batch.def(py::init([](std::shared_ptr<fort::Game> game, const py::object& num_envs,
                          const py::object& seat, const py::object& first_player,
                          const py::object& reward, const py::object& shaping,
                          const py::object& illegal_reward, const py::object& threads) {
                  fort::BatchOptions o;
                  o.num_envs = static_cast<int>(int_arg(num_envs, "num_envs", 1, 1 << 20));
                  o.seat = seat_arg(seat, "seat", game->num_players);
                  o.first_player = seat_arg(first_player, "first_player", game->num_players);
                  o.reward = reward_arg(reward);
                  o.shaping = float_arg(shaping, "shaping");
                  o.illegal_reward = float_arg(illegal_reward, "illegal_reward");
                  o.threads = static_cast<int>(int_arg(threads, "threads", 1, MAX_THREADS));
                  return std::make_unique<fort::Batch>(std::move(game), o, builtin_policies());
              }),
              py::arg("game"), py::arg("num_envs"), py::arg("seat") = py::none(),
              py::arg("first_player") = py::none(), py::arg("reward") = "win_loss",
              py::arg("shaping") = 0.0, py::arg("illegal_reward") = -1.0, py::arg("threads") = 1);
    def_env<fort::Batch, fort::BatchOut>(
        batch, "Batch",
        EnvDocs{
            "A dict of new zeroed buffers for reset/step: obs float32 (B, D), mask bool (B, N), "
            "actor int8 (B,), seat int8 (B,), game_seed int64 (B,), reward float32 (B,), "
            "done bool (B,), illegal bool (B,), terminal_obs float32 (B, D), end_info int64 "
            "(B, 3), end_scores int32 (B, 4, 6) (batch.h BatchOut); with features=True also "
            "features int32 (B, W), feature_values float32 (B, W), feature_counts int32 (B,): "
            "obs by its active entries (env_batch.h EnvOut, W = feature_width).",
            "Deal each listed env a new game (seeds[k] >= 0: re-seed env_ids[k]; -1: its next "
            "game), play it up to the learner or an external seat, write the envs' rows of "
            "`out`. The GIL is released meanwhile. Raises TypeError/ValueError (nothing "
            "changed) for bad arguments or buffers; RuntimeError naming an env that failed.",
            "Apply actions[k] for the seat to act in env env_ids[k] (the learner's: any int, an "
            "illegal one ends its episode; an external seat's: a legal action), play on to the "
            "learner or an external seat (auto-reset at the end of a game), write the envs' "
            "rows of `out`. obs_kept=True promises that out[\'obs\'] is the buffer of the last call and that nothing wrote into it since: each row is then cleared only where its last observation was non-zero (env_batch.h EnvOut::obs_kept); by default every row written is cleared first. "
            "The GIL is released meanwhile. Raises TypeError/ValueError (nothing "
            "changed) for bad arguments or buffers, an env not reset or an external seat's "
            "illegal action; RuntimeError naming an env that failed inside (reset it).",
            "A copy of env i's current state (a State). Raises ValueError for a bad env or one "
            "not reset.",
            "Env i's current game's seats: LEARNER (-2), EXTERNAL (-1) or a policy code."});
    batch.def(
        "set_opponents",
        [](fort::Batch& b, const py::handle& env_ids, const py::handle& codes) {
            const std::vector<int64_t> ids = int_array(env_ids, "env_ids", -1);
            const std::vector<int32_t> c =
                codes_arg(codes, static_cast<int64_t>(ids.size()), b.num_players() - 1);
            b.set_opponents(ids.data(), static_cast<int>(ids.size()), c.data());
        },
        py::arg("env_ids"), py::arg("codes"),
        "The rivals of each listed env's games from its next deal: codes int (K, n - 1), a "
        "built-in policy code (policy.h) or EXTERNAL (-1) per rival seat in seat order. "
        "Raises ValueError (nothing changed) for a bad env id or code.");

    py::dict sp_end;
    sp_end["game_seed"] = fort::SP_END_GAME_SEED;
    sp_end["winners"] = fort::SP_END_WINNERS;
    m.attr("SELF_PLAY_END_INFO") = sp_end;

    py::class_<fort::SelfPlay> self_play(m, "SelfPlay", R"doc(B games of one Game stepped in one call, every
LEARNER seat a sample (cpp/include/fort/envs/self_play.h is the spec: seat codes, per-seat
rewards, seeds, buffers, threads).

SelfPlay(game, num_envs, first_player=None, reward="win_loss", shaping=0.0, threads=1)

Raises ValueError for num_envs < 1, threads outside [1, 256], a non-finite shaping;
ConfigError for a bad first_player or reward mode.)doc");
    self_play.def(py::init([](std::shared_ptr<fort::Game> game, const py::object& num_envs,
                              const py::object& first_player, const py::object& reward,
                              const py::object& shaping, const py::object& threads) {
                      fort::SelfPlayOptions o;
                      o.num_envs = static_cast<int>(int_arg(num_envs, "num_envs", 1, 1 << 20));
                      o.first_player = seat_arg(first_player, "first_player", game->num_players);
                      o.reward = reward_arg(reward);
                      o.shaping = float_arg(shaping, "shaping");
                      o.threads = static_cast<int>(int_arg(threads, "threads", 1, MAX_THREADS));
                      return std::make_unique<fort::SelfPlay>(std::move(game), o,
                                                              builtin_policies());
                  }),
                  py::arg("game"), py::arg("num_envs"), py::arg("first_player") = py::none(),
                  py::arg("reward") = "win_loss", py::arg("shaping") = 0.0,
                  py::arg("threads") = 1);
    def_env<fort::SelfPlay, fort::SelfPlayOut>(
        self_play, "SelfPlay",
        EnvDocs{
            "A dict of new zeroed buffers for reset/step: obs float32 (B, D), mask bool (B, N), "
            "actor int8 (B,), codes int8 (B, n), game_seed int64 (B,), rewards float32 (B, n), "
            "done bool (B,), end_info int64 (B, 2), end_scores int32 (B, 4, 6) (self_play.h "
            "SelfPlayOut); with features=True also features int32 (B, W), feature_values "
            "float32 (B, W), feature_counts int32 (B,): obs by its active entries (env_batch.h "
            "EnvOut, W = feature_width).",
            "Deal each listed env a new game (seeds[k] >= 0: re-seed env_ids[k]; -1: its next "
            "game), play it to its first LEARNER or EXTERNAL decision, write the envs' rows of "
            "`out`. The GIL is released meanwhile. Raises TypeError/ValueError (nothing "
            "changed) for bad arguments or buffers; RuntimeError naming an env that failed.",
            "Apply actions[k] (legal) for the seat to act in env env_ids[k], play the built-in "
            "seats on to the next LEARNER or EXTERNAL decision (the next game dealt when one "
            "ends), write the envs' rows of `out`. obs_kept=True promises that out['obs'] is the buffer of the last call and that nothing wrote into it since: each row is then cleared only where its last observation was non-zero (env_batch.h EnvOut::obs_kept); by default every row written is cleared first. "
            "The GIL is released meanwhile. Raises "
            "TypeError/ValueError (nothing changed) for bad arguments or buffers, an env not "
            "reset, an illegal action; RuntimeError naming an env that failed inside.",
            "A copy of env i's current state (a State).",
            "Env i's current game's seats: LEARNER (-2), EXTERNAL (-1) or a policy code."});
    self_play
        .def(
            "set_seats",
            [](fort::SelfPlay& sp, const py::handle& env_ids, const py::handle& codes) {
                const std::vector<int64_t> ids = int_array(env_ids, "env_ids", -1);
                const std::vector<int32_t> c =
                    codes_arg(codes, static_cast<int64_t>(ids.size()), sp.num_players());
                sp.set_seats(ids.data(), static_cast<int>(ids.size()), c.data());
            },
            py::arg("env_ids"), py::arg("codes"),
            "The seats of each listed env's games from its next deal: codes int (K, n), LEARNER "
            "(-2), EXTERNAL (-1) or a built-in policy code per seat, at least one LEARNER or "
            "EXTERNAL. Raises ValueError (nothing changed) for a bad env id or code.")
        .def(
            "observe",
            [](const fort::SelfPlay& sp, const py::handle& env_ids, const py::handle& obs) {
                const std::vector<int64_t> ids = int_array(env_ids, "env_ids", -1);
                py::dict d;
                d["obs"] = obs;
                std::vector<py::array> keep;
                float* data = buffer<float>(
                    keep, d, "obs",
                    {static_cast<py::ssize_t>(ids.size()), sp.num_players(), sp.observation_size()});
                py::gil_scoped_release release;
                sp.observe(ids.data(), static_cast<int>(ids.size()), data);
            },
            py::arg("env_ids"), py::arg("obs"),
            "Write every seat's observation of each listed env's position into obs, float32 "
            "(K, n, D) (C-contiguous, writeable). Raises ValueError for a bad env id, an env "
            "not reset or a wrong buffer.");
}
