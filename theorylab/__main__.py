"""``python -m theorylab`` runs the CLI."""
import os
import sys

from theorylab.cli import main

status = main()
if status == 130:
    # Interrupted (Ctrl-C). Under ``python -m``, CPython kills itself with SIGINT at exit if the
    # interrupt was first raised inside code a C extension ran through PyRun_String (as Cython
    # modules do while importing), whatever we return; leave at once with the documented status.
    # First collect what the interrupt left in reference cycles: an interrupted worker pool's
    # queues, whose semaphores the multiprocessing resource tracker would otherwise report as
    # leaked (on stderr) once this process is gone.
    import gc

    gc.collect()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)
sys.exit(status)
