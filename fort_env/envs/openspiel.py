"""Fort as an OpenSpiel game: importing this module registers ``"python_fort"`` with pyspiel.

Needs the ``openspiel`` extra (``pip install -c constraints.txt -e ".[openspiel]"``)::

    import pyspiel
    import fort_env.envs.openspiel  # registers "python_fort"

    game = pyspiel.load_game("python_fort", {"players": 3, "setup": "basic"})
    state = game.new_initial_state()  # a chance node: the deal

=====================  =======================================================================
Parameters             ``players`` (2..4, default 2; OpenSpiel's usual name for the player
                       count), ``setup`` (``"basic"`` or ``"advanced"``), ``deals`` (the number
                       of distinct deals the root chance node draws from, default 65536)
Game type              sequential, imperfect information, explicit stochastic, general sum
                       (ties are shared wins: every tied winner gets +1), terminal rewards
Chance                 one chance node at the root draws the deal: outcome ``k`` (uniform over
                       ``deals``) is the engine's seed. The engine's later shuffles are a
                       function of that seed (``FortState._rng``), so every later node is a
                       player node; the seed is hidden from the players like the deck order
Actions                the engine's flat layout: ``num_distinct_actions`` =
                       ``FortGame.num_distinct_actions``; ``legal_actions()`` the engine's
Returns                ``FortState.returns()``: +1 for each winner, -1 for the others
Observation tensor     ``FortState.observation_tensor(player)``: float32 ``(D,)``,
                       D = ``FortGame.observation_size`` (``fort_env/views/observation.py``)
Observation string     ``p<player>``, the table as text from that seat (``text.py``), the
                       pending decision and a digest of the observation tensor (so two states
                       share a string exactly when the seat's observations are equal)
Information state      the same tensor (Fort's observation summarises the public history, so
                       it is *not* perfect recall); the string adds the player's own past
                       actions, so a player's own choices are never merged
Resampling             ``resample_from_infostate(player, sampler)`` re-deals what ``player``
                       cannot see (``FortState.resample_hidden``); OpenSpiel's IS-MCTS uses it
Bots                   OpenSpiel's Python bots (MCTS, IS-MCTS) play it; wrap them in
                       :class:`RestartableBot` for ``evaluate_bots`` (it calls ``restart_at``)
Max game length        ``MAX_GAME_LENGTH`` decisions (random games here last 300-550); a bound
                       for tools that need one, not a rule of the game
=====================  =======================================================================
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

import numpy as np
import pyspiel

from fort_env.core import FortGame, FortState
from fort_env.game.errors import ConfigError
from fort_env.views.text import state_to_string

__all__ = [
    "GAME_NAME", "MAX_GAME_LENGTH", "FortObserver", "OpenSpielFortGame", "OpenSpielState",
    "RestartableBot",
]  # fmt: skip

GAME_NAME = "python_fort"
MAX_GAME_LENGTH = 5000
DEFAULT_DEALS = 65536
_DEFAULTS: dict[str, Any] = {"players": 2, "setup": "basic", "deals": DEFAULT_DEALS}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Fort",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class OpenSpielFortGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game (parameters in the module docstring).

    Raises:
        ConfigError: a bad player count, setup or number of deals.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        deals = p["deals"]
        if not isinstance(deals, int) or deals < 1:
            raise ConfigError(f"deals must be a positive int, got {deals!r}")
        self.fort = FortGame(int(p["players"]), str(p["setup"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.fort.num_distinct_actions,
            max_chance_outcomes=deals,
            num_players=self.fort.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, p)
        self.deals = deals

    def new_initial_state(self) -> OpenSpielState:
        """The root: a chance node whose outcome is the deal's seed."""
        return OpenSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> FortObserver:
        """The observer for observations (``perfect_recall=False``) and information states."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return FortObserver(self.fort.observation_size, own_actions=recall)


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A position: the root chance node, then a wrapped :class:`~fort_env.FortState`."""

    def __init__(self, game: OpenSpielFortGame, fort: FortState | None = None) -> None:
        super().__init__(game)
        # Only the FortState and small values live on the state: pyspiel clones a Python
        # state by deep-copying its attributes, and FortState copies itself cheaply (sharing
        # its immutable FortGame), which a reference to the FortGame here would not do.
        self.deals = game.deals
        self.fort: FortState | None = fort
        self.own_actions: list[list[int]] = [[] for _ in range(game.fort.num_players)]

    @property
    def fort_game(self) -> FortGame:
        """The engine's game (``OpenSpielFortGame.fort``)."""
        return self.get_game().fort  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ pyspiel API
    def current_player(self) -> int:
        if self.fort is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.fort.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.fort.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        assert self.fort is not None and player >= 0
        return self.fort.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deals: ``[(seed, 1 / deals) for seed in range(deals)]``."""
        assert self.fort is None
        p = 1.0 / self.deals
        return [(k, p) for k in range(self.deals)]

    def _apply_action(self, action: int) -> None:
        if self.fort is None:
            self.fort = self.fort_game.new_initial_state(seed=int(action))
            return
        self.own_actions[self.fort.current_player()].append(int(action))
        self.fort.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        assert self.fort is not None
        return self.fort.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.fort is not None and self.fort.is_terminal()

    def returns(self) -> list[float]:
        if self.fort is None:
            return [0.0] * self.fort_game.num_players
        return [float(r) for r in self.fort.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A state ``player_id`` cannot tell from this one (hidden cards and future shuffles
        re-dealt; ``probability_sampler`` is unused: the re-deal draws from a generator seeded
        by OpenSpiel's sampler when it is callable, else from fresh entropy)."""
        assert self.fort is not None, "no information state before the deal"
        seed = None
        if callable(probability_sampler):
            seed = int(float(probability_sampler()) * 2**32)
        rng = np.random.default_rng(seed)
        out = OpenSpielState(self.get_game(), self.fort.resample_hidden(player_id, rng))
        out.own_actions = [list(a) for a in self.own_actions]
        return out

    def __str__(self) -> str:
        return "chance: the deal" if self.fort is None else state_to_string(self.fort)


