"""The binding to the compiled core (``_core``, built from ``cpp/``): the state class that runs
on it (``backend``) and random playouts inside it (``playout``)."""
