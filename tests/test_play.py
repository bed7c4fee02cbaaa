"""Human play in the terminal: scripted input, bad input asked again, final breakdown shown."""

from __future__ import annotations

import itertools

import pytest

from agents.arena.human import HumanQuit, _public_text, ask, play_human, resolve_opponents
from fort_env import FortGame


def scripted(*first: str, then: str = "0"):
    answers = itertools.chain(first, itertools.repeat(then))
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return read, prompts


def test_game_with_bad_input_completes() -> None:
    read, prompts = scripted("", "abc", "99", "-1", "1.5")
    out: list[str] = []
    result = play_human(2, ["random"], seed=3, input_fn=read, output_fn=out.append)
    text = "\n".join(out)
    assert result.state.is_terminal() and not result.quit
    assert "Please type a number" in text
    assert "99 is not one of the choices" in text
    assert "total" in text and ("Winner" in text)
    assert len(prompts) > 10


def test_legal_actions_are_listed_and_hands_hidden() -> None:
    read, _ = scripted(then="0")
    out: list[str] = []
    play_human(3, ["heuristic", "random"], seed=1, input_fn=read, output_fn=out.append)
    text = "\n".join(out)
    assert "[0] " in text and "Your choice" not in text  # prompts go to input_fn
    assert "hand: 5 cards" in text or "hand: 4 cards" in text  # rivals' hands as counts


def test_quit_and_end_of_input() -> None:
    read, _ = scripted("q")
    result = play_human(2, ["heuristic"], seed=2, input_fn=read, output_fn=lambda s: None)
    assert result.quit and result.winners == []

    def eof(prompt: str) -> str:
        raise EOFError

    result = play_human(2, ["heuristic"], seed=2, input_fn=eof, output_fn=lambda s: None)
    assert result.quit


def test_ask_validates() -> None:
    read, _ = scripted("x", "", "5", "2")
    out: list[str] = []
    assert ask([10, 11, 12], ["a", "b", "c"], read, out.append) == 12
    assert sum("type a number" in line for line in out) == 3
    read, _ = scripted("quit")
    with pytest.raises(HumanQuit):
        ask([1, 2], ["a", "b"], read, out.append)


def test_opponent_lists() -> None:
    assert resolve_opponents(["random"], 4) == ["random"] * 3
    assert resolve_opponents(["heuristic", "random"], 3) == ["heuristic", "random"]
    with pytest.raises(ValueError):
        resolve_opponents(["heuristic", "random"], 4)
    with pytest.raises(ValueError):
        play_human(2, ["random"], human_seat=5, input_fn=lambda p: "0", output_fn=lambda s: None)


def test_bots_private_choices_are_not_printed() -> None:
    game = FortGame(2)
    state = game.new_initial_state(seed=0)
    layout = game.layout
    assert "Loner" not in _public_text(state, layout.PICK_RULE + 4)
    assert "face down" in _public_text(state, layout.PICK_RULE + 4)
    card = game.cards[0]
    assert card.name not in _public_text(state, layout.LOOKOUT_CARD + 0)
