"""What games say about the card set and the bots: ``fort-env analyze``, the balance report, and the
fit of the search's evaluation weights."""
