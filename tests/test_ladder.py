"""``fort-env ladder`` (agents/arena/ladder.py): the round robin, its ratings, the table, the plot
and the regenerated section of the document; bad arguments; IS-MCTS budgets in milliseconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import make
from agents.arena.ladder import (
    LADDER_KEY,
    Bot,
    default_bots,
    ladder_markdown,
    left_out,
    markers,
    run_ladder,
    write_section,
)
from agents.learned.policy_file import load_policy_file, save_policy
from fort_env.tools.cli import app
from tests.test_console_script import fort_env_cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_ismcts_budget_in_milliseconds() -> None:
    assert make("ismcts:ms=50").seconds == pytest.approx(0.05)  # type: ignore[attr-defined]
    assert make("ismcts:seconds=0.2").seconds == pytest.approx(0.2)  # type: ignore[attr-defined]
    assert make("ismcts").seconds == 0.0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="not both"):
        make("ismcts:ms=50:seconds=0.1")
    with pytest.raises(ValueError, match="at least 0"):
        make("ismcts:ms=-5")


def test_default_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, untrained_policy_file: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no runs/ here: the runs' PPO bots are left out
    names = [b.name for b in default_bots()]
    assert names[:5] == ["random", "builder", "scorer", "opportunist", "greedy"]
    assert "ismcts:ms=10" in names and "ismcts:ms=50" in names
    # the zoo's shipped policy, and the guided search with it, join out of the box
    assert [n for n in names if n.startswith("ppo")] == ["ppo"] and "puct" in names
    assert left_out() == [
        "ppo-quick left out: no trained model at runs/quick/latest/model.safetensors: train "
        "one with `fort-env train --preset quick`",
        "ppo-full left out: no trained model at runs/full/latest/model.safetensors: train "
        "one with `fort-env train --preset full`",
    ]
    policy, _ = load_policy_file(untrained_policy_file)
    # the presets' newest runs (runs/PRESET/latest, a link to the run folder in training)
    run = tmp_path / "runs" / "quick" / "20260101-000000"
    model = save_policy(policy, run / "model", num_players=2)
    (tmp_path / "runs" / "quick" / "latest").symlink_to(run.name)
    four = save_policy(policy, tmp_path / "runs" / "full" / "latest" / "model", num_players=4)
    assert left_out() == [
        "ppo-full left out: runs/full/latest/model.safetensors plays 4 players, not 2 "
        "(give --ppo-full PATH)"
    ]
    assert left_out(4) == [
        "ppo-quick left out: runs/quick/latest/model.safetensors plays 2 players, not 4 "
        "(give --ppo-quick PATH)"
    ]
    bots = default_bots(ismcts_ms=[20, 200], ppo_full=model, add=["ismcts:iterations=5"])
    specs = {b.name: b.spec for b in bots}
    assert specs["ppo-quick"] == "ppo:runs/quick/latest/model.safetensors"  # found by default
    assert specs["ppo-full"] == f"ppo:{model}"
    assert "ismcts:ms=20" in specs and "ismcts:ms=200" in specs
    assert "ismcts:iterations=5" in specs
    # 4-player tables: the 2-player default is left out, the 4-player one joins; the shipped
    # policy and the guided search join wherever a model ships for the count
    specs4 = {b.name: b.spec for b in default_bots(num_players=4)}
    assert specs4["ppo-full"] == "ppo:runs/full/latest/model.safetensors"
    assert "ppo-quick" not in specs4
    assert specs4["ppo"] == "ppo" and "puct" in specs4
    import agents.learned.zoo as zoo

    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "empty-zoo")  # as if nothing shipped
    assert not {"ppo", "puct"} & {b.name for b in default_bots(num_players=3)}
    with pytest.raises(ValueError, match="trained for 4 players"):
        default_bots(ppo_full=four)
    with pytest.raises(FileNotFoundError, match="ppo-full"):
        default_bots(ppo_full=tmp_path / "missing.safetensors")
    with pytest.raises(ValueError, match="positive"):
        default_bots(ismcts_ms=[0])
    with pytest.raises(ValueError, match="twice"):
        default_bots(add=["random"])


def test_stronger_bot_rated_above_random() -> None:
    """Builder (the best heuristic) against random: 12 games, a few seconds. Random almost
    never wins a game against it, so the ratings must order them with room to spare."""
    result = run_ladder([Bot("random", "random"), Bot("builder", "builder")], 2, 12, seed=11,
                        progress=False)  # fmt: skip
    first, second = result["bots"]
    assert (first["name"], second["name"]) == ("builder", "random")
    assert first["win_rate"] >= 0.75
    assert first["ordinal"] > second["ordinal"]
    assert first["interval"][0] > second["mu"]  # builder's interval sits above random's mu
    assert first["games"] == second["games"] == 12
    h2h = result["head_to_head"]
    assert h2h["builder"]["random"] == pytest.approx(first["win_rate"])
    assert h2h["builder"]["builder"] is None


def test_three_bots_every_pair_and_reproducible() -> None:
    bots = [Bot(s, s) for s in ("random", "builder", "scorer")]
    a = run_ladder(bots, 2, 2, seed=5, progress=False)
    b = run_ladder(bots, 2, 2, seed=5, progress=False)
    assert a["tables"] == 3 and a["games"] == 6
    assert all(row["games"] == 4 for row in a["bots"])  # each bot meets the two others
    strip = ("ms_per_decision",)
    assert [{k: v for k, v in r.items() if k not in strip} for r in a["bots"]] == [
        {k: v for k, v in r.items() if k not in strip} for r in b["bots"]
    ]
    four = run_ladder([*bots, Bot("opportunist", "opportunist")], 4, 1, seed=5, progress=False)
    assert four["tables"] == 1 and four["head_to_head"] == {}
    assert LADDER_KEY  # the tables' seeds are keyed apart from a tournament's


def test_bad_ladder_arguments() -> None:
    with pytest.raises(ValueError, match="need more bots"):
        run_ladder([Bot("random", "random")], 2, 2)
    with pytest.raises(ValueError, match="at least 1"):
        run_ladder([Bot("random", "random"), Bot("builder", "builder")], 2, 0)


def test_write_section_creates_appends_replaces(tmp_path: Path) -> None:
    doc = tmp_path / "agents.md"
    begin, end = markers(2)
    write_section(doc, 2, "first\n")
    assert doc.read_text().count(begin) == 1 and "first" in doc.read_text()
    doc.write_text("# Agents\n\nintro\n\n" + doc.read_text().split("\n", 2)[2] + "\noutro\n")
    write_section(doc, 2, "second\n")
    text = doc.read_text()
    assert "first" not in text and "second" in text
    assert text.count(begin) == 1 and text.count(end) == 1
    assert text.index("intro") < text.index(begin) < text.index(end) < text.index("outro")
    write_section(doc, 4, "four players\n")  # its own section, after the 2-player one
    text = doc.read_text()
    assert text.count(markers(4)[0]) == 1 and "second" in text and "four players" in text
    doc.write_text(f"{begin}\nno end\n")
    with pytest.raises(ValueError, match="markers are broken"):
        write_section(doc, 2, "x")
    doc.write_text(f"{end}\n{begin}\n")
    with pytest.raises(ValueError, match="markers are broken"):
        write_section(doc, 2, "x")


def test_markdown_names_the_command_and_the_run() -> None:
    result = run_ladder([Bot("random", "random"), Bot("builder", "builder")], 2, 2, seed=1,
                        progress=False, command="fort-env ladder --games 2")  # fmt: skip
    text = ladder_markdown(result, "ladder-2p.png", when="TODAY")
    assert "`fort-env ladder --games 2`" in text and "TODAY" in text and "seed 1" in text
    assert "| 1 | `builder` |" in text and "](ladder-2p.png)" in text


def test_console_script_ladder_and_rerun(tmp_path: Path) -> None:
    """The command as a user runs it: two cheap bots, two games; --write-docs writes the plot
    and the section; the rerun replaces the section (no duplication) and keeps the rest of the
    document."""
    doc = tmp_path / "docs" / "agents.md"
    doc.parent.mkdir()
    doc.write_text("# Agents\n\nBefore.\n")
    args = ["ladder", "--bots", "builder,random", "--games", "2", "--doc", str(doc), "--write-docs"]
    proc = fort_env_cli(*args, "--seed", "4", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Ladder: 2 players" in proc.stdout
    assert "builder" in proc.stdout and "random" in proc.stdout
    plot = tmp_path / "docs" / "ladder-2p.png"
    assert plot.read_bytes()[:8] == PNG_MAGIC
    begin, end = markers(2)
    text = doc.read_text()
    assert text.startswith("# Agents\n\nBefore.\n") and text.count(begin) == 1
    assert "--seed 4" in text and "](ladder-2p.png)" in text and "--write-docs" in text
    doc.write_text(text + "\nAfter.\n")
    again = fort_env_cli(*args, "--json", cwd=tmp_path)  # no --seed: a fresh one, printed
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert "ladder seed" in again.stderr and f"--seed {result['seed']}" in again.stderr
    text = doc.read_text()
    assert text.count(begin) == 1 and text.count(end) == 1
    assert "--seed 4 " not in text and f"--seed {result['seed']} " in text
    assert text.startswith("# Agents\n\nBefore.\n") and text.rstrip().endswith("After.")


def test_ladder_writes_nothing_unless_asked(tmp_path: Path) -> None:
    """By default the table only: docs/agents.md and docs/ladder-2p.png (tracked files) stay
    as they are; --out writes into the folder named; --plot alone writes only the plot."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agents.md").write_text("# Agents\n")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    args = ["ladder", "--bots", "builder,random", "--games", "2", "--seed", "3"]
    proc = fort_env_cli(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Ladder: 2 players, 2 games per table, 1 table, 2 games" in proc.stdout
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert (docs / "agents.md").read_text() == "# Agents\n" and "wrote" not in proc.stderr
    out = tmp_path / "ladder-out"
    plot = tmp_path / "p.png"
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "ladder-2p.json",
        "ladder-2p.md",
        "ladder-2p.png",
    ]
    assert json.loads((out / "ladder-2p.json").read_text())["seed"] == 3
    assert "](ladder-2p.png)" in (out / "ladder-2p.md").read_text()
    assert plot.read_bytes()[:8] == PNG_MAGIC
    assert (docs / "agents.md").read_text() == "# Agents\n"  # --plot alone: no doc section
    assert not (docs / "ladder-2p.png").exists()


