"""Neighbour search with a cell list ("grid binning"), exact and vectorised.

Public API
----------
``neighbour_pairs(x, box, cutoff, group=None, *, sort=True, half=False) -> Pairs``
    All **ordered** pairs (both (i, j) and (j, i) appear), ``i != j``, with
    periodic distance ``r <= cutoff``, sorted by ``i`` and, within one ``i``, by
    ``(r, j)`` (nearest first, ties by id).  ``sort=False``: the same pairs in a
    deterministic order; ``half=True``: each unordered pair once.
``Pairs.sum_by_i(w, odd=False)``, ``Pairs.counts()``, ``sum_by_i(i, w, n)``
    The per-pair reductions (``np.bincount``), for full and half pairs.
``in_field_of_view(pairs, u, half_angle)``, ``k_nearest(pairs, k)``
    Filters on a ``Pairs`` (order preserved; half pairs in view give ordered pairs).
``nearest_any(x, box, group=None, query=None) -> (j, r)``
    Nearest other agent at any distance (ring search that grows until exact);
    ``query`` restricts the search to some agents (against all agents).

Exactness contract
------------------
The result is *identical* to brute force over all pairs (the oracle in
``tests/unit/oracles.py``): same pairs, same order, and ``d[p]`` equal to
``space.displacement(x[i[p]], x[j[p]], box)``, ``r[p] = sqrt(dx*dx + dy*dy)``.  The cell
list is only a candidate generator; every candidate is tested with the exact
formula.  Floating-point safety: cells are at least ``cutoff * (1 + 1e-9)``
(plus a few ulps of the box) wide per stencil step, so no pair within the cutoff
is missed; the exact test ``r^2 <= _r2_max(cutoff)`` equals ``sqrt(r^2) <= cutoff``
(``sqrt`` is correctly rounded).

Index dtype contract
--------------------
Every index array here (``Pairs.i``/``j``, ``nearest_any``'s ``j``, the internal
tables) is ``np.intp``: int64 on 64-bit CPython, **int32 in Pyodide (wasm32)**,
where numpy refuses int64 indices in ``bincount``, ``repeat`` and ``take``.
Compare dtypes with ``np.intp``, never with a fixed width.

Units and frames: positions in model lengths in ``[0, W) x [0, H)``; every
displacement is the minimum image from i to j (``space.displacement``).

Algorithm (per call, all numpy, no Python loop over agents)
-----------------------------------------------------------
1. Cells of side ``>= cutoff / m`` (``m`` = ``cells_per_cutoff``); a dimension
   less than ``2m + 1`` cells wide becomes one single cell (then that dimension
   is searched by brute force, which keeps small boxes and ``cutoff >= L/2``
   correct).  Replica id goes into the cell key: ``key = g * ncells + cell``.
2. Agents are sorted by key (uint16 keys -> numpy's radix sort), cell starts
   come from ``bincount`` + ``cumsum``.
3. Half shell: agent p (in sorted order) pairs with the rest of its own row
   segment (agents after p in its cell, then the next ``m`` cells of the row)
   and with ``m`` rows above, columns ``cx-m .. cx+m``.  Cells of one row are
   consecutive in the key, so each row is one contiguous slice of the sorted
   agents (two slices where it wraps).  The per-cell slice table is cached per
   (box, cutoff, grid).
4. One ``np.repeat`` + a cached ``arange`` turns all slices into candidate
   partners; the exact minimum-image displacement of every candidate is computed
   in place on two contiguous columns (x and y), one exact filter on ``r^2``,
   and ``sqrt`` on the survivors.  The image is known per slot (a slice that
   wrapped past an edge reaches the next box), so from ``_IMAGES_MIN`` candidates
   on only the wrapped slices' candidates get their ``L * k`` subtracted
   (``_half_shifts``: the same bits as the per-candidate formula).  No ``np.take`` (12 ns an element under wasm
   against 1.8 for a 1-D ``a[idx]``).  Below ``_ALL_PAIRS`` candidate pairs
   (N <= 91, no replicas) a sorted search takes every pair as a candidate instead
   (fewer numpy calls; sorted output is canonical, so the bits are the same).
5. ``half=True`` returns each unordered pair once.  Otherwise each unordered
   pair is written in both directions into preallocated arrays; the reverse vector is
   ``0.0 - d`` (bit-identical to the minimum image of the reverse unless a
   component sits at exactly L/2, which is possible only for
   ``cutoff >= L/2``; then the reverse is recomputed and filtered on its own).
6. Output order (i, r, j): LSD radix sort with numpy's radix argsort on
   uint16 keys (r quantised to 16 bits, then i); runs with equal quantised r
   (rare) are re-sorted exactly by (r, j).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import detmath
from .space import Box, displacement, norm, wrap

# Relative safety margin on the cutoff for cell sizes.
_REL = 1e-9
# Absolute margin in units of the box size (covers rounding of wrapped positions).
_ABS = 64 * np.finfo(np.float64).eps
# Up to this many cell keys, binning sorts uint16 keys (numpy's O(N) radix sort).
_KEY16 = 1 << 16


@dataclass
class Pairs:
    """Flat neighbour pairs.

    i : (M,) np.intp    first agent (int64 on 64-bit CPython, int32 on wasm32)
    j : (M,) np.intp    neighbour of i
    d : (M, 2) float64  minimum-image displacement from i to j.  The search returns it
                        as the transpose of a (2, M) array, so ``d[:, 0]`` and ``d[:, 1]``
                        (``dx``, ``dy``) are contiguous columns: wasm-friendly 1-D loops.
    r : (M,) float64    |d| = sqrt(dx*dx + dy*dy)
    n : int             number of agents the pairs refer to (for bincount minlength)
    half : bool         False: ordered pairs, both (i, j) and (j, i) are listed.
                        True: each unordered pair once; the stored (i, j, d, r) also
                        stands for (j, i, -d, r).  Reduce with :meth:`sum_by_i` /
                        :meth:`counts`, which know both forms.
    """

    i: np.ndarray
    j: np.ndarray
    d: np.ndarray
    r: np.ndarray
    n: int
    half: bool = False

    @property
    def dx(self) -> np.ndarray:
        """x components of the displacements, (M,) (a contiguous column from the search)."""
        return self.d[:, 0]

    @property
    def dy(self) -> np.ndarray:
        """y components of the displacements, (M,)."""
        return self.d[:, 1]

    def take(self, idx: np.ndarray) -> "Pairs":
        """Pairs at integer indices or boolean mask ``idx`` (order preserved).

        1-D gathers only: ``np.take`` costs ~7x more per element under wasm."""
        idx = np.asarray(idx)
        if idx.dtype == bool:
            idx = idx.ravel().nonzero()[0]
        return Pairs(self.i[idx], self.j[idx], _columns(self.dx[idx], self.dy[idx]), self.r[idx],
                     self.n, self.half)

    def __len__(self) -> int:
        return int(self.i.shape[0])

    def counts(self) -> np.ndarray:
        """Number of neighbours per agent, shape (n,) (both ends of a half pair count).
        Computed once per Pairs (read-only; e.g. Lab 1's alignment and cohesion share it)."""
        c = self.__dict__.get("_counts")
        if c is None:
            c = np.bincount(self.i, minlength=self.n)
            if self.half:
                c += np.bincount(self.j, minlength=self.n)
            c.setflags(write=False)
            self.__dict__["_counts"] = c
        return c

    def sum_by_i(self, w, odd: bool = False) -> np.ndarray:
        """``s_a = sum over ordered pairs (a, b) of w_ab`` for every agent a.

        w   : (M,) per-pair values -> (n,);  or a sequence of k such arrays -> (n, k)
        odd : for half pairs, how the reverse pair's value follows from the stored one:
              ``w_ji = -w_ij`` (odd, e.g. a symmetric weight times ``d``) or
              ``w_ji = w_ij`` (even, e.g. a function of ``r``).  Ignored for full pairs.

        Full pairs: one ``np.bincount`` over i.  Half pairs: bincount over i plus
        (or minus) bincount over j - the sums of the full form up to rounding order
        (tested against it in tests/unit/test_cells.py).
        """
        if not isinstance(w, np.ndarray) or w.ndim != 1:
            w = list(w)
            out = np.empty((self.n, len(w)))  # (not np.stack: the same values, fewer calls)
            for k, c in enumerate(w):
                out[:, k] = self.sum_by_i(np.asarray(c, dtype=np.float64), odd)
            return out
        return sum_by_i(self.i, w, self.n, self.j if self.half else None, odd)

    def full(self) -> "Pairs":
        """The ordered form (both directions; unsorted).  Full pairs return themselves."""
        if not self.half:
            return self
        m = len(self)
        d = np.empty((2, 2 * m))
        d[0, :m] = self.dx
        d[1, :m] = self.dy
        np.subtract(0.0, self.dx, out=d[0, m:])
        np.subtract(0.0, self.dy, out=d[1, m:])
        return Pairs(np.concatenate((self.i, self.j)), np.concatenate((self.j, self.i)), d.T,
                     np.concatenate((self.r, self.r)), self.n)


def sum_by_i(i: np.ndarray, w: np.ndarray, n: int, j: np.ndarray | None = None,
             odd: bool = False) -> np.ndarray:
    """The one per-pair reducer: ``s_a = sum_{p: i_p = a} w_p``, shape (n,), by ``np.bincount``
    (a sequential loop in pair order, so the bits depend only on that order).

    With ``j`` (half pairs), each pair also adds ``-w_p`` (``odd``) or ``w_p`` to ``s_{j_p}``.
    ``i``/``j`` must be ``np.intp`` (numpy refuses int64 in bincount on wasm32).
    """
    s = np.bincount(i, weights=w, minlength=n)
    if j is not None:
        back = np.bincount(j, weights=w, minlength=n)
        if odd:
            s -= back
        else:
            s += back
    return s


def _columns(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """(M, 2) displacements whose columns are contiguous: the transpose of a (2, M) array."""
    d = np.empty((2, dx.shape[0]))  # (not np.stack: its Python wrapper costs more than the copy at small M)
    d[0] = dx
    d[1] = dy
    return d.T


def _norm(d: np.ndarray) -> np.ndarray:
    """|d| over the last axis (``space.norm``): sqrt(dx*dx + dy*dy), IEEE-exact."""
    return norm(d)


def _empty_pairs(n: int, half: bool = False) -> Pairs:
    return Pairs(np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros((2, 0)).T, np.zeros(0), n, half)


# ---------------------------------------------------------------------------
# Grid geometry (cached)
# ---------------------------------------------------------------------------


def _row_pieces(cx: np.ndarray, nx: int, lo_off: int, hi_off: int) -> tuple[np.ndarray, ...]:
    """Columns ``cx+lo_off .. cx+hi_off`` of a periodic row as two half-open pieces.

    Returns (a0, a1, b0, b1): piece A = [a0, a1), piece B = [b0, b1) (B may be empty).
    Requires ``hi_off - lo_off + 1 <= nx`` (no column twice).
    """
    lo = cx + lo_off
    hi = cx + hi_off
    a0 = np.where(lo < 0, 0, lo)
    a1 = np.where(hi >= nx, nx, hi + 1)
    b0 = np.where(lo < 0, lo + nx, 0)
    b1 = np.where(lo < 0, nx, np.where(hi >= nx, hi - nx + 1, 0))
    return a0, a1, b0, b1


@dataclass(frozen=True)
class _Grid:
    """A periodic grid of ``nx * ny`` cells over a box.

    Cell id ``c = cy * nx + cx``.  ``mx``/``my``: stencil reach in cells
    (0 when the dimension is a single cell).  ``hx``/``hy``: cell sides.
    """

    nx: int
    ny: int
    mx: int
    my: int
    hx: float
    hy: float

    @property
    def nc(self) -> int:
        return self.nx * self.ny


def _dim_cells(length: float, reach: float, m: int, cap: int) -> tuple[int, int]:
    """Cells along one dimension and stencil reach for a search radius ``reach``.

    Cell side >= reach / m.  ``reach`` already exceeds the cutoff by the safety
    margin, so agents within the cutoff are at most ``m`` cells apart even after
    rounding of their cell coordinates.  If fewer than ``2m + 1`` cells fit, try
    a smaller ``m``; if not even 3 fit, use a single cell (reach 0 = brute force
    along this dimension).  ``cap`` bounds the cell count (memory, tiny cutoffs).
    """
    for mm in range(m, 0, -1):
        if reach <= 0.0:
            n = cap
        else:
            n = int(np.floor(length * mm / reach))
            n = min(n, cap)
        if n >= 2 * mm + 1:
            return n, mm
    return 1, 0


@lru_cache(maxsize=64)
def _make_grid(width: float, height: float, reach: float, m: int, max_cells: int) -> _Grid:
    # Per-dimension cap keeps nx*ny <= max_cells roughly in proportion to the sides.
    aspect = width / height
    capx = max(1, int(np.sqrt(max_cells * aspect)))
    capy = max(1, int(np.sqrt(max_cells / aspect)))
    nx, mx = _dim_cells(width, reach, m, capx)
    ny, my = _dim_cells(height, reach, m, capy)
    return _Grid(nx, ny, mx, my, width / nx, height / ny)


@lru_cache(maxsize=8)  # a table is ~128 bytes per cell; a few (R, personal space, ...) in use
def _half_table(g: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """Half-shell slices per cell: (first_cell, end_cell) of shape (nc, S), np.intp.

    Slot 0: own row, columns cx .. cx+mx (the caller replaces its start by p+1,
    so it covers the agents after p in its own cell and the forward cells).
    Slot 1: the wrapped remainder of slot 0.
    Slots 2k, 2k+1 (k = 1..my): row cy+k, columns cx-mx .. cx+mx (two pieces).
    Ends are exclusive cell ids; an empty slot has first == end.
    """
    nx, ny = g.nx, g.ny
    cells = np.arange(g.nc, dtype=np.intp)
    cx, cy = cells % nx, cells // nx
    first, end = [], []
    a0, a1, b0, b1 = _row_pieces(cx, nx, 0, g.mx)
    row = cy * nx
    first += [row + a0, row + b0]
    end += [row + a1, row + b1]
    for k in range(1, g.my + 1):
        row = ((cy + k) % ny) * nx
        a0, a1, b0, b1 = _row_pieces(cx, nx, -g.mx, g.mx)
        first += [row + a0, row + b0]
        end += [row + a1, row + b1]
    f = np.ascontiguousarray(np.stack(first, axis=1))
    e = np.ascontiguousarray(np.stack(end, axis=1))
    e = np.where(e > f, e, f)  # empty pieces: first == end
    f.setflags(write=False)
    e.setflags(write=False)
    return f, e


# From this many candidates on, the search takes each slot's image from _half_shifts; below it,
# the per-candidate minimum image costs fewer numpy calls (a few us each in Pyodide).
_IMAGES_MIN = 40_000


@lru_cache(maxsize=8)
def _half_shifts(g: _Grid, width: float, height: float):
    """The periodic image each half-shell slot reaches, as what the minimum image subtracts.

    For a dimension of at least three cells (``mx``/``my`` >= 1) every slot of a cell
    reaches its partners through one image of the box: a slot's piece that wrapped past
    the right edge (or the top row) holds partners one box side away.  So the
    minimum-image multiple ``L * floor(d / L + 0.5)`` of ``space.displacement`` is known
    per (cell, slot) before any candidate exists: 0.0, ``L`` or ``-L`` (``L * k``, the
    same float).  Returns, for x then y, ``(table, slots)``: ``table`` (S, nc) float64
    (slot-major, so each slot is a 1-D gather) and the slots where it is not all zero;
    ``None`` for a single-cell dimension (searched by brute force: the image is per pair).

    Why the bits are those of the minimum image: a pair within the cutoff is at most
    ``m`` cells apart through its minimum image (the cells' safety margin), and the
    ``2m + 1`` columns a row slot covers are distinct, so the slot that finds it is the
    one of that image: the same ``k``, hence ``d - L * k`` bit for bit.  For any other
    candidate the slot's image is no nearer than the minimum one (componentwise, and
    rounding is monotone), so it fails the exact filter either way.
    """
    nx, ny = g.nx, g.ny
    cells = np.arange(g.nc, dtype=np.intp)
    cx, cy = cells % nx, cells // nx
    nslot = 2 + 2 * g.my
    out = []
    if g.mx >= 1:
        tx = np.zeros((nslot, g.nc))
        tx[1] = np.where(cx + g.mx >= nx, -width, 0.0)  # own row, wrapped past the right edge
        for k in range(1, g.my + 1):  # rows above: the piece wrapped past either edge
            tx[2 * k + 1] = np.where(cx - g.mx < 0, width, np.where(cx + g.mx >= nx, -width, 0.0))
        out.append(tx)
    else:
        out.append(None)
    if g.my >= 1:
        ty = np.zeros((nslot, g.nc))
        for k in range(1, g.my + 1):  # rows above the top row wrap to the bottom
            ty[2 * k] = ty[2 * k + 1] = np.where(cy + k >= ny, -height, 0.0)
        out.append(ty)
    else:
        out.append(None)
    tables = []
    for t in out:
        if t is None:
            tables.append(None)
            continue
        t.setflags(write=False)
        tables.append((t, tuple(k for k in range(nslot) if t[k].any())))
    return tuple(tables)


def _subtract_images(d: np.ndarray, cell: np.ndarray, table, ln: np.ndarray, at: np.ndarray) -> None:
    """In place, one component: ``d -= L * k`` for the candidates of the slots that reach
    another image of the box (``_half_shifts``; the others have k = 0, and ``d - 0.0`` is d).

    cell : (A,) base cell of each owner;  ln : (A, S) slice lengths;  at : (A * S,) where
    each slice's candidates start in ``d`` (``_expand_q``).  Only the wrapped slices are
    touched: a few per cent of the candidates at the boundary cells."""
    t, slots = table
    per_slot = np.zeros(ln.shape)
    for k in slots:
        per_slot[:, k] = t[k][cell]
    per_slot = per_slot.ravel()
    wrapped = (per_slot != 0.0).nonzero()[0]  # (nonzero on the floats themselves is ~3x slower)
    if wrapped.size:
        lens = ln.ravel()[wrapped]
        idx = _expand_q(at[wrapped], lens)[0]
        d[idx] -= per_slot[wrapped].repeat(lens)


# ---------------------------------------------------------------------------
# Binning
# ---------------------------------------------------------------------------


def _as_positions(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 2:
        raise ValueError(f"positions must have shape (N, 2), got {x.shape}")
    return x


def _group_ids(group: np.ndarray | None, n: int) -> tuple[np.ndarray | None, int]:
    """Replica ids mapped to 0..G-1 (np.intp), or (None, 1) without groups."""
    if group is None:
        return None, 1
    g = np.asarray(group)
    if g.shape != (n,):
        raise ValueError(f"group must have shape ({n},), got {g.shape}")
    if n == 0:
        return np.zeros(0, np.intp), 1
    g = g.astype(np.intp, copy=False)
    lo, hi = int(g.min()), int(g.max())
    if lo >= 0 and hi < 4 * n + 16:
        return g, hi + 1
    _, inv = np.unique(g, return_inverse=True)
    inv = inv.reshape(-1).astype(np.intp)
    return inv, int(inv.max()) + 1


@dataclass
class _Binned:
    """Agents sorted by cell key.

    order    (N,) intp   agent id at each sorted position
    cell     (N,) intp   base cell id (without the replica part) in sorted order
    gbase    (N,) intp   replica offset ``g * nc`` in sorted order (or None)
    start    (K+1,) intp first sorted position of each key; K = G * nc
    xs, ys   (N,) float64 wrapped positions in sorted order (only for nearest_any)
    """

    order: np.ndarray
    cell: np.ndarray
    gbase: np.ndarray | None
    start: np.ndarray
    xs: np.ndarray | None = None
    ys: np.ndarray | None = None


def _bin(xw: np.ndarray, box: Box, grid: _Grid, g: np.ndarray | None, ngroups: int,
         columns: bool = False) -> _Binned:
    x0 = xw[:, 0]
    x1 = xw[:, 1]
    cx = (x0 * (grid.nx / box.width)).astype(np.intp)
    cy = (x1 * (grid.ny / box.height)).astype(np.intp)
    np.minimum(cx, grid.nx - 1, out=cx)  # x just below L can round up to L
    np.minimum(cy, grid.ny - 1, out=cy)
    cy *= grid.nx
    cy += cx
    cell = cy
    nkeys = grid.nc * ngroups
    key = cell if g is None else g * grid.nc + cell
    # Small unsigned keys let numpy use its O(N) radix sort (kind="stable").
    if nkeys <= _KEY16:
        order = key.astype(np.uint16).argsort(kind="stable")
    else:
        order = key.argsort(kind="stable")
    start = np.zeros(nkeys + 1, np.intp)
    np.bincount(key, minlength=nkeys).cumsum(out=start[1:])
    gbase = None if g is None else (g[order] * grid.nc)
    b = _Binned(order, cell[order], gbase, start)
    if columns:
        b.xs, b.ys = x0[order], x1[order]
    return b


def _sorted_columns(x: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns x[:, 0], x[:, 1] in sorted order as two contiguous 1-D arrays (1-D gathers:
    under wasm ``np.take(x, order, axis=0)`` costs ~7x more per element)."""
    return x[:, 0][order], x[:, 1][order]


def _wrapped(x: np.ndarray, box: Box) -> np.ndarray:
    """Positions mapped into [0, L) for binning (no copy when already inside).

    Raises ValueError for non-finite positions (they have no cell).
    """
    if x.shape[0] == 0:
        return x
    # contiguous / 1-D reductions: x.min(axis=0) on an (N, 2) array is ~25x slower
    lo = float(x.min())  # NaN propagates through min and max
    hx = float(x[:, 0].max())
    hy = float(x[:, 1].max())
    if not (math.isfinite(lo) and math.isfinite(hx) and math.isfinite(hy)):
        raise ValueError("positions must be finite")
    if lo < 0 or hx >= box.width or hy >= box.height:
        return wrap(x, box)
    return x


# Scratch space reused across calls (the engine is single-threaded; one worker, one
# interpreter).  Only candidate-sized temporaries live here, never a returned array:
# reusing them spares CPython a fresh mmap (and its page faults) per big temporary.
_SCRATCH: dict[str, np.ndarray] = {}


def _scratch(name: str, size: int, dtype=np.float64) -> np.ndarray:
    """A writable buffer of ``size`` elements, reused across calls (grown by 1.5x)."""
    buf = _SCRATCH.get(name)
    if buf is None or buf.size < size or buf.dtype != dtype:
        buf = np.empty(max(size, int(1.5 * (0 if buf is None else buf.size))), dtype)
        _SCRATCH[name] = buf
    return buf[:size]


def _arange(size: int) -> np.ndarray:
    """``np.arange(size, dtype=np.intp)`` from a cached read-only table."""
    buf = _SCRATCH.get("arange")
    if buf is None or buf.size < size:
        buf = np.arange(max(size, int(1.5 * (0 if buf is None else buf.size))), dtype=np.intp)
        buf.setflags(write=False)
        _SCRATCH["arange"] = buf
    return buf[:size]


def _slices(b: _Binned, first: np.ndarray, end: np.ndarray, rows: np.ndarray | None = None):
    """Per agent (sorted position) and slot: start and length of the partner slice, (A, S).
    The general form (replicas: each agent's slices are offset by its replica's cells)."""
    cell = b.cell if rows is None else b.cell[rows]
    f = first[cell]
    e = end[cell]
    if b.gbase is not None:
        gb = (b.gbase if rows is None else b.gbase[rows])[:, None]
        f += gb
        e += gb
    s = b.start[f]
    ln = b.start[e]
    ln -= s
    return s, ln


def _half_slices(b: _Binned, first: np.ndarray, end: np.ndarray, pos: np.ndarray):
    """The half-shell slices of every agent: (s, ln) of shape (N, S) and ``per`` = ln
    summed over the slots, (N,).  Slot 0 (own row) starts right after the agent itself.

    Without replicas the slices of each cell are looked up once per cell and slot
    (``start[first]``: S x nc) and gathered per agent one slot at a time: 1-D gathers,
    4x faster in Pyodide than gathering (nc, S) rows per agent.
    """
    if b.gbase is not None:
        s, ln = _slices(b, first, end)
        ln[:, 0] += s[:, 0]
        ln[:, 0] -= pos + 1
        s[:, 0] = pos + 1
        return s, ln, ln.sum(axis=1)
    sst = b.start[first.T]  # (S, nc)
    sln = b.start[end.T]
    sln -= sst
    cell = b.cell
    nslot = first.shape[1]
    s = np.empty((cell.size, nslot), np.intp)
    ln = np.empty((cell.size, nslot), np.intp)
    np.add(pos, 1, out=s[:, 0])
    per = sst[0][cell]  # own row: [p + 1, start + length)
    per += sln[0][cell]
    per -= pos
    per -= 1
    ln[:, 0] = per
    for k in range(1, nslot):
        a = sst[k][cell]
        s[:, k] = a
        a = sln[k][cell]
        ln[:, k] = a
        per += a
    return s, ln, per


def _expand_q(s: np.ndarray, ln: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partner sorted positions of all slices, slice after slice, and where each slice
    starts in them.

    s, ln : (A, S) slice starts and lengths (sorted positions) for A owners (or 1-D);
    the result is grouped by owner (row-major over (A, S)): (q, at), q (total,), at (A * S,).
    """
    s = s.ravel()
    ln = ln.ravel()
    at = ln.cumsum()
    total = int(at[-1]) if at.size else 0
    at -= ln  # slice starts in the output
    q = (s - at).repeat(ln)
    q += _arange(total)
    return q, at


def _expand(s: np.ndarray, ln: np.ndarray, owner: np.ndarray):
    """All partners of all slices: (p, q), owner and partner sorted position per
    candidate, grouped by owner."""
    return np.repeat(owner, ln.sum(axis=1)), _expand_q(s, ln)[0]


def _approx_r2(b: _Binned, p: np.ndarray, q: np.ndarray, box: Box) -> np.ndarray:
    """Cheap squared minimum-image distance on wrapped positions (within a few ulps of
    the exact one; nearest_any's finalist filter)."""
    dx = b.xs[q]
    dx -= b.xs[p]
    np.abs(dx, out=dx)
    dx = np.minimum(dx, box.width - dx, out=dx)
    dy = b.ys[q]
    dy -= b.ys[p]
    np.abs(dy, out=dy)
    dy = np.minimum(dy, box.height - dy, out=dy)
    dx *= dx
    dy *= dy
    dx += dy
    return dx


def _min_image(d: np.ndarray, length: float, tmp: np.ndarray, inverse: float | None = None) -> np.ndarray:
    """In place, one component of ``space.displacement``: ``d - L * floor(d / L + 0.5)``.

    The same operations in the same order as ``displacement`` (so the same bits);
    ``tmp`` is scratch of d's size.  Returns d.

    ``inverse`` (= 1 / L, optional) takes ``k = rint(d * (1/L))`` instead: a product for
    the division (half the cost under wasm) and one pass for ``+ 0.5`` and ``floor``.  The
    two forms give different k only where ``d / L`` is within a couple of ulps of a
    half-integer.  The search uses it only when that cannot matter: positions inside the
    box (``|d| < L``) and ``cutoff * (1 + 1e-9) < L / 2``, so every pair that passes the
    filter has ``|d / L|`` at least 1e-9 away from 1/2 (the same k, the same bits), and a
    candidate near 1/2 is farther than the cutoff with either k.  ``rint`` gives -0.0 for
    small negative ``d / L``, and ``d - (-0.0)`` is d for every d but -0.0, which a
    difference of two positions ``x_j - x_i`` never is (``x - x`` is +0.0).
    """
    if inverse is None:
        np.divide(d, length, out=tmp)
        tmp += 0.5
        np.floor(tmp, out=tmp)
    else:
        np.multiply(d, inverse, out=tmp)
        np.rint(tmp, out=tmp)
    tmp *= length
    d -= tmp
    return d


@lru_cache(maxsize=64)
def _r2_max(cutoff: float) -> float:
    """The largest float64 ``t`` with ``sqrt(t) <= cutoff``.

    ``sqrt`` is correctly rounded (IEEE 754; also wasm's ``f64.sqrt``) and monotone,
    so ``r2 <= t`` holds exactly when ``sqrt(r2) <= cutoff``: the search filters the
    squared distances once and takes square roots of the survivors only.
    """
    if not np.isfinite(cutoff):
        return float("inf")
    c = float(cutoff)
    t = c * c  # Python floats: inf on overflow, no warning
    while t > 0 and math.sqrt(t) > c:
        t = math.nextafter(t, -math.inf)
    while True:
        u = math.nextafter(t, math.inf)
        if not (u < math.inf and math.sqrt(u) <= c):
            return t
        t = u


# ---------------------------------------------------------------------------
# Output ordering
# ---------------------------------------------------------------------------


def _digits16(v: np.ndarray, nmax: int) -> list[np.ndarray]:
    """Non-negative ints ``v < nmax`` as uint16 digits, least significant first."""
    out = [v.astype(np.uint16)]  # keeps the low 16 bits
    shift = 16
    while nmax > 1 << shift:
        out.append((v >> shift).astype(np.uint16))
        shift += 16
    return out


def _emit_sorted(ii: np.ndarray, jj: np.ndarray, dx: np.ndarray, dy: np.ndarray, rr: np.ndarray,
                 n: int) -> Pairs:
    """Ordered pairs sorted by (i, r, j).

    LSD radix sort with numpy's O(M) radix argsort (kind="stable" on uint16):
    first by r quantised to 16 bits, then by i (16-bit digits).  Runs of one i
    with equal quantised r (rare) are then re-sorted exactly by (r, j).
    1-D gathers throughout (no ``np.take``).
    """
    if ii.size == 0:
        return Pairs(ii, jj, _columns(dx, dy), rr, n)
    rmax = float(rr.max())

    def quantise(v):  # monotone in v, 0..65535 (division first: no overflow for tiny rmax)
        if rmax > 0:
            v = v / rmax
            v *= 65535.0
            return v.astype(np.uint16)
        return np.zeros(v.shape, np.uint16)

    perm = np.argsort(quantise(rr), kind="stable")
    for dig in _digits16(ii, n):
        perm = perm[np.argsort(dig[perm], kind="stable")]
    I = ii[perm]
    J = jj[perm]
    R = rr[perm]
    D = np.empty((2, perm.size))
    D[0] = dx[perm]
    D[1] = dy[perm]
    # exact tie-break where (i, quantised r) repeats
    rqs = quantise(R)
    tie = np.flatnonzero((I[1:] == I[:-1]) & (rqs[1:] == rqs[:-1]))
    if tie.size:
        pos = np.unique(np.concatenate((tie, tie + 1)))
        src = pos[np.lexsort((J[pos], R[pos], I[pos]))]
        J[pos] = J[src]
        R[pos] = R[src]
        D[:, pos] = D[:, src]
    return Pairs(I, J, D.T, R, n)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def _auto_m(n_per_group: float, area: float, cutoff: float) -> int:
    """Cells per cutoff from the mean number of agents per cutoff^2 (rho R^2).

    Measured crossover (tools/bench, 2-core x86): the 3x3 stencil wins below
    rho R^2 ~ 5; finer cells (fewer wasted candidates, more slices) win above.
    """
    rho_r2 = n_per_group / area * cutoff * cutoff if math.isfinite(cutoff) else math.inf
    if rho_r2 < 5.0:
        return 1
    return 2 if rho_r2 < 10.0 else 3


def _emit(i: np.ndarray, j: np.ndarray, ddx: np.ndarray, ddy: np.ndarray, r: np.ndarray, n: int,
          half: bool, sort: bool) -> Pairs:
    """Pairs from the unordered pairs found (cutoff < L/2: the reverse of d is exactly 0.0 - d).

    half: as they are; else both directions written into preallocated arrays (forward
    block, then reverse block), then sorted by (i, r, j) if ``sort``.
    """
    if half:
        return Pairs(i, j, _columns(ddx, ddy), r, n, True)
    k = i.size
    ii = np.empty(2 * k, np.intp)
    jj = np.empty(2 * k, np.intp)
    rr = np.empty(2 * k)
    D = np.empty((2, 2 * k))
    ii[:k] = i
    ii[k:] = j
    jj[:k] = j
    jj[k:] = i
    rr[:k] = r
    rr[k:] = r
    D[0, :k] = ddx
    D[1, :k] = ddy
    np.subtract(0.0, ddx, out=D[0, k:])
    np.subtract(0.0, ddy, out=D[1, k:])
    if not sort:
        return Pairs(ii, jj, D.T, rr, n)
    return _emit_sorted(ii, jj, D[0], D[1], rr, n)


# Up to this many candidate pairs (N <= 91) a *sorted* search compares all pairs directly:
# far fewer numpy calls than binning, which dominates small N (~3 us a call in Pyodide).
# Sorted output is canonical, so it is the same bits either way; unsorted output keeps the
# cell list's order, which the chaotic runs of Labs 1 and 3 (and their measured goal table,
# issue 13) depend on, so a share link replays the same run as before.  A caller whose result
# does not depend on the order (``any_order``: Lab 2 sorts its neighbourhoods) takes it too.
_ALL_PAIRS = 4096


@lru_cache(maxsize=8)
def _upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All (p, q) with p < q < n, row by row (read-only np.intp arrays)."""
    p, q = np.triu_indices(n, 1)
    p = p.astype(np.intp)
    q = q.astype(np.intp)
    p.setflags(write=False)
    q.setflags(write=False)
    return p, q


def neighbour_pairs(
    x: np.ndarray,
    box: Box,
    cutoff: float,
    group: np.ndarray | None = None,
    *,
    cells_per_cutoff: int | None = None,
    sort: bool = True,
    half: bool = False,
    any_order: bool = False,
) -> Pairs:
    """All ordered pairs (i, j), i != j, with periodic distance ``r <= cutoff``.

    x      : (N, 2) positions inside the box
    group  : optional (N,) int replica ids; pairs only form within one group
             (one cell list serves many independent replicas)
    cells_per_cutoff : optional tuning knob m >= 1 (cell side ~ cutoff / m,
             stencil (2m+1)^2); default picks 1, 2 or 3 from the density.
             Results do not depend on it, only the speed.
    sort   : True (default): sorted by i, then (r, j), exactly equal to brute force
             (see module doc).  False: the same set of pairs in a deterministic but
             unspecified order, skipping the output sort (the largest single cost at
             high density).  Use it when the caller only reduces with bincount and
             needs neither k_nearest nor the order.
    half   : True: each unordered pair once (``Pairs.half``; about half the output,
             no reverse direction written), in a deterministic but unspecified order;
             reduce it with ``Pairs.sum_by_i`` / ``Pairs.counts``.  Implies no sort.
             When ``cutoff`` reaches half the box (where the reverse of a displacement
             need not be its negative) the full form is returned instead: check
             ``pairs.half``, or just reduce with ``sum_by_i``, which handles both.
    any_order : True: the caller's result does not depend on the pair order (it sorts
             the pairs itself, as ``vicsek.neighbourhoods`` does), so with ``sort=False``
             the search may also take the all-pairs path up to 91 agents, which keeps
             the cell list's order only for sorted output.
    """
    x = _as_positions(x)
    n = x.shape[0]
    cutoff = float(cutoff)
    if n < 2 or not cutoff >= 0.0:  # also rejects NaN
        return _empty_pairs(n, half)
    g, ngroups = _group_ids(group, n)
    area = box.width * box.height
    m = _auto_m(n / ngroups, area, cutoff) if cells_per_cutoff is None else int(cells_per_cutoff)
    if m < 1:
        raise ValueError(f"cells_per_cutoff must be >= 1, got {cells_per_cutoff}")
    W, H = float(box.width), float(box.height)
    fast = cutoff * (1.0 + _REL) < 0.5 * min(W, H)
    xw = _wrapped(x, box)
    if fast and g is None and (sort or any_order) and n * (n - 1) // 2 <= _ALL_PAIRS:
        return _all_pairs(x, xw is x, W, H, cutoff, half, sort)
    reach = min(cutoff * (1.0 + _REL) + _ABS * max(W, H), 1e300)
    max_cells = 4 * n // ngroups + 16
    grid = _make_grid(W, H, reach, int(m), max_cells)
    b = _bin(xw, box, grid, g, ngroups)
    first, end = _half_table(grid)

    # candidates: half shell, own-row slice starts right after p
    pos = _arange(n)
    s, ln, per = _half_slices(b, first, end, pos)
    q, at = _expand_q(s, ln)
    total = q.size

    # exact minimum-image displacement of every candidate, from the raw positions
    # (1-D columns, in place), then one exact filter on r^2 (see _r2_max).  Inside the box and
    # from _IMAGES_MIN candidates on, the image is the slot's (_half_shifts): a subtraction on
    # the wrapped slices only, instead of four passes over every candidate.
    inside = fast and xw is x
    sx, sy = _half_shifts(grid, W, H) if inside and total >= _IMAGES_MIN else (None, None)
    xs, ys = _sorted_columns(x, b.order)
    tmp = _scratch("tmp", total)
    dx = xs[q]
    dx -= xs.repeat(per)  # (array methods, not np.repeat: no Python wrapper per call)
    if sx is None:
        _min_image(dx, W, tmp, 1.0 / W if inside else None)
    else:
        _subtract_images(dx, b.cell, sx, ln, at)
    dy = ys[q]
    dy -= ys.repeat(per)
    if sy is None:
        _min_image(dy, H, tmp, 1.0 / H if inside else None)
    else:
        _subtract_images(dy, b.cell, sy, ln, at)
    r2 = _scratch("r2", total)
    np.multiply(dx, dx, out=r2)
    np.multiply(dy, dy, out=tmp)
    r2 += tmp

    if fast:
        # No component can sit at L/2, so the reverse vector is exactly 0.0 - d (also
        # +0.0, never -0.0, for coincident agents) with the same r.
        keep = (r2 <= _r2_max(cutoff)).nonzero()[0]  # (np.flatnonzero: the same, through a Python wrapper)
        i = b.order.repeat(per)[keep]  # (= order[pos.repeat(per)[keep]]: one gather fewer)
        j = b.order[q[keep]]
        return _emit(i, j, dx[keep], dy[keep], np.sqrt(r2[keep]), n, half, sort)

    # cutoff >= L/2: at exactly L/2 both directions give -L/2, so compute the
    # reverse on its own and filter each direction separately
    p = np.repeat(pos, per)
    t2 = _r2_max(cutoff)
    k1 = np.flatnonzero(r2 <= t2)
    fx, fy = dx[k1], dy[k1]
    bx = xs[p]
    bx -= xs[q]  # displacement(x_q, x_p): x_p - x_q, then the minimum image
    _min_image(bx, W, tmp)
    by = ys[p]
    by -= ys[q]
    _min_image(by, H, tmp)
    r2b = bx * bx
    r2b += by * by
    k2 = np.flatnonzero(r2b <= t2)
    ii = np.concatenate((b.order[p[k1]], b.order[q[k2]]))
    jj = np.concatenate((b.order[q[k1]], b.order[p[k2]]))
    ddx = np.concatenate((fx, bx[k2]))
    ddy = np.concatenate((fy, by[k2]))
    rr = np.concatenate((np.sqrt(r2[k1]), np.sqrt(r2b[k2])))
    if not sort:
        return Pairs(ii, jj, _columns(ddx, ddy), rr, n)
    return _emit_sorted(ii, jj, ddx, ddy, rr, n)


def _all_pairs(x: np.ndarray, inside: bool, W: float, H: float, cutoff: float, half: bool,
               sort: bool) -> Pairs:
    """Small N (cutoff < L/2, no groups): every pair p < q is a candidate, tested exactly
    as in the cell-list path (same formula, same bits)."""
    n = x.shape[0]
    p, q = _upper_pairs(n)
    xs = np.ascontiguousarray(x[:, 0])
    ys = np.ascontiguousarray(x[:, 1])
    tmp = np.empty(p.size)
    dx = xs[q]
    dx -= xs[p]
    _min_image(dx, W, tmp, 1.0 / W if inside else None)
    dy = ys[q]
    dy -= ys[p]
    _min_image(dy, H, tmp, 1.0 / H if inside else None)
    r2 = dx * dx
    np.multiply(dy, dy, out=tmp)
    r2 += tmp
    keep = np.flatnonzero(r2 <= _r2_max(cutoff))
    return _emit(p[keep], q[keep], dx[keep], dy[keep], np.sqrt(r2[keep]), n, half, sort)


def in_field_of_view(pairs: Pairs, u: np.ndarray, half_angle: float) -> Pairs:
    """Keep pairs with j inside the forward cone of i: angle(u_i, r_ij) <= half_angle.

    u : (N, 2) unit headings.  A coincident neighbour (r == 0) counts as visible.
    Test: ``u_i . d_ij >= cos(half_angle) * r_ij - 1e-12 * r_ij`` (cos from ``detmath``:
    the same bits in CPython and Pyodide).

    Half pairs (``pairs.half``) come back as ordered pairs, equal bit for bit and in
    order to ``in_field_of_view(pairs.full(), u, half_angle)``: the forward pairs kept,
    then the reverse pairs kept.  The reverse pair (j, i, 0.0 - d, r) is tested as
    ``u_j . d <= -lim``, which is ``u_j . (0.0 - d) >= lim`` exactly (IEEE negation is
    exact and rounding is symmetric; only the sign of a zero product can differ, and
    -0.0 and +0.0 compare equal), so the reverse block is never written out whole.
    """
    u = np.asarray(u, dtype=np.float64)
    u0 = np.ascontiguousarray(u[:, 0])  # 1-D gathers: ~2x faster than u[pairs.i] rows
    u1 = np.ascontiguousarray(u[:, 1])
    i, dx, dy, r = pairs.i, pairs.dx, pairs.dy, pairs.r
    lim = detmath.cos_of(half_angle) * r
    lim -= 1e-12 * r
    cosang = u0[i] * dx
    cosang += u1[i] * dy
    if not pairs.half:
        return pairs.take(cosang >= lim)
    fwd = (cosang >= lim).nonzero()[0]
    j = pairs.j
    cosang = u0[j] * dx  # j's heading against d (from i to j)
    cosang += u1[j] * dy
    back = (cosang <= np.negative(lim, out=lim)).nonzero()[0]
    k = fwd.size
    d = np.empty((2, k + back.size))
    d[0, :k] = dx[fwd]
    d[1, :k] = dy[fwd]
    np.subtract(0.0, dx[back], out=d[0, k:])  # as Pairs.full() writes the reverse
    np.subtract(0.0, dy[back], out=d[1, k:])
    return Pairs(np.concatenate((i[fwd], j[back])), np.concatenate((j[fwd], i[back])), d.T,
                 np.concatenate((r[fwd], r[back])), pairs.n)


def k_nearest(pairs: Pairs, k: int) -> Pairs:
    """Keep, for each i, its ``k`` nearest pairs (ties broken by the smaller j).

    Relies on the (i, r, j) sort order of ``pairs``.
    """
    if len(pairs) == 0:
        return pairs
    starts = np.concatenate(([0], np.cumsum(pairs.counts())[:-1]))
    rank = np.arange(len(pairs)) - starts[pairs.i]
    return pairs.take(np.flatnonzero(rank < k))


def _ring_slices(b: _Binned, grid: _Grid, rows: np.ndarray, k: int):
    """Slices of the block of cells within Chebyshev distance ``k`` of each agent.

    rows : (Q,) sorted positions of the query agents.  Returns (s, ln) of shape
    (Q, 2 * nrows): each row of the block is one slice of the sorted agents, two
    where it wraps.  A dimension with ``2k + 1 >= n`` cells is covered whole
    (each cell once).  Computed per agent (only unresolved agents get here).
    """
    nx, ny = grid.nx, grid.ny
    cell = b.cell[rows]
    cx, cy = cell % nx, cell // nx
    if 2 * k + 1 >= nx:
        z = np.zeros_like(cx)
        a0, a1, b0, b1 = z, z + nx, z, z
    else:
        a0, a1, b0, b1 = _row_pieces(cx, nx, -k, k)
    if 2 * k + 1 >= ny:
        rowid = np.broadcast_to(np.arange(ny, dtype=np.intp) * nx, (cx.size, ny))
    else:
        rowid = ((cy[:, None] + np.arange(-k, k + 1)) % ny) * nx
    first = np.stack((rowid + a0[:, None], rowid + b0[:, None]), axis=2).reshape(cx.size, -1)
    end = np.stack((rowid + a1[:, None], rowid + b1[:, None]), axis=2).reshape(cx.size, -1)
    if b.gbase is not None:
        gb = b.gbase[rows][:, None]
        first = first + gb
        end = end + gb
    s = b.start[first]
    return s, b.start[end] - s


def _nearest_chunk(b: _Binned, xr: tuple[np.ndarray, np.ndarray], box: Box, owners: np.ndarray, s: np.ndarray, ln: np.ndarray):
    """Nearest candidate of each owner: (owner sorted position, j id, r), owners with one."""
    p, q = _expand(s, ln, owners)
    r2 = _approx_r2(b, p, q, box)
    r2[p == q] = np.inf  # never pair with itself
    per = ln.sum(axis=1)  # >= 1: the block holds the owner itself
    best = np.minimum.reduceat(r2, np.cumsum(per) - per)
    # finalists: within a relative hair of the approximate best, then exact
    thr = best * (1.0 + 1e-9) + 1e-300
    fin = np.flatnonzero((r2 <= np.repeat(thr, per)) & (r2 < np.inf))
    pf, qf = p[fin], q[fin]
    if pf.size == 0:  # every owner alone in its block
        return pf, pf, np.zeros(0)
    j = b.order[qf]
    xs, ys = xr  # raw positions, sorted, as columns
    tmp = np.empty(pf.size)
    dx = _min_image(xs[qf] - xs[pf], float(box.width), tmp)
    dy = _min_image(ys[qf] - ys[pf], float(box.height), tmp)
    dx *= dx
    dy *= dy
    dx += dy
    r = np.sqrt(dx)
    o = np.lexsort((j, r, pf))
    head = o[np.concatenate(([True], pf[o][1:] != pf[o][:-1]))]
    return pf[head], j[head], r[head]


# Candidate budget per chunk of queries in nearest_any (bounds memory to ~100 MB).
_CHUNK = 1 << 21
# nearest_any(query=...) compares each queried agent with all agents directly up to
# this many (query, agent) pairs: a few stragglers need no grid and no growing rings.
_BRUTE = 1 << 15


def _nearest_brute(x: np.ndarray, box: Box, g: np.ndarray | None, query: np.ndarray):
    """nearest_any for the agents ``query`` by direct comparison with all agents.

    The same formula as the ring search (``sqrt(dx*dx + dy*dy)`` of
    ``displacement(x[i], x[j])``, raw positions), so the same bits; ``argmin``
    returns the first minimum, i.e. ties go to the smaller j.
    """
    r = _norm(displacement(x[query][:, None, :], x[None, :, :], box))
    r[np.arange(query.size), query] = np.inf  # never itself
    if g is not None:
        r[g[query][:, None] != g[None, :]] = np.inf
    j = np.argmin(r, axis=1).astype(np.intp)
    rr = r[np.arange(query.size), j]
    j[rr == np.inf] = -1
    return j, rr


def nearest_any(x: np.ndarray, box: Box, group: np.ndarray | None = None,
                query: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nearest other agent at any distance.

    Returns (j, r): (N,) np.intp index (-1 if alone) and (N,) float64 distance (inf if alone).
    Ties are broken by the smaller j.

    ``query`` (optional, (Q,) agent indices, repeats allowed): search only for those
    agents (against all agents); then j and r have shape (Q,), in query order, and
    equal ``nearest_any(x, box, group)[k][query]`` bit for bit.  Use it when most
    agents' nearest neighbours are already known (e.g. from a neighbour search).

    Ring search on one grid: cells hold about one agent on average, refined
    once if the agents are clustered (agent-weighted occupancy > 4).  Each agent
    looks at the block of cells within k rings (k = 1, 2, 4, ...) and is done
    when its best exact distance is below the radius the block is guaranteed to
    cover, or when the block is the whole box.  Exact, like brute force.
    """
    x = _as_positions(x)
    n = x.shape[0]
    if query is not None:
        query = np.asarray(query)
        if query.ndim != 1 or not (query.size == 0 or np.issubdtype(query.dtype, np.integer)):
            raise ValueError("query must be a 1-D array of agent indices")
        query = query.astype(np.intp, copy=False)
        if query.size and (int(query.min()) < 0 or int(query.max()) >= n):
            raise ValueError(f"query indices must lie in [0, {n})")
        if query.size == 0 or n < 2:
            return np.full(query.size, -1, np.intp), np.full(query.size, np.inf)
    jout = np.full(n, -1, np.intp)
    rout = np.full(n, np.inf)
    if n < 2:
        return jout, rout
    g, ngroups = _group_ids(group, n)
    if query is not None and query.size * n <= _BRUTE:
        return _nearest_brute(x, box, g, query)
    W, H = float(box.width), float(box.height)
    npg = n / ngroups
    xw = _wrapped(x, box)
    h = np.sqrt(W * H / npg)  # about one agent per cell
    grid = _make_grid(W, H, float(h), 1, int(4 * npg) + 16)
    b = _bin(xw, box, grid, g, ngroups, columns=True)
    cnt = np.diff(b.start)
    occupancy = float(np.dot(cnt, cnt)) / n  # mean count in an agent's own cell
    if occupancy > 4.0:  # clustered: finer cells (at most 16 per agent)
        h = h / np.sqrt(occupancy / 2.0)
        grid = _make_grid(W, H, float(h), 1, int(16 * npg) + 16)
        b = _bin(xw, box, grid, g, ngroups, columns=True)
    xr = (b.xs, b.ys) if xw is x else _sorted_columns(x, b.order)  # raw positions, sorted
    if query is None:
        todo = np.arange(n, dtype=np.intp)  # sorted positions still unresolved
    else:
        rank = np.empty(n, np.intp)  # sorted position of each agent
        rank[b.order] = np.arange(n, dtype=np.intp)
        todo = np.unique(rank[query])  # ascending sorted positions, each once
    k = 1
    while todo.size:
        allx, ally = 2 * k + 1 >= grid.nx, 2 * k + 1 >= grid.ny
        # the block covers a disc of radius k * cell side around each agent
        cover = k * min(np.inf if allx else grid.hx, np.inf if ally else grid.hy)
        cover = cover * (1.0 - 1e-9) - _ABS * max(W, H)
        s, ln = _ring_slices(b, grid, todo, k)
        cum = np.cumsum(ln.sum(axis=1))
        cuts = np.searchsorted(cum, np.arange(_CHUNK, int(cum[-1]), _CHUNK), side="right")
        done_pos = []
        for lo, hi in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [todo.size]))):
            if hi <= lo:
                continue
            pf, jf, rf = _nearest_chunk(b, xr, box, todo[lo:hi], s[lo:hi], ln[lo:hi])
            ok = np.flatnonzero(rf < cover) if not (allx and ally) else np.arange(pf.size)
            ids = b.order[pf[ok]]
            jout[ids] = jf[ok]
            rout[ids] = rf[ok]
            done_pos.append(pf[ok])
        if allx and ally:
            break  # the whole box was searched: the rest are alone
        resolved = np.zeros(n, bool)
        for dp in done_pos:
            resolved[dp] = True
        todo = todo[~resolved[todo]]
        k *= 2
    if query is not None:
        return jout[query], rout[query]
    return jout, rout
