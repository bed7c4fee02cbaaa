"""An independent second reading of the rules for the leader's play (tests only).

``tests/oracle/play.py`` enumerates, from a leader's PLAY decision, every complete play the
rulebook allows, written from ``../shared/rules/rulebook.txt`` and ``docs/rules.md`` without
the engine's rules modules (a test checks its imports). See that module for its scope.
"""
