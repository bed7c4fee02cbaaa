"""The ``tournament``, ``play`` and ``analyze`` commands of ``fort-env``.

The command functions are plain functions with typed arguments that do the work and print;
:func:`register` adds them to a typer app (``fort_env.tools.cli.app``) with the options of the
issue::

    fort-env tournament --agents A,B[,C,D] --num-players N --games G --seed S [--workers W] [--json]
                        [--setup basic|advanced] [--cards DIR] [--ray-address ADDRESS]
                        [--save DIR [--save-games N]]
    fort-env play --num-players N --opponents heuristic,random [--seed S] [--seat K]
                  [--save GAME.json]
    fort-env serve [--host 127.0.0.1] [--port 8000]
    fort-env analyze --games G --agents heuristic [--num-players 2,3,4] [--seed S] [--workers W]
                     [--out DIR] [--json] [--setup basic|advanced] [--cards DIR]
    fort-env analyze balance --games G [--agents builder,opportunist] [--num-players 2,3,4]
                     [--seed S] [--workers W] [--out DIR] [--json] [--setup basic|advanced]
                     [--cards DIR] [--band 0.8,1.25] [--confidence 0.95]

``analyze`` is a command group: without a subcommand it prints the card-set report
(``agents/analysis/analyze.py``); ``analyze balance`` measures each card's balance
(``agents/analysis/balance.py``). Options go after the subcommand's name.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Annotated, Any

import typer

from fort_env.core import FortGame
from fort_env.game.constants import SEED_LIMIT
from fort_env.tools.cli_errors import bad_option, fail, failures

__all__ = ["analyze", "analyze_balance", "play", "register", "tournament"]

# The agents of ``analyze balance``: the two strongest cheap bots, about even with each other
# (docs/cards.md, "Card balance"); greedy and ismcts are stronger but 30-100x slower.
BALANCE_AGENTS = "builder,opportunist"

CARDS_HELP = "A card data directory (docs/cards.md); the shipped set if not given."


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def tournament(
    agents: str,
    num_players: int = 2,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
    ray_address: str | None = None,
    save: str | None = None,
    save_games: int | None = None,
) -> dict[str, Any]:
    """Play a tournament and print its result (a table, or one JSON object with ``json_output``).

    ``save``: a folder to write the games into as records (``fort_env.records``; ``fort-env
    replay`` reads them), ``game-NNNN.json`` each: every game, or the first ``save_games``.

    Raises:
        ValueError: bad agents or counts (``agents.arena.tournament.run_tournament``).
        ImportError, ConnectionError: ``ray_address`` without Ray, or with no cluster there.
        OSError: ``save`` cannot be written.
    """
    from agents.arena.tournament import (
        format_table,
        run_tournament,
        save_game_records,
        unique_names,
    )

    keep = 0 if save is None else games if save_games is None else min(save_games, games)
    specs = _split(agents)
    result = run_tournament(specs, num_players, games, seed=seed, workers=workers, setup=setup,
                            cards=cards, progress=progress, ray_address=ray_address,
                            return_records=save is not None, record_games=keep)  # fmt: skip
    if save is not None:
        records = result.pop("records")
        paths = save_game_records(records, unique_names(specs), save, num_players, setup, cards)
        sys.stderr.write(f"saved {len(paths)} game record(s) into {save}\n")
    if json_output:
        from agents.arena.provenance import provenance

        result = {**result, "provenance": provenance(specs, num_players, setup, cards)}
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(format_table(result))
    return result


def play(
    num_players: int = 2,
    opponents: str = "heuristic",
    seed: int | None = None,
    seat: int = 0,
    setup: str = "basic",
    save: str | None = None,
) -> int:
    """Play a game in the terminal against bots; returns the exit code (0).

    ``save``: write the game (finished or not) to this file as a record (``fort_env.records``;
    ``fort-env replay`` reads it), with ``agents``: who sat at each seat.

    Raises:
        OSError: ``save`` cannot be written.
    """
    from agents.arena.human import play_human
    from fort_env.records import make_record, save_record

    if seed is None:
        seed = random.randrange(2**31)
    result = play_human(num_players, _split(opponents), seed=seed, human_seat=seat, setup=setup)
    if save is not None:
        config = {"num_players": num_players, "setup": setup, "cards": None}
        record = make_record(config, result.seed, result.actions, result.state)
        record["agents"] = result.players
        save_record(record, save)
        print(f"saved the game to {save} (fort-env replay {save})")
    return 0


def analyze(
    games: int = 200,
    agents: str = "heuristic",
    num_players: str = "2,3,4",
    seed: int = 0,
    workers: int = 1,
    out: str = "analysis",
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
) -> dict[str, Any]:
    """Simulate games and print the card-set report; write PNG plots into ``out``."""
    from rich.console import Console

    from agents.analysis.analyze import analyze as run_analysis
    from agents.analysis.analyze import print_report

    counts = [int(x) for x in _split(num_players)]
    report = run_analysis(_split(agents), games, counts, seed=seed, workers=workers, out=out,
                          setup=setup, cards=cards, progress=progress)  # fmt: skip
    if json_output:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print_report(report, Console(width=160))
    return report


def analyze_balance(
    games: int = 200,
    agents: str = BALANCE_AGENTS,
    num_players: str = "2,3,4",
    seed: int = 0,
    workers: int = 1,
    out: str | None = "analysis",
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
    band: tuple[float, float] = (0.8, 1.25),
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Measure every card's balance (``agents.analysis.balance.balance``) and print it (a rich
    table, or one JSON object with ``json_output``); write ``balance.png`` into ``out``.

    Raises:
        ValueError: bad agents, counts, band or confidence (``agents.analysis.balance.balance``).
    """
    from rich.console import Console

    from agents.analysis.balance import balance, print_balance

    counts = [int(x) for x in _split(num_players)]
    report = balance(_split(agents), games, counts, seed=seed, workers=workers, out=out,
                     setup=setup, cards=cards, confidence=confidence, band=band,
                     progress=progress)  # fmt: skip
    if json_output:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print_balance(report, Console(width=180))
    return report