def test_tables_keep_the_run_folder_of_a_model(tmp_path: Path) -> None:
    """Two models of the same preset differ only in their run folder: the ladder's table shows
    both whole (rich cut them to "ppo:.../runs/quick-2026…" before)."""
    from agents.arena.ladder import format_ladder

    result = run_ladder([Bot("random", "random"), Bot("builder", "builder")], 2, 2, seed=1,
                        progress=False)  # fmt: skip
    deep = "/home/someone/projects/a-long-folder-name/fort-env/runs/quick"
    names = [f"ppo:{deep}/20261126-190912/model.safetensors",
             f"ppo:{deep}/20261126-191544/model.safetensors:deterministic=0"]  # fmt: skip
    for row, name in zip(result["bots"], names, strict=True):
        row["name"] = name
    text = format_ladder(result)
    assert "ppo:.../quick/20261126-190912/model.safetensors " in text
    assert "ppo:.../quick/20261126-191544/model.safetensors:deterministic=0 " in text
    assert "…" not in text


@pytest.mark.parametrize(
    ("args", "option", "code"),
    [
        (["--bots", "builder,nosuch"], "--bots nosuch", 1),
        (["--bots", "builder"], "--bots", 2),
        (["--bots", "random,random"], "--bots", 2),
        (["--ppo-quick", "/nonexistent/model.safetensors"], "--ppo-quick", 2),
        (["--ppo-full", "/nonexistent/model.safetensors"], "--ppo-full", 2),
        (["--ismcts-ms", "10,fast"], "--ismcts-ms", 2),
        (["--ismcts-ms", "-10"], "--ismcts-ms", 1),
        (["--add", "ismcts:nope=1"], "--add ismcts:nope=1", 1),
        (["--bots", "builder,random", "--setup", "weird"], "--setup", 2),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_bad_arguments_one_line(args: list[str], option: str, code: int) -> None:
    result = CliRunner().invoke(app, ["ladder", "--games", "1", "--no-doc", *args])
    assert result.exit_code == code, result.output
    text = result.stderr if result.stderr else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: "), lines


@pytest.mark.parametrize("args", [["--games", "0"], ["--num-players", "5"], ["--seed", "-1"]])
def test_out_of_range_is_a_usage_error(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["ladder", "--bots", "builder,random", *args])
    assert result.exit_code == 2
    text = result.stderr if result.stderr else result.output
    assert f"'{args[0]}'" in text and "Traceback" not in text


def test_broken_doc_markers_fail_before_any_game(tmp_path: Path) -> None:
    doc = tmp_path / "agents.md"
    doc.write_text(f"{markers(2)[0]}\n")
    result = CliRunner().invoke(
        app,
        ["ladder", "--bots", "builder,random", "--games", "1", "--doc", str(doc),
         "--plot", str(tmp_path / "plot.png")],
    )  # fmt: skip
    assert result.exit_code == 1
    text = result.stderr if result.stderr else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: --doc: ") and "broken" in lines[0]
    assert not (tmp_path / "plot.png").exists() and "ladder seed" not in text


def test_a_model_of_another_player_count_is_refused(
    tmp_path: Path, untrained_policy_file: Path
) -> None:
    model = save_policy(load_policy_file(untrained_policy_file)[0], tmp_path / "m", num_players=4)
    result = CliRunner().invoke(
        app, ["ladder", "--games", "1", "--no-doc", "--ppo-full", str(model)]
    )
    assert result.exit_code == 2, result.output
    text = result.stderr if result.stderr else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines == [f"error: --ppo-full: {model} plays 4 players, not 2"]


def test_installed_plugin_bots_join_the_ladder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: a bot an installed plugin registers joins without being named; one that
    needs arguments, or plays another player count, stays out."""
    import agents
    from agents.arena.ladder import default_bots

    class Fixed(agents.RandomAgent):
        num_players = 3

    monkeypatch.setitem(agents._REGISTRY, "plugin_bot", lambda args: agents.RandomAgent())
    monkeypatch.setitem(agents._REGISTRY, "plugin_3p", lambda args: Fixed())

    def needs_args(args: str | None) -> agents.Agent:
        raise ValueError("plugin_args needs a model")

    monkeypatch.setitem(agents._REGISTRY, "plugin_args", needs_args)
    assert {"plugin_bot", "plugin_3p", "plugin_args"} <= set(agents.plugin_agents())
    names = [b.name for b in default_bots(ismcts_ms=(), num_players=2)]
    assert "plugin_bot" in names and "plugin_3p" not in names and "plugin_args" not in names
    named = [b.name for b in default_bots(ismcts_ms=(), num_players=2, add=["plugin_bot"])]
    assert named.count("plugin_bot") == 1
