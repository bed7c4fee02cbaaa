"""The ``ladder`` command of ``fort-env`` (``agents.arena.ladder``)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from agents.arena.bot_guard import DEFAULT_DECISION_TIMEOUT_S
from agents.cli_checks import MAX_SEED, check_agents, check_critic, check_game, split_specs
from fort_env.tools.cli_errors import bad_option, failures

__all__ = ["register_ladder"]


def register_ladder(app: Any) -> None:
    """Add the ``ladder`` command (``agents.arena.ladder``) to a typer app::

    fort-env ladder [--num-players N] [--games G] [--seed S] [--workers W] [--bots A,B,...]
                    [--ismcts-ms 10,50] [--ppo-quick PATH] [--ppo-full PATH] [--add SPECS]
                    [--out DIR] [--write-docs] [--doc MD] [--plot PNG] [--json] [--setup ...]
                    [--decision-timeout SECONDS]

    It prints the table (or ``--json``) and writes nothing unless asked: ``--out DIR`` writes
    the result, plot and section into ``DIR``; ``--write-docs`` regenerates the tracked
    ``docs/ladder-Np.png`` and the ladder section of ``docs/agents.md``; ``--doc``/``--plot``
    name other files for those (each alone writes only itself).
    """
    from pathlib import Path

    @app.command("ladder")
    def ladder_cmd(
        num_players: Annotated[
            int, typer.Option("--num-players", min=2, max=4, help="Players per table: 2, 3 or 4.")
        ] = 2,
        games: Annotated[
            int,
            typer.Option(
                "--games",
                min=1,
                max=10**6,
                help="Games per table (every combination of N different bots); a multiple "
                "of N balances the seats.",
            ),
        ] = 20,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                max=MAX_SEED,
                help="Run seed (every table's deals derive from it); a fresh one, printed, "
                "if not given.",
            ),
        ] = None,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        bots: Annotated[
            str | None,
            typer.Option("--bots", help="Comma-separated agent specs instead of every bot."),
        ] = None,
        ismcts_ms: Annotated[
            str, typer.Option("--ismcts-ms", help="IS-MCTS budgets, ms per decision.")
        ] = "10,50",
        ppo_quick: Annotated[
            str | None,
            typer.Option(
                "--ppo-quick",
                help="Model of the quick preset (default: its newest run, "
                "runs/quick/latest/model.safetensors, if it exists).",
            ),
        ] = None,
        ppo_full: Annotated[
            str | None,
            typer.Option(
                "--ppo-full",
                help="Model of the full preset (default: its newest run, "
                "runs/full/latest/model.safetensors, if it exists).",
            ),
        ] = None,
        add: Annotated[
            str, typer.Option("--add", help="Comma-separated agent specs to add to the bots.")
        ] = "",
        out: Annotated[
            str | None,
            typer.Option(
                "--out",
                help="Folder to write ladder-Np.json, ladder-Np.png and ladder-Np.md into "
                "(nothing is written without it or the options below).",
            ),
        ] = None,
        write_docs: Annotated[
            bool,
            typer.Option(
                "--write-docs",
                help="Regenerate the tracked docs: the ladder section of docs/agents.md and "
                "docs/ladder-Np.png (or --doc/--plot).",
            ),
        ] = False,
        doc: Annotated[
            str | None,
            typer.Option(
                "--doc",
                help="Markdown file whose ladder section is regenerated (with --write-docs: "
                "default docs/agents.md).",
            ),
        ] = None,
        plot: Annotated[
            str | None,
            typer.Option(
                "--plot",
                help="PNG of the ratings (with --write-docs: default docs/ladder-Np.png).",
            ),
        ] = None,
        no_doc: Annotated[
            bool,
            typer.Option(
                "--no-doc",
                hidden=True,
                help="Accepted for old scripts: writing no doc is now the default.",
            ),
        ] = False,
        json_output: Annotated[
            bool,
            typer.Option("--json", help="Print one JSON object (schema: agents/arena/ladder.py)."),
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        raw: Annotated[
            bool,
            typer.Option(
                "--raw",
                help="Raw win rates only (default: luck-corrected ones beside them where a "
                "table critic ships for the table, as fort-env tournament).",
            ),
        ] = False,
        luck_corrected: Annotated[
            bool,
            typer.Option(
                "--luck-corrected",
                help="Require luck-corrected results: an error before the first game when no "
                "critic is given or ships for the table.",
            ),
        ] = False,
        critic: Annotated[
            str | None,
            typer.Option(
                "--critic",
                help="The table critic of the luck correction (default: the zoo's).",
            ),
        ] = None,
        decision_timeout: Annotated[
            float,
            typer.Option(
                "--decision-timeout",
                min=0,
                max=86400,
                metavar="SECONDS",
                help="The most a plugin bot (an agent that is not built in) may think over one "
                "decision; past it, it forfeits the table (0: no limit). Any bot that raises "
                "or plays an illegal action forfeits its table too; the others are played.",
            ),
        ] = DEFAULT_DECISION_TIMEOUT_S,
    ) -> None:
        """Rate every bot: a seat-rotated round robin, OpenSkill ratings, a table; with
        --out or --write-docs, a plot and a doc section."""
        import os
        import secrets

        from agents.arena.ladder import (
            Bot,
            check_section,
            default_bots,
            format_ladder,
            ladder_markdown,
            left_out,
            output_paths,
            plot_ladder,
            run_ladder,
            write_outputs,
            write_section,
        )
        from agents.learned.policy_file import trained_num_players
        from fort_env.game.constants import SEED_LIMIT
        from fort_env.game.files import check_target

        budgets: list[float] = []
        for part in split_specs(ismcts_ms):
            try:
                budgets.append(float(part))
            except ValueError:
                bad_option("--ismcts-ms", f"{part!r} is not a number of milliseconds")
        for option, given in (("--ppo-quick", ppo_quick), ("--ppo-full", ppo_full)):
            if given is not None and not Path(given).is_file():
                bad_option(option, f"no model file at {given}")
            if given is not None:
                with failures(option):
                    trained_for = trained_num_players(given)
                if trained_for != num_players:
                    bad_option(option, f"{given} plays {trained_for} players, not {num_players}")
        if bots is not None:
            specs = split_specs(bots)
            entrants = [Bot(s, s) for s in specs]
            if len(set(specs)) != len(specs):
                bad_option("--bots", "the same bot twice")
        else:
            with failures("--ismcts-ms"):
                entrants = default_bots(budgets, ppo_quick, ppo_full, split_specs(add), num_players)
        if len(entrants) < num_players:
            bad_option("--bots", f"{len(entrants)} bots for {num_players}-player tables: need more")
        check_game(num_players, setup, None)
        check_agents([b.spec for b in entrants], "--bots" if bots is not None else "--add")
        chosen = check_critic(critic, raw, luck_corrected, num_players, setup)
        del no_doc  # the default now
        doc_path = Path(doc) if doc else Path("docs/agents.md") if write_docs else None
        plot_path = (
            Path(plot) if plot else Path(f"docs/ladder-{num_players}p.png") if write_docs else None
        )
        if doc_path is not None:
            with failures("--doc"):
                check_section(doc_path, num_players)
        for option, folder in (("--plot", plot_path and plot_path.parent), ("--out", out)):
            if folder is not None:
                with failures(option):
                    import matplotlib  # noqa: F401  (the train extra; fail before the games)

                    Path(folder).mkdir(parents=True, exist_ok=True)
        # every file it will write may be written (no FIFO, device or folder at the name),
        # before the games
        targets = [("--plot", plot_path)] if plot_path is not None else []
        if out is not None:
            targets += [("--out", path) for path in output_paths(out, num_players)]
        for option, path in targets:
            with failures(option):
                check_target(path)
        if bots is None:
            for line in left_out(num_players, ppo_quick, ppo_full):
                typer.echo(line, err=True)
        if seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
            typer.echo(f"ladder seed {seed} (fresh; --seed {seed} replays it)", err=True)
        command = f"fort-env ladder --num-players {num_players} --games {games} --seed {seed}"
        command += f" --workers {workers}"
        if bots is not None:
            command += f" --bots {','.join(b.spec for b in entrants)}"
        else:
            if ismcts_ms != "10,50":
                command += f" --ismcts-ms {ismcts_ms}"
            for option, given in (("--ppo-quick", ppo_quick), ("--ppo-full", ppo_full)):
                if given is not None:
                    command += f" {option} {given}"
            if add:
                command += f" --add {add}"
        if setup != "basic":
            command += f" --setup {setup}"
        if raw:
            command += " --raw"
        elif critic is not None:
            command += f" --critic {critic}"
        if write_docs:
            command += " --write-docs"
        if decision_timeout != DEFAULT_DECISION_TIMEOUT_S:
            command += f" --decision-timeout {decision_timeout:g}"
        with failures():
            result = run_ladder(entrants, num_players, games, seed, workers, setup,
                                command=command, critic=chosen,
                                decision_timeout=decision_timeout)  # fmt: skip
            if json_output:
                sys.stdout.write(json.dumps(result) + "\n")
            else:
                sys.stdout.write(format_ladder(result))
        wrote: list[str] = []
        if out is not None:
            with failures("--out"):
                wrote += [str(path) for path in write_outputs(result, out)]
        if plot_path is not None:
            with failures("--plot"):
                plot_ladder(result, plot_path)
            wrote.append(str(plot_path))
        if doc_path is not None:
            rel = (
                None
                if plot_path is None
                else os.path.relpath(plot_path.resolve(), doc_path.resolve().parent)
            )
            with failures("--doc"):
                write_section(doc_path, num_players, ladder_markdown(result, rel))
            wrote.append(f"the ladder section of {doc_path}")
        if wrote:
            typer.echo(f"wrote {', '.join(wrote)}", err=True)
