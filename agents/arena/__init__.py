"""Where agents meet: one game (``games``), tournaments (their worker processes local or on Ray),
the ladder, a person at the terminal against bots (``human``, ``fort-env play``) and in the
browser (``serve``, ``fort-env serve``: with ``serve_guard``, ``serve_games``, ``serve_view``)."""