MAX_SEED = SEED_LIMIT - 1
SETUPS = ("basic", "advanced")


def _check_game(num_players: int, setup: str, cards: str | None) -> None:
    """Usage errors for ``--setup`` (exit 2); card data that does not load names ``--cards``
    (exit 1)."""
    if setup not in SETUPS:
        bad_option("--setup", f"{setup!r} is not one of {', '.join(SETUPS)}")
    with failures("--cards"):
        FortGame(num_players, setup, cards)


def _check_agents(specs: list[str], option: str) -> None:
    """Build each agent spec once, so that a bad one names ``option`` (exit 1) before any
    game is played."""
    from agents import make

    if not specs:
        bad_option(option, "no agent given")
    for spec in specs:
        with failures(f"{option} {spec}"):
            make(spec)


def _trusted(spec: str) -> str:
    """``ppo:PATH[:ARGS]`` or ``rllib:PATH[:ARGS]`` with ``trusted=1`` added
    (``--trust-pickle``); other specs as given."""
    from agents import with_trust

    return with_trust(spec)


def _check_out_dir(out: str, option: str = "--out") -> None:
    """``out`` exists or can be created, and a file can be written in it (names ``option``)."""
    import tempfile
    from pathlib import Path

    with failures(option):
        Path(out).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass


def _check_save_file(path: str) -> None:
    """``--save FILE`` names a file that can be written, before the game starts (its folder
    exists, it is not a folder); nothing is created yet."""
    import os
    from pathlib import Path

    target = Path(path)
    folder = target.parent
    if target.is_dir():
        bad_option("--save", f"{path} is a folder: give a file name, e.g. {target / 'game.json'}")
    if not folder.is_dir():
        bad_option("--save", f"no folder {folder} to write {target.name} into")
    if not os.access(folder, os.W_OK):
        bad_option("--save", f"cannot write into {folder}")


