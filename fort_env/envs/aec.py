"""The PettingZoo AEC environment of Fort: ``fort_v0``.

=================  =============================================================================
Creation           ``fort_env.env()``, ``fort_v0.env()``, ``make("aec", "fort_env/fort_v0")``
Actions            Discrete: ``Discrete(N)``, N = ``game.num_distinct_actions`` (676 here)
Parallel API       No (``is_parallelizable: False``: one agent decides at a time)
Agents             ``player_0`` .. ``player_{n-1}``; ``player_i`` is engine seat ``i``
Number of agents   2, 3 or 4
Observation        ``Dict(observation=Box(float32, (D,)), action_mask=Box(0, 1, (N,), int8))``
Observation size   D = ``game.observation_size`` (1482 here, the same for 2, 3 and 4 players)
=================  =============================================================================

("here": the shipped card set, C = 68 cards.) This module is the environment's spec; the rules
engine (``fort_env.core``) plays the game and this adapter maps its decisions to the
agent-environment cycle. ``fort_env.envs.aec`` names the ``env()`` function; the module's other
names are reached with ``from fort_env.envs.aec import raw_env, final_rewards, ...``. The spec's
parts that every env of ``fort_env.envs`` shares live beside it and are named here too: the
rewards (``rewards``), the observation space (``obs_space``), the argument checks (``checks``);
``env()``'s wrappers are ``aec_wrappers``.

Arguments
---------

``env(num_players=4, setup="basic", render_mode=None, reward="win_loss", cards=None,
max_decisions=None)``:

- ``num_players``: 2, 3 or 4.
- ``setup``: ``"basic"`` (deal 8 kid cards) or ``"advanced"`` (draft them, rulebook p.2).
- ``render_mode``: ``None``, ``"human"`` (prints) or ``"ansi"`` (returns the text).
- ``reward``: ``"win_loss"``, ``"rank"`` or ``"score_margin"`` (see Rewards).
- ``cards``: a directory of card data, or ``None`` for the shipped set (``docs/cards.md``).
- ``max_decisions``: truncate the game after this many decisions (``None``: never; a game
  always ends by the rules, so truncation only bounds episode length).

``env()`` wraps ``raw_env`` as PettingZoo's classic envs are: ``TerminateIllegalWrapper``
(an illegal action ends the game, -1 to the agent that took it, 0 to the others),
``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper`` (subclasses of PettingZoo's that read
the episode attributes faster). ``raw_env`` itself raises
:class:`~fort_env.game.errors.IllegalActionError` on an illegal action and leaves the game
unchanged. Both accept and refuse the same actions with the same errors: the wrapped env hands
what the raw env refuses (not an integer: ``TypeError``; out of ``range(N)``:
``IllegalActionError``; ``None`` for an agent that is not done, an action for one that is:
``ValueError``) to the raw env, which raises, before any wrapper; only an in-range illegal
action differs: the wrapped env ends the game as ``TerminateIllegalWrapper`` does.

Turn order
----------

One Fort turn is many small decisions, each one step of one agent. ``agent_selection`` is
always the engine's ``current_player()``: the leader's decisions in a row (play, mode, add,
the choices inside an action), then each follower in turn order for the follow decision, the
level rewards (made-up rule, perk) of whoever advanced, the recruit, and in the advanced setup
the draft picks. Agents must not assume that turns alternate.

Observation
-----------

``observe(agent)`` returns fresh arrays from that agent's own point of view, with no hidden
information of the others:

- ``"observation"``: float32, shape ``(D,)``: ``state.observation_tensor(seat)``,
  seat-relative (the agent first, then its rivals in turn order). Its named slices come from
  ``fort_env.observation_layout(num_players)`` (``layout.view(obs, name)`` returns one
  reshaped); for the shipped card set they are, in order:

    slice                 shape  meaning
    decision              26     one-hot kind of the pending decision
    actor                 4      one-hot seat (relative) that must act
    leader                4      one-hot seat (relative) of the leader
    first_player          4      one-hot seat (relative) of the first player
    played_card           C      the card being resolved (the leader's played card)
    mode                  6      one-hot way the leader uses the played card
    running_action        3      public?, private?, must be used fully?
    play_suits            7      suits counted for the played card (with added cards)
    any_suit              2x7    one-hot 'any one suit' chosen for public, private
    resource_choice       2x2    pizza/toys chosen in this action; by the leader's public
    convert_from          2      direction fixed for repeated conversions
    cost_to_pay           3      toys, pizza, either left to pay for Advance Fort
    my_hand               C      cards in my hand
    my_deck               C      cards in my deck (contents; the order is hidden)
    my_discard            C      cards in my discard pile
    my_yard               C      cards in my Yard
    my_lookout            C      cards in my Lookout
    my_made_up_rule       11     one-hot made-up rule I hold
    rule_stack            11     rules in the stack, only while I choose one
    my_draft_pack         C      advanced setup: the pack I am choosing from
    my_draft_kept         C      advanced setup: cards I kept
    in_play               C      played and added cards of the leader (face up)
    followed              C      cards a follower discarded to follow (face up)
    park                  C      cards in the Park
    trash                 C      cards returned to the box
    rival_yard            3xC    each rival's Yard
    rival_discard         3xC    each rival's discard pile
    rival_lookout_suits   3x7    suits shown in each rival's Lookout
    resources             4x4    Stuff pizza, Stuff toys, Pack pizza, Pack toys per seat
    fort_level            4x6    one-hot Fort Level per seat
    score                 4      Victory Track / 25 per seat
    pile_sizes            4x5    hand, deck, discard, Yard, Lookout sizes / 10
    has_made_up_rule      4      1 if the seat holds a made-up rule
    perks                 4x9    perks held per seat
    perk_row              9      perks still in the row
    perk_used             9      once-per-game perks trashed on use
    sculpture             5      macaroni sculpture: held by seat, or still free (last)
    turns                 4      turns taken per seat / 10
    park_deck_size        1      cards left in the Park deck / 60
    rule_stack_size       1      made-up rules left in the stack
    end_triggered         1      1 once an end trigger happened (p.10)
    seats                 4      1 for each seat in this game

  Every value is >= 0 and at most 1, except the count slices listed in
  :func:`count_slice_bounds` (suit counts, costs, resources, scores, pile sizes, turns).
- ``"action_mask"``: int8, shape ``(N,)``: 1 for each legal action of the agent; all zeros for
  an agent that is not acting (and for every agent once the game is over). The same mask is in
  ``infos[agent]["action_mask"]``.

Actions
-------

One ``Discrete(N)`` space serves every decision; the mask says which actions are legal now.
The ranges (``fort_env.game.actions``; ``game.layout.ranges()`` for any card set; the starts below
are for the shipped set; ``env.unwrapped.action_to_string(a)`` names an action):

    range              start    size  meaning
    PLAY_CARD          0-67     C     play this card from hand (Play phase, p.7)
    SKIP_PLAY          68       1     skip the Play phase
    USE_DIY            69       1     trash the DIY perk to Advance Fort at one more resource (p.16)
    RECYCLE            70-137   C     trash Recycling: take this card from your discard pile to hand
                                      (p.16)
    SUIT               138-144  7     declare a suit: a played or added coin card, or "any one suit"
                                      (p.13)
    MODE               145-150  6     which actions to use, their order, and which one is used fully
                                      (p.7)
    ADD_CARD           151-218  C     add this card from hand or Lookout to improve the played card
                                      (p.6-7)
    STOP_ADDING        219      1     add no more cards
    RESOURCE           220-221  2     pizza or toys, for an action that lets you choose (p.12)
    PACK_FROM          222-225  4     pack pizza/toys from Stuff, or from the supply with Sticky
                                      Fingers (p.12, 16)
    LOOKOUT_CARD       226-293  C     tuck this card into your Lookout (hand; Park or Yard with
                                      Bribe)
    LOOKOUT_PARK_DECK  294      1     Bribe: tuck the top card of the Park deck
    TRASH_CARD         295-362  C     trash this card from your hand or discard pile (p.12)
    RECRUIT_CARD       363-430  C     recruit this card from the Park or a rival's Yard (p.9)
    RECRUIT_PARK_DECK  431      1     recruit the top card of the Park deck
    PAY                432-435  4     pay one unit of a Fort cost: toys/pizza from Stuff/Pack (p.12)
    SPEND_FROM         436-439  4     spend one resource: toys/pizza from Stuff/Pack (p.13)
    TRASH_RIVAL_CARD   440-507  C     trash this card from a rival's Yard (p.13)
    COPY_RIVAL         508-510  3     copy the Pack of the rival 1, 2 or 3 seats to your left (p.13)
    CONVERT            511-514  4     pizza->toys or toys->pizza, in Stuff or Pack (p.13)
    PICK_RULE          515-525  11    keep this made-up rule from the stack (p.10)
    PICK_PERK          526-534  9     take this perk from the row (p.10)
    FOLLOW_CARD        535-602  C     discard this card to follow the leader's public action (p.8)
    PASS               603      1     decline: do not follow, do not use Do-Over, no Birthday Party
                                      recruit
    ROUGH_HOUSE        604      1     trash Rough Housing to trash the leader's played card (p.16)
    DO_OVER            605      1     trash Do-Over to play a second card (p.16)
    DRAFT_CARD         606-673  C     advanced setup: keep this card from the pack passed to you
                                      (p.2)
    STOP_ACTION        674      1     stop the action used partially here (p.6; docs/rules.md R3)
    CONTINUE_ACTION    675      1     go on with the action used partially: do its next step (R3)

Rewards
-------

Every reward is 0 until the game ends; then each agent gets one reward from the final scores
(``state.score_breakdown()``, rulebook p.11), so its return is that reward. Standing is ordered
by total points, then by Fort Level (the rulebook's tie-break).

- ``"win_loss"`` (default): +1 for a winner, -1 for the others (``state.returns()``). A shared
  victory (still tied after the Fort Level tie-break) gives every tied winner +1.
- ``"rank"``: linear in the place, ``1 - 2 k / (n - 1)`` for place ``k`` (0 first): +1 first,
  -1 last. Tied players get the mean of the places they share (two tied first of four: +2/3
  each; in two-player games a shared victory gives 0 to both).
- ``"score_margin"``: (own total - best rival total) / ``SCORE_MARGIN_SCALE`` (25, the
  end-trigger score of p.10): positive only for the sole leader on points.

A truncated game (``max_decisions``) gives no reward: every agent gets 0.

Terminations, truncations
-------------------------

All agents terminate together when the game ends. Truncations stay False unless
``max_decisions`` is set and reached first. Afterwards each agent is stepped with ``None`` once
(the standard AEC loop does this) and leaves ``env.agents``.

Other methods
-------------

- ``state()``: the global view for centralised training: every seat's observation
  concatenated, seat 0 first; float32, shape ``(num_players * D,)``, space ``state_space``.
- ``render()``: the table as text from the acting seat's point of view (rivals' hands as
  counts, their Lookouts as suits), the pending decision and the acting agent's legal actions;
  once the game is over the final table with every hand shown and the score breakdown.
  ``table_text()`` returns the same text whatever the render mode; ``action_to_string(a)``
  names an action in the current position.
- ``to_record()``: the game so far as a JSON-able record (``fort_env.records``).
- ``fort_state()`` / ``set_fort_state(state)``: a copy of the engine state (for search bots
  and analysis) / continue from a given position.
- ``copy.deepcopy(env)`` and ``pickle`` keep the whole state (the game, the bookkeeping and
  the record); PettingZoo's own classic envs reset instead.

Version history
---------------

* ``fort_v0``: first release (fort-env 0.1.0).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from fort_env.core import FortGame, FortState
from fort_env.envs.aec_wrappers import wrap_classic
from fort_env.envs.checks import MAX_SHAPING, check_shaping, draw_game_seed, is_legal
from fort_env.envs.obs_space import count_slice_bounds, observation_box
from fort_env.envs.rewards import (
    ILLEGAL_ACTION_REWARD,
    REWARD_MODES,
    SCORE_MARGIN_SCALE,
    final_rewards,
    rank_rewards,
    score_margin_rewards,
)
from fort_env.game.errors import ConfigError
from fort_env.game.inputs import as_action, check_seed
from fort_env.records import RecordError, make_record
from fort_env.views.text import card_label, state_to_string

# The env, and the names of its spec that live in the modules beside it (checks, rewards,
# obs_space): ``from fort_env.envs.aec import final_rewards`` keeps working.
__all__ = [
    "ILLEGAL_ACTION_REWARD", "MAX_SHAPING", "REWARD_MODES", "SCORE_MARGIN_SCALE",
    "check_shaping", "count_slice_bounds", "draw_game_seed", "env", "final_rewards", "is_legal",
    "observation_box", "rank_rewards", "raw_env", "score_margin_rewards",
]  # fmt: skip


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo classic envs are (see the module docstring):
    ``aec_wrappers.wrap_classic`` with ``ILLEGAL_ACTION_REWARD`` for an illegal action."""
    return wrap_classic(raw_env(**kwargs), ILLEGAL_ACTION_REWARD)


