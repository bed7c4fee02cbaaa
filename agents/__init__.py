"""The bot zoo: agents for Fort and the registry that builds them by name.

``agents.make(spec, seed=None)`` builds an agent from a spec string ``NAME[:ARGS]``:

==============================  ===============================================================
spec                            agent
==============================  ===============================================================
``random``                      uniform over the legal actions
``builder``                     heuristic: pack, advance, race to Fort Level 5
``scorer``                      heuristic: victory points and its made-up rule
``opportunist``                 heuristic: follow, recruit from rivals' Yards, trash theirs
``heuristic``                   the strongest heuristic (:data:`HEURISTIC`)
``greedy[:k=v[:k=v]]``          one-play lookahead over determinised states (``agents.bots.greedy``)
``ismcts[:k=v[:k=v]]``          information-set MCTS (``agents.bots.ismcts``; in C++ when the
                                compiled core is usable), e.g. ``ismcts:ms=50``
                                (milliseconds per decision), ``ismcts:iterations=2000``
``ppo``                         the shipped policy for the table's player count
                                (``agents.learned.zoo``; ``ppo:players=N`` names one)
``ppo:PATH``                    a trained policy (registered by the training code)
``rllib:PATH:trusted=1``        a policy trained on Ray RLlib (``agents.learned.rllib_agent``;
                                needs Ray; its checkpoints are pickled, hence ``trusted=1``)
==============================  ===============================================================

``k=v`` arguments are passed to the agent's constructor, each converted by the type its
parameter declares (``agents.spec``: the one grammar of a spec; a value holding ``:`` is quoted,
``puct:model="C:/m.safetensors"``); an argument the agent does not take, or a value not of its
type, is a ``ConfigError`` naming the agent, the argument and the value. A ``seed=`` must be a
seed, an int in ``[0, 2**62)`` (``seed=abc`` or ``seed=1.5`` is such an error, on any agent:
:func:`check_seed_argument`).
New kinds are added with :func:`register` (a factory of a class can read its arguments with
``agents.spec.build(name, cls, args)``: typed by the constructor's signature); another package
adds its agents to every command (``--workers`` processes included) by naming a module in the
entry-point group ``fort_env.agents`` (``[project.entry-points."fort_env.agents"] mybot =
"mypkg.bots"``): each such module is imported when ``agents`` is, and registers its agents as
it loads. A plugin that fails to import (``sys.exit()`` in it included) is skipped with one
:class:`PluginWarning` naming it; the built-in names cannot be registered again (:func:`register`).
The agent protocol is in ``agents.base``; docs/benchmark.md has a worked example.

Trust: ``trusted=1`` lets ``ppo:`` load a pickled SB3 ``.zip`` and ``rllib:`` a Ray checkpoint
(pickles: loading one runs any code its author put in it). It is taken only from the caller:
the Python code that calls :func:`make`, or the command line of this invocation
(``--trust-pickle``). A spec read from a file (a run folder's ``config.json`` or
``checkpoints/state.json``, a record, a config) goes through :func:`check_file_spec`, which
refuses one that asks for trust (:class:`~fort_env.game.errors.ConfigError` naming the file):
refused rather than silently downgraded, so the user learns that the file asked for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents import spec as spec_grammar
from agents.base import Agent, BaseAgent, LazyObservation, MissingInfoError
from agents.bots.heuristics import BuilderAgent, HeuristicAgent, OpportunistAgent, ScorerAgent
from agents.bots.random_agent import RandomAgent
from agents.spec import SEED_KEY
from fort_env.views.seat import SeatView

__all__ = [
    "HEURISTIC", "PICKLED_KINDS", "Agent", "BaseAgent", "BuilderAgent", "FunctionAgent",
    "HeuristicAgent",
    "LazyObservation", "MissingInfoError", "OpportunistAgent", "PluginWarning", "RandomAgent",
    "ScorerAgent", "SeatView", "asks_trust", "available", "check_file_spec",
    "check_seed_argument", "is_built_in", "make", "plugin_agents", "register", "with_trust",
]  # fmt: skip

# The strongest heuristic, measured by `fort-env tournament` (see the module's tests/notes).
HEURISTIC = "builder"

Factory = Callable[[str | None], Agent]
_REGISTRY: dict[str, Factory] = {}
_BUILT_IN: frozenset[str] = frozenset()  # the project's own names, set once they are registered


class PluginWarning(UserWarning):
    """An agent plugin (entry-point group ``fort_env.agents``) failed to load and was skipped."""


def register(name: str, factory: Factory, *, overwrite: bool = False) -> None:
    """Make ``agents.make(f"{name}:ARGS")`` call ``factory(ARGS)`` (``None`` without ARGS).

    ``overwrite`` replaces another registration of ``name``, never a built-in agent's
    (``random``, ``heuristic``, ``ismcts``, ...): a plugin cannot silently change what a
    built-in name plays.

    Raises:
        ValueError: ``name`` is a built-in agent's, is taken (and ``overwrite`` is false), or
            is empty or contains ``:`` or ``,``.
    """
    if not isinstance(name, str) or not name or ":" in name or "," in name:
        raise ValueError(f"agent names cannot be empty or contain ':' or ',': {name!r}")
    if name in _BUILT_IN:
        raise ValueError(
            f"agent {name!r} is built in and cannot be re-registered; register the agent "
            "under another name"
        )
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = factory


def available() -> list[str]:
    """Registered agent names, sorted."""
    return sorted(_REGISTRY)


def check_seed_argument(name: str, args: str | None) -> None:
    """A ``seed=`` argument of the spec ``NAME:ARGS`` is a seed (an int in ``[0, 2**62)``,
    ``fort_env.game.inputs.SEED_RANGE``), checked before the agent is built: ``seed=abc`` or
    ``seed=1.5`` would otherwise reach numpy's generator and fail there with its ``TypeError``.

    Raises:
        ConfigError: a ``seed=`` that is not a seed (names the agent and the argument), or
            ``ARGS`` that do not parse (``agents.spec.SpecError``).
    """
    raw = spec_grammar.parse(f"{name}:{args}" if args else name).args.get(SEED_KEY)
    if raw is not None:
        spec_grammar.Param(SEED_KEY, int).convert(name, raw)


# The kinds whose files may be pickled, loaded only with ``trusted=1`` (module docstring).
PICKLED_KINDS = ("ppo", "rllib")
TRUST_KEY = "trusted"


def asks_trust(spec: str) -> bool:
    """Whether ``spec`` carries a ``trusted=`` argument other than ``trusted=0`` (in any
    position, with any spacing). It reads ``spec`` with the parser :func:`make` uses
    (``agents.spec``), so nothing ``make`` would read as trust slips past; a spec that does
    not parse, or whose ``trusted=`` is not a boolean, asks for trust if it says ``trusted``
    anywhere (``make`` refuses it anyway)."""
    try:
        raw = spec_grammar.parse(spec).args.get(TRUST_KEY)
        return raw is not None and spec_grammar.Param(TRUST_KEY, bool).convert("", raw)
    except spec_grammar.SpecError:
        return TRUST_KEY in spec


def check_file_spec(spec: object, source: object) -> str:
    """``spec``, an agent spec read from the file ``source``, if it is a string that does not
    ask for trust (module docstring: trust comes only from the caller, never from a file).

    Raises:
        ConfigError: ``spec`` is not a non-empty string, or it asks for ``trusted=1`` (the
            message names ``source`` and says how to load such a model instead).
    """
    from fort_env.game.errors import ConfigError, describe

    if not isinstance(spec, str) or not spec.strip() or len(spec) > 4096:
        raise ConfigError(
            f"{source}: an agent spec must be a non-empty string, got {describe(spec)}"
        )
    if asks_trust(spec):
        raise ConfigError(
            f"{source}: agent spec {spec!r} asks for trusted=1 (unpickling its model file); "
            "trust is never taken from a file, only from this command's --trust-pickle or the "
            "calling code. Convert an SB3 .zip you trust once "
            "(agents.learned.policy_file.convert_sb3_zip) and name the converted model instead"
        )
    return spec


def with_trust(spec: str) -> str:
    """``spec`` with ``trusted=1`` added if it names a file of a kind that may load a pickle
    (:data:`PICKLED_KINDS`: ``ppo:PATH``, ``rllib:PATH``) and does not say ``trusted=``
    already (``--trust-pickle``). Other specs (bare ``ppo``: the shipped model, never a
    pickle), and a spec that does not parse (``make`` says why), are returned as given."""
    try:
        parsed = spec_grammar.parse(spec)
    except spec_grammar.SpecError:
        return spec
    if parsed.name not in PICKLED_KINDS or parsed.path is None or TRUST_KEY in parsed.args:
        return spec
    return f"{spec.strip()}:{TRUST_KEY}=1"


def make(spec: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` (``NAME`` or ``NAME:ARGS``) and seed it.

    The agent's ``name`` is the spec itself, so that two variants in one tournament differ.
    ``seed`` goes to the agent's ``seed()`` method, if it has one. A factory may return a
    plain function ``(observation, info) -> action``: it plays as a :class:`FunctionAgent`.

    Raises:
        ValueError: an unknown name (the message lists the known ones) or bad arguments
            (``agents.spec.SpecError``, a ``ConfigError``: a spec that does not parse, an
            argument the agent does not take, a value not of its type, a ``seed=`` that is
            not a seed).
    """
    name, _, args = spec.strip().partition(":")
    factory = _REGISTRY.get(name.strip())
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(available())}")
    check_seed_argument(name.strip(), args)  # parses the whole spec: its grammar, first
    agent = factory(args or None)
    if not callable(getattr(agent, "act", None)) and callable(agent):
        agent = FunctionAgent(agent)  # a plain function (observation, info) -> action
    agent.name = spec.strip()
    seed_agent = getattr(agent, "seed", None)
    if callable(seed_agent):  # a user's agent may have no randomness to seed
        seed_agent(seed)
    return agent


