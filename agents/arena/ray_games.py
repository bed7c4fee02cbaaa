"""Tournament games on Ray tasks: ``fort-env tournament --ray-address ADDRESS``.

:func:`play_on_ray` plays the games of a tournament (``agents.arena.tournament``) in Ray tasks,
spread over every node of the cluster that has a free CPU, and yields their records as they
finish. Each task plays a share of the games with its own agents (built once per task, as a
process-pool worker does), so the results are the same games as with ``--workers``: every
game's deal and agent seeds derive from the run seed and the game index.

``address`` (the same as ``fort-env train --backend rllib --ray-address``):

- ``"local"``: a new Ray instance on this machine.
- ``"auto"``: the cluster started on this machine with ``ray start --head``.
- ``"HOST:PORT"``: that cluster's head (the GCS address ``ray start --head`` prints).

Every node imports ``agents`` and ``fort_env`` from its own Python: install fort-env (with
the extras the agents need, e.g. ``train`` for ``ppo:PATH``) on every node, and give agent
files by paths that exist on every node. Needs Ray (the ``rllib`` extra installs it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.arena.games import Job

__all__ = ["connect", "play_on_ray"]


def connect(address: str, num_cpus: int | None = None) -> dict[str, Any]:
    """Join (or start, for ``"local"``) the Ray cluster at ``address``; a no-op if this process
    is already connected.

    Args:
        address: ``"local"``, ``"auto"`` or ``"HOST:PORT"`` (module docstring).
        num_cpus: CPUs of a ``"local"`` instance (``None``: the machine's).

    Returns:
        ``{"address", "nodes", "cpus"}`` of the cluster.

    Raises:
        ImportError: Ray is not installed (with the install hint).
        ValueError: an empty address.
        ConnectionError: no cluster at ``address`` (with the token-authentication hint).
    """
    if not address:
        raise ValueError("the Ray address must be local, auto or HOST:PORT, got an empty string")
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            'a Ray address needs Ray: pip install -c constraints.txt -e ".[rllib]" '
            "(in its own venv)"
        ) from e
    # Ray's usage statistics stay off in the project's own Ray commands unless the user turned
    # them on (RAY_USAGE_STATS_ENABLED=1 before starting)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if not ray.is_initialized():
        if address == "local":
            ray.init(
                address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False
            )
        else:
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as e:
                raise ConnectionError(
                    f"{e}. Is `ray start --head` running there? A cluster with token "
                    "authentication (Ray's default when ~/.ray/auth_token exists) needs "
                    "RAY_AUTH_MODE=token and its token in ~/.ray/auth_token or RAY_AUTH_TOKEN "
                    "when its address is given as HOST:PORT"
                ) from e
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return {
        "address": address,
        "nodes": len(nodes),
        "cpus": float(ray.cluster_resources().get("CPU", 0.0)),
    }


def _play_chunk(
    specs: list[str],
    num_players: int,
    setup: str,
    cards: str | None,
    observer: Any,
    jobs: list[Job],
) -> list[Any]:
    """One Ray task: the games ``jobs`` (``agents.arena.games.run_one``'s arguments)."""
    from agents.arena.games import init_worker, run_one

    init_worker(specs, num_players, setup, cards, observer)
    return [run_one(job) for job in jobs]


def play_on_ray(
    address: str,
    jobs: Sequence[Job],
    specs: Sequence[str],
    num_players: int,
    setup: str,
    cards: str | None,
    observer: Any = None,
    chunks_per_cpu: int = 4,
) -> Iterator[list[Any]]:
    """Play ``jobs`` in Ray tasks on the cluster at ``address``; yield each task's records.

    Args:
        address: the cluster (module docstring).
        jobs: ``(game index, run seed, duplicate deals, record actions)`` per game
            (``agents.arena.games.Job``).
        specs, num_players, setup, cards, observer: as ``agents.arena.tournament.run_tournament``.
        chunks_per_cpu: tasks per CPU of the cluster (more: finer load balance and progress,
            more agent set-ups).

    Yields:
        Lists of ``GameRecord`` (one list per finished task, in finishing order).

    Raises:
        ImportError, ConnectionError: as :func:`connect`.
    """
    cluster = connect(address)
    import ray

    n_tasks = max(1, min(len(jobs), int(cluster["cpus"] * chunks_per_cpu)))
    remote = ray.remote(num_cpus=1)(_play_chunk)
    args = (list(specs), num_players, setup, cards, observer)
    pending = [
        remote.remote(*args, list(jobs[i::n_tasks])) for i in range(n_tasks) if jobs[i::n_tasks]
    ]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])