class raw_env(AECEnv):
    """Fort as a PettingZoo AEC environment; the module docstring is its spec.

    Args:
        num_players: 2, 3 or 4.
        setup: ``"basic"`` or ``"advanced"``.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
        reward: ``"win_loss"``, ``"rank"`` or ``"score_margin"``.
        cards: a card data directory, or ``None`` for the shipped set.
        max_decisions: truncate after this many decisions, or ``None``.

    Raises:
        ConfigError: a bad argument (player count, setup, reward mode, render mode,
            ``max_decisions``).
        CardDataError: malformed card data.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "fort_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 4,
        setup: str = "basic",
        render_mode: str | None = None,
        reward: str = "win_loss",
        cards: str | Path | None = None,
        max_decisions: int | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if max_decisions is not None and (
            type(max_decisions) is not int or max_decisions < 1  # bool is not a count
        ):
            raise ConfigError(f"max_decisions must be None or an int >= 1, got {max_decisions!r}")
        self.game = FortGame(num_players, setup, None if cards is None else str(cards))
        self.config: dict[str, Any] = {
            "num_players": num_players,
            "setup": setup,
            "cards": None if cards is None else str(cards),
        }
        self.render_mode = render_mode
        self.reward_mode = reward
        self.max_decisions = max_decisions
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents: list[str] = []
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        n_actions = self.game.num_distinct_actions
        box = observation_box(self.game)
        obs_space = spaces.Dict(
            {
                "observation": box,
                "action_mask": spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(n_actions)
        # One object each, shared by every agent (identical spaces; api_test wants the same
        # object on every call).
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = spaces.Box(
            low=np.tile(box.low, num_players), high=np.tile(box.high, num_players), dtype=np.float32
        )
        self._state: FortState | None = None
        # The acting seat's legal actions, int8; never handed out (observe() and the infos get
        # copies), so no caller can change it.
        self._mask = np.zeros(n_actions, dtype=np.int8)
        self._actor = -1  # the acting seat, -1 once the episode is over
        self._seeder: np.random.Generator | None = None  # draws seeds for reset(seed=None)
        self._seed: int | None = None  # the game's seed; None after set_fort_state()
        self._actions: list[int] = []  # actions since reset(), for the record

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game.

        Args:
            seed: the game's seed, an int in ``[0, 2**62)``: ``reset(seed=s)`` deals the same
                game as ``FortGame(...).new_initial_state(seed=s)``. ``None``: the next seed
                of a generator seeded by the last explicit seed (fresh entropy at first).
            options: unused (accepted for the PettingZoo API).

        Raises:
            ConfigError: a seed out of range.
        """
        if seed is not None:
            game_seed = check_seed(seed)
            self._seeder = np.random.default_rng(game_seed)
        else:
            if self._seeder is None:
                self._seeder = np.random.default_rng()
            game_seed = draw_game_seed(self._seeder)
        self._seed = game_seed
        self._actions = []
        self._start(self.game.new_initial_state(seed=game_seed))

    def _start(self, state: FortState) -> None:
        """Begin the episode bookkeeping at ``state`` (not terminal)."""
        self._state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._after_decision()

    def _after_decision(self) -> None:
        """Point ``agent_selection`` at the acting seat and refresh its mask and the infos.

        Once the episode is over (terminated or truncated) no seat acts and every mask is zeros.
        """
        state = self._live_state()
        n = self.game.num_distinct_actions
        acting: str | None = None
        if state.is_terminal() or any(self.truncations.values()):
            self._actor = -1
            self._mask = mask = np.zeros(n, dtype=np.int8)
        else:
            self._actor = state.current_player()
            self._mask = mask = state.legal_actions_mask().astype(np.int8)
            self.agent_selection = acting = self.possible_agents[self._actor]
        # a fresh array each (only the acting agent's is not zeros): changing one changes nothing
        self.infos = {
            agent: {"action_mask": mask.copy() if agent == acting else np.zeros(n, dtype=np.int8)}
            for agent in self.agents
        }

    def _mask_for(self, agent: str) -> np.ndarray:
        """A fresh int8 mask, shape ``(N,)``: the legal actions if ``agent`` acts, else zeros."""
        if self._seat[agent] == self._actor:
            return self._mask.copy()
        return np.zeros(self.game.num_distinct_actions, dtype=np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s view: ``{"observation": float32 (D,), "action_mask": int8 (N,)}``, fresh."""
        state = self._live_state()
        return {
            "observation": state.observation_tensor(self._seat[agent]),
            "action_mask": self._mask_for(agent),
        }

    def step(self, action: int | None) -> None:
        """Take ``action`` for ``agent_selection`` (``None`` for an agent that is done).

        Once every agent is done (``agents`` empty), ``step`` does nothing but warn, as
        PettingZoo's ``OrderEnforcingWrapper`` does: call ``reset()``.

        Raises:
            IllegalActionError: the action is not legal now; nothing changes.
            TypeError: ``action`` is not an int or numpy integer (a float, str, bool...).
        """
        if not self.agents:
            self._live_state()  # before reset(): RuntimeError
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is not done: step() needs an action, got None")
        state = self._live_state()
        a = as_action(action)
        state.apply_action(a)
        self._actions.append(a)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if state.is_terminal():
            finals = final_rewards(state, self.reward_mode)
            for name in self.agents:
                self.rewards[name] = float(finals[self._seat[name]])
            self.terminations = dict.fromkeys(self.agents, True)
            self._after_decision()
            self._accumulate_rewards()
        else:
            if self.max_decisions is not None and len(self._actions) >= self.max_decisions:
                self.truncations = dict.fromkeys(self.agents, True)
            self._after_decision()
            # every reward is 0 until the game ends: _accumulate_rewards() would add nothing
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As ``AECEnv.last``: ``agent_selection``'s observation, cumulative reward,
        terminated, truncated and info.

        Once every agent is done (``agents`` empty, after each took its ``step(None)``), the
        final view of the last agent: its observation (all-zero mask), reward 0 (already
        returned), terminated or truncated as the episode ended, ``{"action_mask": zeros}``;
        where ``AECEnv.last`` would raise ``KeyError``.
        """
        if self.agents:
            return super().last(observe)
        state = self._live_state()
        agent = self.agent_selection
        ended = state.is_terminal()
        info = {"action_mask": np.zeros(self.game.num_distinct_actions, dtype=np.int8)}
        return (self.observe(agent) if observe else None, 0.0, ended, not ended, info)

    def state(self) -> np.ndarray:
        """Every seat's observation concatenated, seat 0 first: float32 ``(num_players * D,)``."""
        s = self._live_state()
        return np.concatenate([s.observation_tensor(p) for p in range(self.game.num_players)])

    def render(self) -> str | None:
        """The table as text (module docstring); ``"ansi"`` returns it, ``"human"`` prints it."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render without a render mode: pass render_mode='ansi' or 'human'."
            )
            return None
        text = self.table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (text rendering only)."""

    # ------------------------------------------------------------------ Fort extras
    def table_text(self) -> str:
        """The text that ``render()`` shows: a function of the position and the acting seat."""
        s = self._live_state()
        if s.is_terminal():
            lines = ["Game over.", state_to_string(s)]
            for p, row in enumerate(s.score_breakdown()):
                parts = ", ".join(f"{k} {v}" for k, v in row.items())
                lines.append(f"{self.possible_agents[p]}: {parts}")
            lines.append(f"Winners: {', '.join(self.possible_agents[p] for p in s.winners())}")
            return "\n".join(lines)
        seat = s.current_player()
        lines = [self._describe_decision(), state_to_string(s, viewer=seat)]
        if self._actor < 0:
            lines.append(f"Truncated after {self.max_decisions} decisions.")
        else:
            lines.append(f"Legal actions of {self.possible_agents[seat]}:")
            legal = np.flatnonzero(self._mask).tolist()
            lines += [f"  {a:4d}  {s.action_to_string(a)}" for a in legal]
        return "\n".join(lines)

    def _describe_decision(self) -> str:
        s = self._live_state()
        d = s.decision
        ctx = d.context
        parts = [f"leader {self.possible_agents[ctx['leader']]}"]
        if "played_card" in ctx:
            parts.append(f"played {card_label(s, ctx['played_card'])}")
        if "mode" in ctx:
            parts.append(f"mode: {ctx['mode']}")
        if "side" in ctx:
            parts.append(f"running the {ctx['side']} action" + (" (fully)" if ctx["full"] else ""))
        if "cost" in ctx:
            toys, pizza, either = ctx["cost"]
            parts.append(f"to pay: {toys} toys, {pizza} pizza, {either} either")
        return f"{self.possible_agents[d.player]} to choose {d.kind.name} ({'; '.join(parts)})"

    def action_to_string(self, action: int) -> str:
        """A readable name of ``action`` in the current position."""
        return self._live_state().action_to_string(action)

    def fort_state(self) -> FortState:
        """A copy of the engine state (changing it does not change the env)."""
        return self._live_state().clone()

    def set_fort_state(self, state: FortState) -> None:
        """Continue from ``state``, a position of a game with this env's configuration.

        The episode bookkeeping restarts (rewards 0, no terminations, the decision count for
        ``max_decisions`` from 0) and ``to_record()`` raises until the next ``reset()``, since
        the position has no seed and action list.

        Raises:
            ConfigError: ``state`` is of another configuration or already over.
        """
        g = state.game
        if (g.num_players, g.setup, g.num_cards) != (
            self.game.num_players,
            self.game.setup,
            self.game.num_cards,
        ):
            raise ConfigError(f"state is of {g!r}, this env plays {self.game!r}")
        if state.is_terminal():
            raise ConfigError("set_fort_state needs a position that is not over")
        self._seed = None
        self._actions = []
        self._start(FortState.from_dict(self.game, state.to_dict()))

    def to_record(self) -> dict[str, Any]:
        """The game since ``reset()`` as a JSON-able record (``fort_env.records``).

        Raises:
            RecordError: the game started from ``set_fort_state()``, not from a seed.
        """
        if self._seed is None:
            raise RecordError("this game started from set_fort_state(): it has no seed record")
        return make_record(self.config, self._seed, self._actions, self._live_state())

    def _live_state(self) -> FortState:
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    # ------------------------------------------------------------------ copy and pickle
    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        memo[id(self.game)] = self.game  # immutable game facts: shared, not copied
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        del d["game"]  # rebuilt from self.config, on the same backend
        d["_backend"] = self.game.backend
        d["_state"] = None if self._state is None else self._state.to_dict()
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = d.copy()
        cfg = d["config"]
        # The backend it was pickled on (the two give the same results; an older pickle has
        # none and takes the default).
        d["game"] = FortGame(
            cfg["num_players"], cfg["setup"], cfg["cards"], d.pop("_backend", None)
        )
        if d["_state"] is not None:
            d["_state"] = FortState.from_dict(d["game"], d["_state"])
        self.__dict__.update(d)