def _player_counts(text: str) -> list[int]:
    """``"2,3,4"`` -> ``[2, 3, 4]``; anything else is a usage error of ``--num-players``."""
    parts = _split(text)
    if not parts:
        bad_option("--num-players", "give player counts, e.g. 2,3,4")
    counts = []
    for part in parts:
        if not part.isdigit() or not 2 <= int(part) <= 4:
            bad_option("--num-players", f"{part!r} is not a player count (2, 3 or 4)")
        counts.append(int(part))
    return counts


def _band(text: str) -> tuple[float, float]:
    """``"0.8,1.25"`` -> ``(0.8, 1.25)``; anything else is a usage error of ``--band``."""
    parts = _split(text)
    try:
        low, high = (float(x) for x in parts)
    except ValueError:
        bad_option("--band", f"{text!r} is not two numbers LOW,HIGH (e.g. 0.8,1.25)")
    if not 0 < low < 1 < high:
        bad_option("--band", f"{text!r}: need 0 < LOW < 1 < HIGH")
    return low, high


def register(app: Any) -> None:
    """Add the ``tournament``, ``play`` and ``analyze`` commands to a typer app."""
    register_ladder(app)  # and ``ladder``

    @app.command("tournament")
    def tournament_cmd(
        agents: Annotated[
            str,
            typer.Option(
                "--agents",
                help="Comma-separated agent specs, one per seat (e.g. heuristic,random).",
            ),
        ],
        num_players: Annotated[
            int, typer.Option("--num-players", min=2, max=4, help="2, 3 or 4.")
        ] = 2,
        games: Annotated[
            int, typer.Option("--games", min=1, max=10**7, help="Number of games.")
        ] = 100,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                max=MAX_SEED,
                help="Run seed (deals and agents derive from it); default: a fresh one, printed.",
            ),
        ] = None,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        json_output: Annotated[
            bool,
            typer.Option(
                "--json", help="Print one JSON object (schema: agents/arena/tournament.py)."
            ),
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
        ray_address: Annotated[
            str | None,
            typer.Option(
                "--ray-address",
                help="Play the games as Ray tasks on this cluster: local, auto or HOST:PORT "
                "(needs Ray; --workers is then unused).",
            ),
        ] = None,
        trust_pickle: Annotated[
            bool,
            typer.Option(
                "--trust-pickle",
                help="Let ppo: agents load Stable-Baselines3 .zip files and rllib: agents Ray "
                "checkpoints. They are pickled: loading one runs any code its author put in "
                "it. Only for files you trust.",
            ),
        ] = False,
        save: Annotated[
            str | None,
            typer.Option(
                "--save",
                help="Folder to save the games into, one record per game (game-NNNN.json; "
                "fort-env replay reads them).",
            ),
        ] = None,
        save_games: Annotated[
            int | None,
            typer.Option(
                "--save-games", min=0, max=10**7, help="With --save: only the first N games."
            ),
        ] = None,
    ) -> None:
        """Play agents against each other with seat rotation; win rates, ratings, game stats."""
        if trust_pickle:
            agents = ",".join(_trusted(spec) for spec in _split(agents))
        specs = _split(agents)
        if len(specs) != num_players:
            bad_option(
                "--agents",
                f"{len(specs)} agents for {num_players} players: give one agent per seat",
            )
        _check_game(num_players, setup, cards)
        _check_agents(specs, "--agents")
        if save_games is not None and save is None:
            bad_option("--save-games", "give --save DIR as well")
        if save is not None:
            _check_out_dir(save, "--save")
        with failures():
            if seed is None:
                import secrets

                seed = secrets.randbelow(SEED_LIMIT)
                typer.echo(f"tournament seed {seed} (fresh; --seed {seed} replays it)", err=True)
            tournament(agents, num_players, games, seed, workers, json_output, setup, cards=cards,
                       ray_address=ray_address, save=save, save_games=save_games)  # fmt: skip

    @app.command("play")
    def play_cmd(
        num_players: Annotated[
            int, typer.Option("--num-players", min=2, max=4, help="2, 3 or 4.")
        ] = 2,
        opponents: Annotated[
            str,
            typer.Option("--opponents", help="Comma-separated agent specs for the other seats."),
        ] = "heuristic",
        seed: Annotated[
            int | None,
            typer.Option("--seed", min=0, max=MAX_SEED, help="Deal seed (random if not given)."),
        ] = None,
        seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="Your seat.")] = 0,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        save: Annotated[
            str | None,
            typer.Option(
                "--save",
                help="Save the game (finished or not) to this file as a record that "
                "fort-env replay reads.",
            ),
        ] = None,
    ) -> None:
        """Play Fort in the terminal against bots: the table once, then what changed before
        each of your decisions; type a choice's number, t for the whole table, q to quit."""
        if seat >= num_players:
            bad_option(
                "--seat", f"seat {seat} in a {num_players}-player game (0..{num_players - 1})"
            )
        _check_game(num_players, setup, None)
        _check_agents(_split(opponents), "--opponents")
        from agents.arena.human import resolve_opponents

        try:  # one spec for every rival, or one per rival (before the game is dealt)
            resolve_opponents(_split(opponents), num_players)
        except ValueError as exc:
            bad_option("--opponents", exc)
        if save is not None:
            _check_save_file(save)
        with failures():
            play(num_players, opponents, seed, seat, setup, save)

    @app.command("serve")
    def serve_cmd(
        host: Annotated[
            str,
            typer.Option("--host", help="Address to bind (loopback by default; a warning if not)."),
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
        allowed_host: Annotated[
            list[str] | None,
            typer.Option(
                "--allowed-host",
                help="A Host name the server answers besides the loopback names and --host "
                "(repeatable; for a name this machine is reached by). Others get 400.",
            ),
        ] = None,
        rival: Annotated[
            list[str] | None,
            typer.Option(
                "--rival",
                metavar="SPEC",
                help="An agent spec the page offers as a rival besides the bot zoo, e.g. "
                "ppo:runs/quick/latest/model.safetensors (repeatable; built and tried at "
                "start, offered at the player counts it plays).",
            ),
        ] = None,
    ) -> None:
        """Play Fort in the browser against the bots: a local web app (it needs the serve
        extra: starlette and uvicorn); open the address it prints."""
        try:
            from agents.arena.serve import check_rivals, host_name, serve
        except ImportError as exc:
            fail(f"{exc}; install the serve extra: pip install 'fort-env[serve]'", "serve")
        names = []
        for value in allowed_host or []:
            try:
                names.append(host_name(value))
            except ValueError as exc:
                bad_option("--allowed-host", exc)
        rivals: dict[str, tuple[int, ...]] = {}
        for spec in rival or []:
            if not spec.strip():
                bad_option("--rival", "an empty agent spec")
            with failures(f"--rival {spec}"):
                rivals.update(check_rivals([spec]))
        # the server's own rivals only when asked for (serve's signature stays the plain one)
        extra = {"rivals": rivals} if rivals else {}
        with failures():
            serve(host, port, allowed_hosts=names, **extra)

    analyze_app = typer.Typer(
        invoke_without_command=True,
        help="Simulate games and report how the card set plays (tables and PNG plots); "
        "'analyze balance' measures each card's owner win ratio.",
    )
    app.add_typer(analyze_app, name="analyze")

    @analyze_app.callback()
    def analyze_cmd(
        ctx: typer.Context,
        games: Annotated[
            int, typer.Option("--games", min=1, max=10**7, help="Games per player count.")
        ] = 200,
        agents: Annotated[
            str, typer.Option("--agents", help="Comma-separated agent specs, seated in turn.")
        ] = "heuristic",
        num_players: Annotated[
            str, typer.Option("--num-players", help="Player counts, e.g. 2,3,4.")
        ] = "2,3,4",
        seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Run seed.")] = 0,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        out: Annotated[
            str, typer.Option("--out", help="Directory for the PNG plots.")
        ] = "analysis",
        json_output: Annotated[
            bool, typer.Option("--json", help="Print the report as one JSON object.")
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
    ) -> None:
        """Simulate games and report how the card set plays (tables and PNG plots)."""
        if ctx.invoked_subcommand is not None:
            # typer vendors click: compare the source by name, not with click's enum
            given = [
                p.opts[0]
                for p in ctx.command.params
                if getattr(ctx.get_parameter_source(p.name or ""), "name", "") == "COMMANDLINE"
            ]
            if given:
                bad_option(
                    given[0],
                    f"give the options of 'analyze {ctx.invoked_subcommand}' after "
                    f"'{ctx.invoked_subcommand}'",
                )
            return
        counts = _player_counts(num_players)
        _check_game(counts[0], setup, cards)
        _check_agents(_split(agents), "--agents")
        _check_out_dir(out)
        with failures():
            analyze(games, agents, num_players, seed, workers, out, json_output, setup, cards=cards)

    @analyze_app.command("balance")
    def balance_cmd(
        games: Annotated[
            int,
            typer.Option(
                "--games", min=1, max=10**7, help="Games per player count (3334 x 3 = 10,002)."
            ),
        ] = 200,
        agents: Annotated[
            str, typer.Option("--agents", help="Comma-separated agent specs, seated in turn.")
        ] = BALANCE_AGENTS,
        num_players: Annotated[
            str, typer.Option("--num-players", help="Player counts, e.g. 2,3,4.")
        ] = "2,3,4",
        seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Run seed.")] = 0,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        out: Annotated[str, typer.Option("--out", help="Directory for balance.png.")] = "analysis",
        json_output: Annotated[
            bool, typer.Option("--json", help="Print the report as one JSON object.")
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
        band: Annotated[
            str,
            typer.Option(
                "--band", help="The fair band of win ratios, LOW,HIGH (0 < LOW < 1 < HIGH)."
            ),
        ] = "0.8,1.25",
        confidence: Annotated[
            float,
            typer.Option(
                "--confidence", min=0.5, max=0.9999, help="Confidence of the Wilson intervals."
            ),
        ] = 0.95,
    ) -> None:
        """Per card: how often seats that owned or played it won, against their expected share
        (Wilson intervals), with a plot; flags cards outside the band."""
        counts = _player_counts(num_players)
        limits = _band(band)
        _check_game(counts[0], setup, cards)
        _check_agents(_split(agents), "--agents")
        _check_out_dir(out)
        with failures():
            analyze_balance(games, agents, num_players, seed, workers, out, json_output, setup,
                            cards=cards, band=limits, confidence=confidence)  # fmt: skip


def register_ladder(app: Any) -> None:
    """Add the ``ladder`` command (``agents.arena.ladder``) to a typer app::

    fort-env ladder [--num-players N] [--games G] [--seed S] [--workers W] [--bots A,B,...]
                    [--ismcts-ms 10,50] [--ppo-quick PATH] [--ppo-full PATH] [--add SPECS]
                    [--out DIR] [--write-docs] [--doc MD] [--plot PNG] [--json] [--setup ...]

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
            plot_ladder,
            run_ladder,
            write_outputs,
            write_section,
        )
        from agents.learned.policy_file import trained_num_players
        from fort_env.game.constants import SEED_LIMIT

        budgets: list[float] = []
        for part in _split(ismcts_ms):
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
            specs = _split(bots)
            entrants = [Bot(s, s) for s in specs]
            if len(set(specs)) != len(specs):
                bad_option("--bots", "the same bot twice")
        else:
            with failures("--ismcts-ms"):
                entrants = default_bots(budgets, ppo_quick, ppo_full, _split(add), num_players)
        if len(entrants) < num_players:
            bad_option("--bots", f"{len(entrants)} bots for {num_players}-player tables: need more")
        _check_game(num_players, setup, None)
        _check_agents([b.spec for b in entrants], "--bots" if bots is not None else "--add")
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
        if write_docs:
            command += " --write-docs"
        with failures():
            result = run_ladder(entrants, num_players, games, seed, workers, setup,
                                command=command)  # fmt: skip
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
