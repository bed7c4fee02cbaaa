"""Oracles that do not share code with what they check.

- Rewards: end positions built by hand, played to the end through the AEC env; every reward
  mode's values are worked out from the totals (track + Fort Level points, ``fort.toml``) and
  the spec in ``fort_env/envs/aec.py`` (Rewards), not from ``final_rewards``.
- ``resample_hidden``: many re-deals of a built position: every hidden card moves around, the
  counts of every pile, Best Friends and Lookout suits are kept, and nothing the observer sees
  moves (card by card, by the visibility tables of ``tests/reference_observation.py``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import fort_env
from fort_env import FortState
from tests.reference_observation import SEEN_BY_ALL, SEEN_BY_OWNER, SEEN_BY_RIVALS
from tests.scenario import build

LEVEL_POINTS = (0, 0, 1, 3, 9, 23)  # fort.toml victory_points


def final_rewards_through_env(state: FortState, reward: str) -> dict[int, float]:
    """Load ``state`` into the AEC env, take the first legal action until the game ends, and
    return each seat's cumulative reward."""
    n = state.game.num_players
    env = fort_env.raw_env(num_players=n, reward=reward)
    env.reset(seed=0)
    env.set_fort_state(state)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(200):
        if all(env.terminations.values()):
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
        for agent, r in env.rewards.items():
            total[agent] += r
    assert all(env.terminations.values())
    return {i: total[a] for i, a in enumerate(env.possible_agents)}


def ending(scores: dict[int, int], levels: dict[int, int]) -> FortState:
    """A 4-player position where the end is triggered and seat 0, the last seat of the round
    (seat 1 started it), is to play with an empty hand: the game ends after its turn, with
    the totals the arguments give (nothing else scores)."""
    return build(4, leader=0, first_player=1, end_triggered=True, score=scores, level=levels)


def totals(scores: dict[int, int], levels: dict[int, int]) -> list[int]:
    return [scores.get(p, 0) + LEVEL_POINTS[levels.get(p, 0)] for p in range(4)]


def test_breakdown_by_hand() -> None:
    s = ending({0: 20, 1: 24, 2: 24, 3: 10}, {0: 4, 1: 2, 2: 3})
    s.apply_action(s.legal_actions()[0])  # skip the Play phase
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    rows = [(20, 9, 4), (24, 1, 2), (24, 3, 3), (10, 0, 0)]  # track, Level points, Level
    assert s.score_breakdown() == [
        {"track": t, "fort_level": f, "made_up_rule": 0, "macaroni": 0, "total": t + f, "level": lv}
        for t, f, lv in rows
    ]
    assert s.winners() == [0]


def test_rewards_by_hand_clear_order() -> None:
    scores, levels = {0: 20, 1: 24, 2: 24, 3: 10}, {0: 4, 1: 2, 2: 3}
    assert totals(scores, levels) == [29, 25, 27, 10]
    # places: seat 0 first, seat 2 second, seat 1 third, seat 3 last
    want = {
        "win_loss": [1, -1, -1, -1],
        "rank": [1, -1 / 3, 1 / 3, -1],  # 1 - 2k/3 for place k
        "score_margin": [2 / 25, -4 / 25, -2 / 25, -19 / 25],  # (own - best rival) / 25
    }
    for mode, values in want.items():
        got = final_rewards_through_env(ending(scores, levels), mode)
        assert [got[p] for p in range(4)] == pytest.approx(values), mode


def test_rewards_by_hand_tie_broken_by_fort_level() -> None:
    # seats 0 and 2 both total 27; seat 2 has the higher Fort Level (3 against 2): it wins
    scores, levels = {0: 26, 1: 5, 2: 24, 3: 0}, {0: 2, 2: 3}
    assert totals(scores, levels) == [27, 5, 27, 0]
    want = {
        "win_loss": [-1, -1, 1, -1],
        "rank": [1 / 3, -1 / 3, 1, -1],
        "score_margin": [0, -22 / 25, 0, -27 / 25],  # on points alone the two are level
    }
    for mode, values in want.items():
        got = final_rewards_through_env(ending(scores, levels), mode)
        assert [got[p] for p in range(4)] == pytest.approx(values), mode


def test_rewards_by_hand_shared_victory() -> None:
    # seats 0 and 1: 25 points at Level 1 each, a tie the Fort Level does not break
    scores, levels = {0: 25, 1: 25, 2: 3, 3: 0}, {0: 1, 1: 1}
    assert totals(scores, levels) == [25, 25, 3, 0]
    want = {
        "win_loss": [1, 1, -1, -1],
        "rank": [2 / 3, 2 / 3, -1 / 3, -1],  # the mean of places 0 and 1: (1 + 1/3) / 2
        "score_margin": [0, 0, -22 / 25, -1],
    }
    for mode, values in want.items():
        got = final_rewards_through_env(ending(scores, levels), mode)
        assert [got[p] for p in range(4)] == pytest.approx(values), mode


# ---------------------------------------------------------------------------- resample_hidden
OBSERVER = 0


