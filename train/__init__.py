"""Training scripts and presets for fort-env agents."""
