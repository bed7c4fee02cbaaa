"""Human play in the terminal: scripted input, bad input asked again, final breakdown shown."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from agents.arena.human import HumanQuit, ask, play_human, public_text, resolve_opponents
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


def test_a_wrong_opponent_count_says_how_many_in_words() -> None:
    """It said "2 players need 1 or 1 opponents, got 2" (issue 40)."""
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    rule = "(one spec for every rival, or one per rival)"
    cases = [
        (2, ["heuristic", "random"], f"2 players need 1 opponent {rule}, got 2"),
        (3, ["a", "b", "c"], f"3 players need 1 or 2 opponents {rule}, got 3"),
        (4, ["a", "b"], f"4 players need 1 or 3 opponents {rule}, got 2"),
    ]
    for n, specs, message in cases:
        with pytest.raises(ValueError) as err:
            resolve_opponents(specs, n)
        assert str(err.value) == message
    result = CliRunner().invoke(app, ["play", "--opponents", "heuristic,random"], input="q\n")
    assert result.exit_code == 2, result.output  # a usage error, before the game is dealt
    assert result.output.strip().splitlines() == [f"error: --opponents: {cases[0][2]}"]
    assert "1 or 1" not in result.output


def test_bots_private_choices_are_not_printed() -> None:
    game = FortGame(2)
    state = game.new_initial_state(seed=0)
    layout = game.layout
    assert "Loner" not in public_text(state, layout.PICK_RULE + 4)
    assert "face down" in public_text(state, layout.PICK_RULE + 4)
    card = game.cards[0]
    assert card.name not in public_text(state, layout.LOOKOUT_CARD + 0)


def test_the_table_is_shown_once_then_only_what_changed() -> None:
    """The first decision shows the whole table; later ones the lines that changed (the old
    loop reprinted ~30 lines every time); 't' prints it all again."""
    read, prompts = scripted("t", then="0")
    out: list[str] = []
    play_human(2, ["builder"], seed=4, input_fn=read, output_fn=out.append)
    text = "\n".join(out)
    assert text.count("Park deck:") >= 2  # the first view and the one 't' asked for
    decisions = text.count("Decision: ")
    assert decisions > 20
    assert text.count("Made-up rules in the stack") <= 2 + decisions // 4
    assert len(out) < 12 * decisions  # a full table per decision was ~30 lines
    assert "t for the table" in prompts[0]


def test_why_a_card_in_hand_cannot_be_played() -> None:
    """At a Play decision each card the mask leaves out says why (a play must use one of its
    actions fully, rulebook p.6); the cards that can be played say nothing."""
    from agents.arena.human import unplayable

    game = FortGame(2)
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            lines = unplayable(state, legal)
            if lines:
                first = game.layout.PLAY_CARD
                playable = [a - first for a in legal if first <= a < first + game.num_cards]
                assert all("cannot play" in line and "rulebook p.6" in line for line in lines)
                for c in playable:
                    assert not any(f"#{c}:" in line for line in lines)
                return
            state.apply_action(legal[0])
    pytest.fail("no Play decision with an unplayable card in 40 games")


def test_final_table_labels_the_fort_level_points() -> None:
    from agents.arena.human import final_table

    row = {"track": 12, "fort_level": 6, "made_up_rule": 0, "macaroni": 4, "total": 22, "level": 3}
    text = final_table([row, {**row, "total": 18}], [0], human_seat=0)
    head = text.splitlines()[0]
    assert "Fort Level points" in head and "Victory Track" in head and "fort_level" not in head
    assert head.rstrip().endswith("Fort Level") and text.splitlines()[1].split()[-1] == "3"


def test_play_save_writes_a_record_that_replays(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.records import load_record, replay
    from fort_env.tools.cli import app

    path = tmp_path / "game.json"
    args = ["play", "--opponents", "random", "--seed", "5", "--save", str(path)]
    result = CliRunner().invoke(app, args, input="0\n" * 3000)
    assert result.exit_code == 0, result.output
    assert f"saved the game to {path}" in result.output
    record = load_record(path)
    assert record["agents"] == ["you", "random"] and record["seed"] == 5
    assert replay(record).is_terminal() and "result" in record
    shown = CliRunner().invoke(app, ["replay", str(path)])
    assert shown.exit_code == 0 and "player_0: you, player_1: random" in shown.output
    quit_early = tmp_path / "quit.json"
    result = CliRunner().invoke(app, [*args[:-1], str(quit_early)], input="0\n0\nq\n")
    assert result.exit_code == 0, result.output
    unfinished = load_record(quit_early)
    assert "result" not in unfinished and not replay(unfinished).is_terminal()
    bad = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "no" / "game.json")])
    assert bad.exit_code == 2 and "--save" in bad.output


def test_t_shows_the_table_and_the_pending_choices_and_h_lists_the_keys() -> None:
    """``t`` prints the whole table, then the decision and its numbered choices again (they
    had scrolled away); ``?`` and ``h`` list the keys."""
    from agents.arena.human import HELP

    read, prompts = scripted("?", "t", "h", then="0")
    out: list[str] = []
    play_human(2, ["builder"], seed=4, input_fn=read, output_fn=out.append)
    out = "\n".join(out).splitlines()
    first = next(i for i, line in enumerate(out) if line.startswith("  [0] "))
    choices = [line for line in out[first:] if line.startswith("  [")]
    n = next(k for k, line in enumerate(choices) if not line.startswith(f"  [{k}] "))
    asked = out[first : first + 400]
    help_at = [i for i, line in enumerate(asked) if line == HELP[0]]
    assert len(help_at) == 2 and asked[help_at[0] : help_at[0] + len(HELP)] == list(HELP)
    table_at = next(i for i, line in enumerate(asked) if line.startswith("Park deck:"))
    decision = [line for line in out[:first] if line.startswith("Decision: ")][-1]
    again = asked[table_at:]
    at = again.index(decision)  # the decision after the table, then its choices
    assert again[at + 1 : at + 1 + n] == choices[:n]
    assert "? for help" in prompts[0] and "t for the table" in prompts[0]


def test_the_table_says_victory_track_and_cards_read_in_words() -> None:
    read, _ = scripted(then="0")
    out: list[str] = []
    play_human(2, ["random"], seed=6, input_fn=read, output_fn=out.append)
    text = "\n".join(out)
    assert re.search(r"Player 0( \(leader\))?: Victory Track \d+,", text)
    assert not re.search(r": score \d", text)
    hand = [line for line in text.splitlines() if re.match(r"  \S.*\]: public: ", line)]
    assert hand and not any("(" in h or "_" in h or "->" in h for h in hand)
    assert "(fully)" not in text


def test_internal_steps_are_not_printed_as_moves() -> None:
    """Going on with an action used partially (CONTINUE_ACTION) is no one's move: the bots'
    are taken without a line, as are the person's where it is the only choice; with
    ``raw`` they are printed as they are."""
    from fort_env.views.words import is_internal

    for seed in range(40):
        read, _ = scripted(then="0")
        out: list[str] = []
        result = play_human(2, ["random"], seed=seed, input_fn=read, output_fn=out.append)
        bots = [a for a in result.actions if is_internal(result.state, a)]
        if bots:
            break
    else:
        pytest.fail("no internal step in 40 games")
    assert not any("next step of this action" in line for line in out if line.startswith("player "))
    read, _ = scripted(then="0")
    raw_out: list[str] = []
    play_human(2, ["random"], seed=seed, input_fn=read, output_fn=raw_out.append, raw=True)
    lines = "\n".join(raw_out).splitlines()
    assert "player 1: go on with this action" in lines
    assert any(re.search(r"\w x \w|\(", line) for line in lines if "public: " in line)
    assert any(": score " in line for line in lines if line.startswith("Player "))
