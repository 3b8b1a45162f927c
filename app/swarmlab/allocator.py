"""Keep freed memory for the next step (CPython on glibc only; a no-op elsewhere).

A model step allocates its temporaries afresh (the pair arrays of the neighbour search,
the rules' per-pair products) and frees them at its end.  At large populations these
blocks are hundreds of kB to MB.  glibc's malloc gives blocks above its mmap threshold
their own pages and returns them to the kernel on ``free``, and it trims the top of its
heap back to the kernel beyond a trim threshold; either way the next step touches fresh
pages, and every first touch is a page fault (the kernel zeroes the page).  Measured on
Lab 3's boids step at 10,000 boids (CPython 3.11, numpy 2.0.2, glibc 2.36): about 970
minor page faults per step, and the step 1.5-1.6x slower than with the thresholds raised
(0 faults).  At 1,000 boids the blocks stay below the threshold and nothing changes.

:func:`keep_freed_memory` raises both thresholds (``mallopt``), so a batch run reuses the
same pages step after step.  The price is that the process keeps up to about
:data:`TRIM_BYTES` of freed memory instead of handing it back at once.  The command line
(``python -m swarmlab``) calls it; a script that runs long batches may call it too.  The
browser's runtime (Pyodide) has its own allocator inside WebAssembly memory, which never
shrinks, so it does not pay these faults; there the call does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
#: blocks up to this size come from the heap (glibc's largest allowed value on 64-bit)
MMAP_BYTES = 32 * 1024 * 1024
#: the heap keeps up to this much freed memory at its top before giving it back
TRIM_BYTES = 256 * 1024 * 1024

_done: bool | None = None


def _glibc():
    """glibc's ``mallopt``, or None (another C library, or no C library: Pyodide)."""
    if sys.platform != "linux":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        gnu_get_libc_version = libc.gnu_get_libc_version  # glibc only
    except (OSError, AttributeError):
        return None
    del gnu_get_libc_version
    mallopt = libc.mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process.

    Returns True when they were set (or had been set by an earlier call), False where there is
    no glibc (macOS, Windows, musl, Pyodide), which changes nothing.
    """
    global _done
    if _done is None:
        mallopt = _glibc()
        _done = bool(mallopt and mallopt(M_MMAP_THRESHOLD, MMAP_BYTES) == 1
                     and mallopt(M_TRIM_THRESHOLD, TRIM_BYTES) == 1)
    return _done
