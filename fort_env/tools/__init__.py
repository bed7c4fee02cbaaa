"""The programs: the ``fort-env`` command line (``cli``, its errors ``cli_errors``, its plugins
``plugins``), the benchmark (``bench``), the replay page (``replay_html``) and the board it and
the play page of ``fort-env serve`` share (``board``, with ``static/board.css`` and
``static/board.js``)."""
