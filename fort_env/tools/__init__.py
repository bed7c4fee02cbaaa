"""The programs: the ``fort-env`` command line (``cli``, its errors ``cli_errors``, its plugins
``plugins``), the benchmark (``bench``) and the replay page (``replay_html``)."""
