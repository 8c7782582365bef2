"""Advanced reading: what makes a first jitted call fast. Skip it on a first reading.

The Numba CPU backend (``numba_cpu/``) is complete without this package's ideas: write a
module, let Numba compile it. Numba's start-up and compile take about a second, though, so:
``tiering.py`` runs the first calls on the reference interpreter while a background thread
compiles; ``direct.py`` (with ``translate.py``) compiles the kernels without Numba, straight
to LLVM; ``aot.py`` keeps their machine code as an object file that a later process loads in
milliseconds; ``cache.py`` is the disk cache all of this lives in; ``interrupts.py`` lets
Ctrl-C stop a compiled loop.
"""