class FunctionAgent:
    """A plain function ``(observation, info) -> action`` as an agent (:func:`make` wraps one
    a factory returns)."""

    def __init__(self, fn: Callable[[Any, Any], int]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")

    def act(self, observation: Any, info: Any) -> int:
        return int(self.fn(observation, info))

    def seed(self, seed: int | None) -> None:
        """Nothing to seed: the function's own randomness, if any, is its own."""


def construct(cls: type, args: str | None) -> Any:
    """``cls`` built from the ``key=value`` text ``args``, each value converted by the type
    its constructor parameter declares (``agents.spec.build``).

    Raises:
        ValueError: an argument that is not ``key=value`` or that ``cls`` does not take
            (the message lists the ones it takes), or a value not of its type.
    """
    return spec_grammar.build(cls.__name__, cls, args)


def _simple(name: str, cls: type[BaseAgent]) -> Factory:
    def factory(args: str | None) -> Agent:
        return spec_grammar.build(name, cls, args)  # type: ignore[no-any-return]

    return factory


def _lazy(name: str, module: str, cls_name: str) -> Factory:
    def factory(args: str | None) -> Agent:
        import importlib

        cls = getattr(importlib.import_module(f"{__name__}.{module}"), cls_name)
        return spec_grammar.build(name, cls, args)  # type: ignore[no-any-return]

    return factory


def _heuristic(args: str | None) -> Agent:
    agent = make(HEURISTIC if not args else f"{HEURISTIC}:{args}")
    return agent


register("random", _simple("random", RandomAgent))
register("builder", _simple("builder", BuilderAgent))
register("scorer", _simple("scorer", ScorerAgent))
register("opportunist", _simple("opportunist", OpportunistAgent))
register("heuristic", _heuristic)
register("greedy", _lazy("greedy", "bots.greedy", "GreedyAgent"))
register("ismcts", _lazy("ismcts", "bots.ismcts", "ISMCTSAgent"))
register("puct", _lazy("puct", "learned.puct", "PUCTAgent"))


def _ppo(args: str | None) -> Agent:
    # torch and stable-baselines3 (the train extra) load only when a policy is built
    from agents.learned.ppo import make_ppo_agent

    return make_ppo_agent(args)


register("ppo", _ppo)


def _rllib(args: str | None) -> Agent:
    from agents.learned.rllib_agent import make_rllib_agent

    return make_rllib_agent(args)


register("rllib", _rllib)


_BUILT_IN = frozenset(_REGISTRY)  # the project's own agents, registered above: never replaced


def is_built_in(spec: str) -> bool:
    """Whether the agent spec ``NAME[:ARGS]`` names one of the project's own agents (not one a
    plugin or ``register`` added)."""
    return spec.strip().partition(":")[0].strip() in _BUILT_IN


def plugin_agents() -> list[str]:
    """The names registered besides the project's own (by the ``fort_env.agents`` entry-point
    plugins, or by ``register`` at run time), sorted: ``fort-env ladder`` adds each that builds
    without arguments."""
    return sorted(set(_REGISTRY) - _BUILT_IN)


def _load_plugins() -> None:
    """Import every module of the entry-point group ``fort_env.agents`` (module docstring).

    A plugin that fails to import (any exception, ``SystemExit`` from a ``sys.exit()`` in it
    included; not ``KeyboardInterrupt``) is skipped with one :class:`PluginWarning` naming it,
    and whatever it registered before failing is taken back: a broken plugin never breaks the
    built-in agents or a command (``--help`` included). A plugin registering a built-in name
    fails so (:func:`register`)."""
    import warnings
    from importlib.metadata import entry_points

    for ep in entry_points(group="fort_env.agents"):
        before = dict(_REGISTRY)
        try:
            ep.load()
            # written into the registry past register(): the built-in names stay the project's
            replaced = sorted(n for n in _BUILT_IN if _REGISTRY.get(n) is not before[n])
            if replaced:
                raise ValueError(f"it replaced the built-in agent(s) {', '.join(replaced)}")
        except (Exception, SystemExit) as exc:  # a plugin's own failure: report it, go on
            _REGISTRY.clear()
            _REGISTRY.update(before)
            warnings.warn(
                f"agent plugin {ep.name!r} ({ep.value}) failed to load and is skipped: "
                f"{_failure_text(exc)}",
                PluginWarning,
                stacklevel=2,
            )


def _failure_text(exc: BaseException) -> str:
    """What a plugin's failure was, on one line (``SystemExit`` says it called ``sys.exit``)."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_load_plugins()


def _register_with_the_envs() -> None:
    """Let fort_env's envs build opponents given as spec strings (``opponents="ppo"``) with
    :func:`make` (``fort_env.envs.opponent_specs``: fort_env never imports agents)."""
    from fort_env.envs.opponent_specs import register_spec_resolver

    register_spec_resolver(make)


_register_with_the_envs()
