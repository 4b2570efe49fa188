"""Keeping freed memory in the process during training (glibc's ``M_TOP_PAD``), so a step does not page-fault.

A training step allocates and frees tens of megabytes of activations and temporaries (the trace of
the forward pass, the backward pass's gradients). With glibc's default settings the freed top of the
heap goes back to the system at the end of every step and is faulted in again, page by page, in the
next one: on the default configuration that is about half of the step (26 ms against 14 ms measured
with the memory kept). :func:`retain_freed_memory` asks glibc's allocator to pad the heap by
:data:`TOP_PAD` bytes and keep that much when it trims; elsewhere (no glibc ``mallopt``) it does
nothing. The setting lasts for the process (the memory is reused, not leaked: the peak is what a step
needs plus the pad).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_TOP_PAD = -2
"""glibc's ``mallopt`` parameter number of ``M_TOP_PAD`` (malloc.h)."""
TOP_PAD = 64 << 20
"""Bytes of heap padding kept on trims (64 MiB: above a default step's activations)."""


@functools.lru_cache(maxsize=None)
def retain_freed_memory() -> bool:
    """Set glibc's ``M_TOP_PAD`` to :data:`TOP_PAD` once per process; True if the allocator took it."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_TOP_PAD, TOP_PAD))
