"""Moved: :class:`SeatView` is a view of the engine, ``fort_env.views.seat``; this name stays for
the code that imports it from here."""

from fort_env.views.seat import SeatView as SeatView