def hidden_position() -> FortState:
    """3 players, seat 0 observing: rivals with hands, decks and Lookouts; my deck of 4."""
    return build(
        3, leader=0,
        hands={0: ["Bug", "Doc"], 1: ["Ant", "Chef", "Kitty", "Rusty"],
               2: ["Skids", "Dash", "Bud"]},
        deck={0: ["Munch", "Dot", "Tink", "Wart"], 1: ["Prince", "Tiny", "Ghost"],
              2: ["Penny", "Sarge"]},
        lookout={0: ["Scout"], 1: ["Captain", "Patch"], 2: ["Moose"]},
        level={0: 1, 1: 1, 2: 1},
        discard={0: ["Lefty"], 1: ["Spike"]}, yard={2: ["Crash"]},
        park=["Bones", "Einstein", "Noodle Twins"],
    )  # fmt: skip


def places(state: FortState) -> list[tuple[str, int, int]]:
    d = state.to_dict()
    return [(c["zone"], c["owner"], c["pos"]) for c in d["cards"]]


def seen_card_by_card(zone: str, owner: int) -> bool:
    if zone in SEEN_BY_ALL:
        return True
    if owner == OBSERVER:
        return zone in SEEN_BY_OWNER
    return owner >= 0 and zone in SEEN_BY_RIVALS


ORDERED = {"deck", "park_deck", "park"}  # zones where pos means something


def test_resample_hidden_statistics() -> None:
    state = hidden_position()
    game = state.game
    before = places(state)
    bf = [c.is_best_friend for c in game.cards]
    suits = [tuple(sorted(c.suits)) for c in game.cards]
    obs = state.observation_tensor(OBSERVER)
    # Best Friends of boards not in the game stay out of it (everyone knows the boards)
    out = [i for i, (z, _, _) in enumerate(before) if z == "out_of_game"]
    hidden = [
        i for i, (z, o, _) in enumerate(before) if not seen_card_by_card(z, o) and i not in out
    ]
    own_deck = [i for i, (z, o, _) in enumerate(before) if z == "deck" and o == OBSERVER]
    visible = [i for i in range(game.num_cards) if i not in hidden]  # (with ``out``)
    assert len(hidden) > 50 and len(own_deck) >= 4

    def pile_counts(pl: list[tuple[str, int, int]]) -> Counter:
        return Counter((z, o) for z, o, _ in pl)

    def lookout_suits(pl: list[tuple[str, int, int]], seat: int) -> Counter:
        return Counter(suits[i] for i, (z, o, _) in enumerate(pl) if (z, o) == ("lookout", seat))

    draws = 300
    seen_at: dict[int, set[tuple]] = {i: set() for i in hidden}
    own_positions: dict[int, set[int]] = {i: set() for i in own_deck}
    in_rival_hand = Counter()
    hand_size = sum(1 for z, o, _ in before if z == "hand" and o == 1)
    for k in range(draws):
        other = state.resample_hidden(OBSERVER, np.random.default_rng(k))
        after = places(other)
        # nothing the observer sees moves; its observation is the same
        for i in visible:
            z, o, p = before[i]
            assert after[i][:2] == (z, o), (game.cards[i].name, before[i], after[i])
            if z == "park":  # the Park's slots are seen; my deck's order is not
                assert after[i][2] == p
        for i in own_deck:
            own_positions[i].add(after[i][2])
        assert np.array_equal(other.observation_tensor(OBSERVER), obs)
        assert other.legal_actions() == state.legal_actions()
        assert np.array_equal(other.players, state.players)
        # every pile keeps its size, every rival Lookout its suits, Best Friends their owner
        assert pile_counts(after) == pile_counts(before)
        for seat in (1, 2):
            assert lookout_suits(after, seat) == lookout_suits(before, seat)
        for i in hidden:
            if bf[i]:
                assert after[i][1] == before[i][1], game.cards[i].name
                # in its owner's hand, deck or Lookout (a Lookout slot of its suits: a rival
                # cannot tell it from another card with those suits, fort_env/views/hidden.py)
                assert after[i][0] in ("hand", "deck", "lookout"), game.cards[i].name
            seen_at[i].add(after[i] if after[i][0] in ORDERED else after[i][:2])
            in_rival_hand[i] += after[i][:2] == ("hand", 1)
    # every hidden card moves around: it is seen in more than one place over the draws
    stuck = [game.cards[i].name for i in hidden if len(seen_at[i]) < 2]
    assert not stuck, stuck
    # my own deck: its cards stay mine (checked above), at every depth over the draws
    depth = len(own_deck)
    for i in own_deck:
        assert len(own_positions[i]) == depth, (game.cards[i].name, own_positions[i])
    # rival 1's hand is dealt from every free card (not a Best Friend, not tied to a Lookout
    # suit): each such card lands there about hand_size / free_cards of the time
    lookout_sigs = {suits[i] for i in hidden if before[i][0] == "lookout"}
    free = [i for i in hidden if not bf[i] and suits[i] not in lookout_sigs]
    pool = [i for i in hidden if not bf[i]]
    expected = draws * hand_size / len(pool)
    low = [game.cards[i].name for i in free if in_rival_hand[i] < 0.3 * expected]
    high = [game.cards[i].name for i in free if in_rival_hand[i] > 2.5 * expected]
    assert not low and not high, (expected, low, high)