class RestartableBot(pyspiel.Bot):  # type: ignore[misc]
    """A bot that ``open_spiel.python.algorithms.evaluate_bots`` can run: it adds ``restart_at``
    to a bot that keeps no state between its decisions.

    ``evaluate_bots`` starts by calling ``bot.restart_at(state)``, which OpenSpiel's Python
    ``ISMCTSBot`` and ``MCTSBot`` do not implement ("RestartAt(state) not implemented"). They
    search afresh from each state they are given, so restarting them anywhere is
    ``restart()``: this wrapper says so and passes ``step``, ``inform_action`` and ``restart``
    through::

        bots = [RestartableBot(ismcts.ISMCTSBot(game, evaluator, 2.0, 100)) for _ in range(2)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)

    Do not wrap a bot that tracks the game (one that needs ``inform_action`` to follow it): its
    own ``restart_at`` is the one to implement.
    """

    def __init__(self, bot: Any) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def step(self, state: pyspiel.State) -> int:
        return int(self.bot.step(state))

    def restart(self) -> None:
        self.bot.restart()

    def restart_at(self, state: pyspiel.State) -> None:
        self.bot.restart()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)


class FortObserver:
    """OpenSpiel's Python observer protocol: ``tensor``, ``dict``, ``set_from``, ``string_from``.

    ``tensor``: float32 ``(D,)`` (``FortState.observation_tensor``); all zeros at the root.
    """

    def __init__(self, size: int, own_actions: bool) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.own_actions = own_actions

    def set_from(self, state: OpenSpielState, player: int) -> None:
        if state.fort is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.fort.observation_tensor(player)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        if state.fort is None:
            return f"p{player} before the deal"
        fort = state.fort
        d = fort.decision
        digest = blake2b(fort.observation_tensor(player).tobytes(), digest_size=8).hexdigest()
        text = (
            f"p{player}\n{state_to_string(fort, viewer=player)}\n"
            f"decision: {d.kind.name} of player {d.player} {d.context}\nview: {digest}"
        )
        if self.own_actions:
            text += "\nmy actions: " + " ".join(map(str, state.own_actions[player]))
        return text


pyspiel.register_game(_GAME_TYPE, OpenSpielFortGame)
