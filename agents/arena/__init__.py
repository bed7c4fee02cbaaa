"""Where agents meet: one game (``games``), tournaments (their worker processes local or on Ray),
the ladder, and a person at the terminal against bots (``human``, ``fort-env play``)."""
