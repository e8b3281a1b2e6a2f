"""numba kernels of the exact solver: gap bitsets, move generation, transposition table, search.

A position with gcd 1 is stored as its **gap bitset**: bit n of word n // 64 is set iff n is a legal
move (a gap of the semigroup, Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1).  Two positions are equal iff their gap sets
are, so the bitset is canonical.  Naming x removes every gap n with n - x in the new semigroup; in
gap terms ``G'[n] = G[n] & G'[n - x]`` for n >= x (with G'[0] = 0), computed word by word on the
complement (members): ``M' = M | (M' << x)``, closing each word under +x by doubling shifts when
x < 64.

The search is an iterative depth-first negamax over booleans with an explicit stack (one frame per
depth: the position's words, its hash, its remaining moves), resumable: it runs for a budget of
expanded positions and returns, so the caller can check the clock, show progress, grow the table,
or stop on Ctrl-C without losing the work done.

Transposition tables: every position has two independent 64-bit hashes of its gap set, the
**hash** (``gap_hash``) and the **key** (``key_hash``: another mixer, other constants).  P-positions
and N-positions live in separate tables of 8-byte keys, in buckets of ``SLOTS`` = 8 (one cache line,
compared in one vector operation) that never spill: a full bucket overwrites one key (graceful
degradation: a lost result is recomputed, never wrong).  A table is 2**``base`` blocks of m buckets
(bucket r of block b at index r * 2**base + b): the block comes from ``base`` bits of the hash, the
bucket within it from the key's top 32 bits scaled to m (``bucket``), so a table grows in place to
any larger m from its stored keys alone (``bt_grow``).  A stored key answers a lookup only when
the bucket and the whole 63-bit key agree: two independent hashes agreeing on at least 63 + 9 bits,
at most 8 / 2**72 per lookup whatever the table's size (the previous design compared 47 bits of a
single hash in the N table; at 10**8 stored states that is a false N about once per 10**6 lookups,
which made {16,26,82,88,701} come out N: see docs/solve.md, "Correctness at scale").  When 16 is
in the semigroup, both are computed from the position's Kunz vector instead (``state_keys``); for
t < 240 the key is then a bijection of the position itself, and no false match is possible.
P-positions are about one state in ten, so their table stays small, and most expansions are decided
by it alone; in front of it a one-word Bloom filter (the P filter, two bits per P-position, an
eighth of the P table's bytes, up to a quarter while that grows by 1/8) stays in the L2 cache and answers most lookups (the misses) without touching
the table.

Expanding a position (counted in ``stats``):

* the {2,3} rule: if exactly one of 2 and 3 is legal, naming it leaves {2,3}: the position is N at
  once; if both are, naming either lets the opponent name the other, so neither is generated;
* pass 1 computes the children, largest move first, ``CHUNK`` at a time with their P-filter words
  prefetched, and stops at the first child that is {2,3} (``TERMINAL``) or stored as P
  (``TT_HIT``): the position is N.  A child of at most ``EG_GENUS`` gaps is decided by the endgame
  table instead (``EG_HIT``), through the thread's endgame cache (``eg_cached``), which decides it
  when it is generated;
* pass 2 (no child known P) drops the children stored as N and, with pruning on, the children that
  are enders with t > 1 (``ENDER``): N by strategy stealing (sec. 1).  An ender is a position where
  every gap n with t/2 < n < t has t - n in S (the weak antisymmetry principle of sec. 3
  characterises enders exactly).  It also drops, and stores as N, the children refuted without
  being expanded (``_refuted``): by the {2,3} rule (``TERMINAL``), or by a hint (``KILLER``: the
  paired reply, see below; the reply that last won against the same move, or after the same last
  two moves, or at the same depth, see ``_learn``) whose result is stored P.  This saves a third
  to a half of the expansions (children whose pass 1 would have found that P-position);
* the remaining children are searched fewest gaps first (``ORDER_*``); the first that turns out P
  makes the position N, and if none does it is P.  When a child's turn comes, a paired reply
  found since by its elder siblings' searches is tried against it (``_next_child``, ``LATE``);
* **paired replies** (``_pair_reply``, ``PAIRED``): once the child X + y is N by the reply z
  (X + y + z is P, however it was found), the sibling X + z is N by the reply y, since X + z + y
  is the same position: y is tried first against it.  {16,20,28,74,273}: 8 % fewer expansions;
* a position's children and grandchildren are computed on its own width (``_width``: its words up
  to the highest nonzero one), not the root's: a search from t = 273 (5 words) spends most of its
  time on positions with t < 128, which then take the 2-word path in registers.
"""

from __future__ import annotations

import numpy as np

from sylver import jit
from sylver.jit import intrinsic


def njit(**options):
    """:func:`sylver.jit.njit` for these kernels: never run as Python (they call LLVM intrinsics)."""
    return jit.njit(interpret=False, **options)


BITS = "uint64[::1]"
"""Gap bitsets, tables and filters, as the kernels compiled ahead of time (``aot=``) take them."""
INTS = "int64[::1]"

U0 = np.uint64(0)
U1 = np.uint64(1)
U63 = np.uint64(63)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
EVEN = np.uint64(0xFFFFFFFFFFFFFFFE)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GOLD = np.uint64(0x9E3779B97F4A7C15)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S33 = np.uint64(33)
K1 = np.uint64(0xFF51AFD7ED558CCD)
K2 = np.uint64(0xC4CEB9FE1A85EC53)
KGOLD = np.uint64(0xD6E8FEB86659FD93)

C2MASK = (1 << 16) - 1
"""Size - 1 of the two-move counter table."""
C2MUL = 40503
"""Multiplier of the earlier move in the two-move counter table's index (``_pair``: a prime near
2**16 phi, so that pairs of moves below 2**14 spread over the table)."""

# status codes returned by ``search``
DONE = 0
BUDGET = 1
GROW_TABLE = 2
GROW_STACK = 3

# layout of the int64 ``st`` array (search state, settings and statistics)
SP = 0  # current depth
RES = 1  # -1: frame SP must be expanded; 0/1: frame SP finished with outcome P/N
FINAL = 2  # outcome of the root once DONE
COUNT = 3  # keys in the N table
LIMIT = 4  # N keys allowed before asking for a bigger N table (0: never ask)
EXPANDED = 5  # positions expanded (searched): the "states" figure
ENDER = 6  # children proved N as enders (not searched)
TERMINAL = 7  # children {2,3} found (move wins at once)
TT_HIT = 8  # children whose outcome came from a table
OVERWRITE = 9  # stores that overwrote another key (full bucket)
MAXDEPTH = 10  # deepest frame reached
ORDER = 11  # move-ordering mode (``ORDER_*``)
PRUNE = 12  # 1: use the ender theorem
CHILDREN = 13  # children generated
KILLER = 14  # children refuted by a hint move stored P, not expanded (``_refuted``)
PCOUNT = 15  # keys in the P table
PLIMIT = 16  # P keys allowed before asking for a bigger P table (0: never ask)
PREFETCH = 17  # 1: prefetch the N-table lines of pass 2
FSHIFT = 18  # 64 - log2(words of the P filter); 0: no filter (probe the P table directly)
EG_GENUS = 19  # positions with at most this many gaps are decided by the endgame table (-1: none)
EG_FSHIFT = 20  # 64 - log2(words of the endgame table's filter)
EG_HIT = 21  # children whose outcome came from the endgame table
PAIRED = 22  # children refuted by the paired reply (``_pair_reply``), included in KILLER
LATE = 23  # children refuted when their turn to be searched came, not before (included in KILLER)
ST_SIZE = 24

ORDER_GENUS = 0  # fewest gaps first
ORDER_ASC = 1  # smallest move first
ORDER_DESC = 2  # largest move first
ORDER_GENUS_DESC = 3  # most gaps first


@intrinsic
def _popcount(typingctx, x):  # pragma: no cover - compiled
    from numba import types

    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _ctz(typingctx, x):  # pragma: no cover - compiled
    from numba import types

    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _clz(typingctx, x):  # pragma: no cover - compiled
    from numba import types

    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _bitreverse(typingctx, x):  # pragma: no cover - compiled
    """The word with its 64 bits in reverse order (llvm.bitreverse)."""
    from numba import types

    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bitreverse(args[0])

    return sig, codegen


@intrinsic
def _prefetch(typingctx, arr, i):  # pragma: no cover - compiled
    """Hint the CPU to load ``arr[i]`` into cache (llvm.prefetch; a no-op for correctness)."""
    from numba import types

    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        from llvmlite import ir
        from numba.core import cgutils

        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _line_mask(width, lanes):
    """An intrinsic ``f(arr, i, v) -> uint64``: the mask of the slots of ``arr[i:i+lanes]``
    (``width``-bit integers, one cache line) equal to v (bit k for slot i + k).  One vector load and
    compare (no loop, no data-dependent branch)."""

    @intrinsic
    def line_mask(typingctx, arr, i, v):  # pragma: no cover - compiled
        from numba import types

        sig = types.uint64(arr, i, v)

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            from numba.core import cgutils

            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            ity = ir.IntType(width)
            vty = ir.VectorType(ity, lanes)
            line = builder.load(builder.bitcast(ptr, vty.as_pointer()), align=width // 8)
            undef = ir.Constant(vty, ir.Undefined)
            one = builder.insert_element(undef, args[2], ir.Constant(ir.IntType(32), 0))
            splat = builder.shuffle_vector(one, undef, ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes))
            mask = builder.bitcast(builder.icmp_unsigned("==", line, splat), ir.IntType(lanes))
            return builder.zext(mask, ir.IntType(64))

        return sig, codegen

    return line_mask


_line_mask32 = _line_mask(32, 16)
_line_mask64 = _line_mask(64, 8)


@njit(cache=True, forceinline=True, _nrt=False)
def _line_has32(arr, i, v):  # pragma: no cover - compiled
    return _line_mask32(arr, i, v) != U0


@njit(cache=True, forceinline=True, _nrt=False)
def _line_has64(arr, i, v):  # pragma: no cover - compiled
    return _line_mask64(arr, i, v) != U0


@njit(cache=True, forceinline=True, _nrt=False)
def _mix(z):  # pragma: no cover - compiled
    """splitmix64's finaliser: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit(cache=True, forceinline=True, _nrt=False)
def gap_hash(bits, off, W):  # pragma: no cover - compiled
    """64-bit hash of the gap set in ``bits[off:off+W]`` (zero words ignored, so W does not matter).

    Never returns a value below 2 (0 is the empty slot, bit 0 carries the outcome)."""
    h = U0
    for i in range(W):
        w = bits[off + i]
        if w != U0:
            h ^= _mix(w + GOLD * np.uint64(i + 1))
    h &= EVEN
    if h == U0:
        h = np.uint64(2)
    return h


@njit(cache=True, forceinline=True, _nrt=False)
def _close(m, x):  # pragma: no cover - compiled
    """The word of members m closed under +x (0 < x < 64) by doubling shifts: m | m << x | m << 2x ..."""
    m |= m << np.uint64(x)
    if x < 32:
        m |= m << np.uint64(2 * x)
        if x < 16:
            m |= m << np.uint64(4 * x)
            if x < 8:
                m |= m << np.uint64(8 * x)
                if x < 4:
                    m |= m << np.uint64(16 * x)
    return m


@njit(cache=True, forceinline=True, _nrt=False)
def child2(b0, b1, x):  # pragma: no cover - compiled
    """``play_into`` for a 2-word gap set (t < 128) held in registers: the words of the gap set
    (b0, b1) after naming gap x (no stores and reloads, no loop)."""
    if x >= 64:
        # word 0 is unchanged; n in word 1 stays a gap iff n - x (in word 0) is a gap
        return b0, ~((~b1) | ((~b0) << np.uint64(x - 64)))
    m = _close(~b0, x)
    return ~m, ~_close((~b1) | (m >> np.uint64(64 - x)), x)


@njit(cache=True, forceinline=True, _nrt=False)
def hash2(c0, c1):  # pragma: no cover - compiled
    """``gap_hash`` of the 2-word gap set (c0, c1) (the same value)."""
    return hash2_word0(word0_hash(c0), c1)


@njit(cache=True, forceinline=True, _nrt=False)
def word0_hash(c0):  # pragma: no cover - compiled
    """The term of word 0 in ``gap_hash`` (a move x >= 64 leaves word 0 and so this term unchanged)."""
    return _mix(c0 + GOLD) if c0 != U0 else U0


@njit(cache=True, forceinline=True, _nrt=False)
def hash2_word0(h, c1):  # pragma: no cover - compiled
    """``gap_hash`` of the 2-word gap set (c0, c1) from ``h = word0_hash(c0)``."""
    if c1 != U0:
        h ^= _mix(c1 + GOLD * np.uint64(2))
    h &= EVEN
    if h == U0:
        h = np.uint64(2)
    return h


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64, int64, int64)")
def play_into(bits, src, dst, W, x):  # pragma: no cover - compiled
    """Write into ``bits[dst:dst+W]`` the gap set of the position at ``src`` after naming gap x.

    The gap set at ``src`` must not contain 0 (no gap set does)."""
    if W == 2:
        c0, c1 = child2(bits[src], bits[src + 1], x)
        bits[dst] = c0
        bits[dst + 1] = c1
    elif W == 3:  # t < 512: each width with constant loop bounds (as ``state_keys``)
        _play_into(bits, src, dst, 3, x)
    elif W == 4:
        _play_into(bits, src, dst, 4, x)
    elif W == 5:
        _play_into(bits, src, dst, 5, x)
    elif W == 6:
        _play_into(bits, src, dst, 6, x)
    elif W == 7:
        _play_into(bits, src, dst, 7, x)
    elif W == 8:
        _play_into(bits, src, dst, 8, x)
    else:
        _play_into(bits, src, dst, W, x)


@njit(cache=True, forceinline=True, _nrt=False)
def _play_into(bits, src, dst, W, x):  # pragma: no cover - compiled
    """``play_into`` of W > 2 words."""
    q = x >> 6
    r = x & 63
    for i in range(q):
        bits[dst + i] = bits[src + i]
    if r == 0:
        for i in range(q, W):
            m = (~bits[src + i]) | (~bits[dst + i - q])
            bits[dst + i] = ~m
    elif q == 0:
        # x < 64: close every word under +x by doubling shifts, carrying from the previous word
        carry_shift = np.uint64(64 - x)
        prev = ALL  # members of the previous new word; word -1 does not exist
        for i in range(W):
            m = ~bits[src + i]
            if i > 0:
                m |= prev >> carry_shift
            m = _close(m, x)
            prev = m
            bits[dst + i] = ~m
    else:
        ur = np.uint64(r)
        ul = np.uint64(64 - r)
        for i in range(q, W):
            m = (~bits[src + i]) | ((~bits[dst + i - q]) << ur)
            if i - q - 1 >= 0:
                m |= (~bits[dst + i - q - 1]) >> ul
            bits[dst + i] = ~m
    # bit 0 of a gap set is never set (0 is in every semigroup), so bit 0 of M is set and the
    # shifts above make bit x a member: no fix-up store is needed (a one-byte store read back as a
    # word stalls store-to-load forwarding)


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64)")
def top_bit(bits, off, W):  # pragma: no cover - compiled
    """t: the largest gap (-1 when there is none)."""
    for i in range(W - 1, -1, -1):
        w = bits[off + i]
        if w != U0:
            return 64 * i + 63 - np.int64(_clz(w))
    return -1


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64)")
def genus_of(bits, off, W):  # pragma: no cover - compiled
    g = 0
    for i in range(W):
        g += np.int64(_popcount(bits[off + i]))
    return g


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64, int64)")
def is_ender(bits, off, W, t):  # pragma: no cover - compiled
    """True iff every gap n with t/2 < n < t has t - n in S (weak antisymmetry = ender, sec. 3),
    i.e. no two gaps m < n have m + n = t.  On words, without a loop over the gaps: the gap set
    reflected about t (bit i set iff t - i is a gap: the words of 0..t reversed, ``_bitreverse``,
    shifted) and-ed with the gap set has bit i set iff i and t - i are both gaps, so the position
    is an ender iff no bit but t/2 is set."""
    q = t >> 6
    s = np.uint64(63 - (t & 63))  # the reversed words of 0..t hold t - i at bit i + s
    half = t >> 1 if t & 1 == 0 else -1
    for j in range(q + 1):
        r = _bitreverse(bits[off + q - j]) >> s
        if j < q and s != U0:
            r |= _bitreverse(bits[off + q - j - 1]) << (np.uint64(64) - s)
        h = bits[off + j] & r
        if (half >> 6) == j:
            h &= ~(U1 << np.uint64(half & 63))
        if h != U0:
            return False
    return True


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64)")
def is_terminal(bits, off, W):  # pragma: no cover - compiled
    """True iff the only gap is 1 (the position {2,3})."""
    if bits[off] != np.uint64(2):
        return False
    for i in range(1, W):
        if bits[off + i] != U0:
            return False
    return True


@njit(cache=True, forceinline=True, _nrt=False)
def _mix_key(z):  # pragma: no cover - compiled
    """murmur3's finaliser (fmix64): a second bijection of uint64, with constants unrelated to
    ``_mix``'s, for the key hash."""
    z = (z ^ (z >> S33)) * K1
    z = (z ^ (z >> S33)) * K2
    return z ^ (z >> S33)


@njit(cache=True, forceinline=True, _nrt=False)
def key_hash(bits, off, W):  # pragma: no cover - compiled
    """The **key**: a second 64-bit hash of the gap set in ``bits[off:off+W]``, independent of
    ``gap_hash`` (other mixer, other constants); odd, so never 0 (the empty slot).  Tables store
    keys; ``gap_hash`` picks their bucket (see ``bucket``)."""
    k = U0
    for i in range(W):
        w = bits[off + i]
        if w != U0:
            k ^= _mix_key(w + KGOLD * np.uint64(i + 1))
    return k | U1


@njit(cache=True, forceinline=True, _nrt=False)
def word0_key(c0):  # pragma: no cover - compiled
    """The term of word 0 in ``key_hash`` (unchanged by a move x >= 64, like ``word0_hash``)."""
    return _mix_key(c0 + KGOLD) if c0 != U0 else U0


@njit(cache=True, forceinline=True, _nrt=False)
def key2_word0(k, c1):  # pragma: no cover - compiled
    """``key_hash`` of the 2-word gap set (c0, c1) from ``k = word0_key(c0)``."""
    if c1 != U0:
        k ^= _mix_key(c1 + KGOLD * np.uint64(2))
    return k | U1


TOP = np.uint64(0xFFFF000000000000)
LO32 = np.uint64(0xFFFFFFFF)
S16 = np.uint64(16)
S32 = np.uint64(32)
S48 = np.uint64(48)
G257 = np.uint64((0x9E3779B97F4A7C15 * 257) & 0xFFFFFFFFFFFFFFFF)
G258 = np.uint64((0x9E3779B97F4A7C15 * 258) & 0xFFFFFFFFFFFFFFFF)
K257 = np.uint64((0xD6E8FEB86659FD93 * 257) & 0xFFFFFFFFFFFFFFFF)
K258 = np.uint64((0xD6E8FEB86659FD93 * 258) & 0xFFFFFFFFFFFFFFFF)


@njit(cache=True, forceinline=True, _nrt=False)
def kunz_low(x, y1):  # pragma: no cover - compiled
    """Word 0 of the **Kunz form** (``state_keys``) from x, the XOR of all words of the gap set, and
    y1, the XOR of its odd words: bits 0-31 give planes 0 and 1 (the XOR of the even rows and that
    of the odd rows), bits 32-47 plane 2 (rows 3, 7, 11, ...), bits 48-63 plane 3 (rows 7, 15, ...)."""
    return ((x ^ (x >> S32)) & LO32) | ((x & TOP) >> S16) | (y1 & TOP)


@njit(cache=True, forceinline=True, _nrt=False)
def exact_key(e):  # pragma: no cover - compiled
    """Key (and hash) of a position whose Kunz form is the one word ``e``: a bijection of it (so two
    positions with the same key are equal), never 0 (bit 0 of ``e`` is always 0)."""
    return _mix(e ^ U1)


@njit(cache=True, forceinline=True, _nrt=False)
def keys2(c0, c1):  # pragma: no cover - compiled
    """``state_keys`` of the 2-word gap set (c0, c1) held in registers."""
    if (c0 >> S16) & U1 == U0:
        k = exact_key(kunz_low(c0 ^ c1, c1))
        return k, k
    return hash2(c0, c1), key2_word0(word0_key(c0), c1)


@njit(cache=True, forceinline=True, _nrt=False, aot=f"({BITS}, int64, int64)")
def state_keys(bits, off, W):  # pragma: no cover - compiled
    """(hash, key) of the position with gap set ``bits[off:off+W]``: the hash picks its table bucket,
    the key is stored (``bucket``).  Both depend on the position only, not on W.

    When 16 is in the semigroup (not a gap) and t < 4080, the gap set is read as rows of 16 bits
    (row j: the gaps 16j .. 16j + 15); since n - 16 is a gap whenever n >= 16 is, each column r (the
    gaps = r mod 16) is a prefix r, r + 16, ..., r + 16(k_r - 1) of the rows, and the position is its
    Kunz vector (k_1, ..., k_15) (Apery set w.r.t. 16: r + 16 k_r).  Bit b of every k_r at once is
    plane b, the XOR of the rows j = 2^b - 1 mod 2^b (bit b of k = XOR over i >= 1 of [k >= i 2^b]).
    Planes 0-3 fill word 0 of the Kunz form (``kunz_low``), planes 4-7 word 1.  For t < 240 (k_r <= 15,
    every position of a search from a root with t < 240) word 1 is 0 and the key is a bijection of
    word 0 (``exact_key``): equal keys mean equal positions, no collision is possible.  Otherwise the
    hash and key are two independent hashes of the two words (other constants than ``gap_hash`` and
    ``key_hash``, which hash the gap set itself when 16 is a gap or t >= 4080)."""
    if W == 2:
        return keys2(bits[off], bits[off + 1])
    # t < 512: each width with constant loop bounds (unrolled): 4 to 8 times faster than the loop
    # with a variable bound (55-90 ns for 6 words), and the branch is the same at every call of a search
    if W == 3:
        return _state_keys(bits, off, 3)
    if W == 4:
        return _state_keys(bits, off, 4)
    if W == 5:
        return _state_keys(bits, off, 5)
    if W == 6:
        return _state_keys(bits, off, 6)
    if W == 7:
        return _state_keys(bits, off, 7)
    if W == 8:
        return _state_keys(bits, off, 8)
    return _state_keys(bits, off, W)


@njit(cache=True, forceinline=True, _nrt=False)
def _state_keys(bits, off, W):  # pragma: no cover - compiled
    """``state_keys`` of W > 2 words."""
    if (bits[off] >> S16) & U1 == U0:
        x = U0
        y1 = U0
        y3 = U0
        y7 = U0
        y15 = U0
        y31 = U0
        hi = U0
        for i in range(W):
            w = bits[off + i]
            x ^= w
            if i & 1:
                y1 ^= w
            if i & 3 == 3:
                y3 ^= w
            if i & 7 == 7:
                y7 ^= w
            if i & 15 == 15:
                y15 ^= w
            if i & 31 == 31:
                y31 ^= w
            if i >= 63:
                hi |= w if i > 63 else w >> S48
        if hi == U0:
            c0 = kunz_low(x, y1)
            c1 = (y3 >> S48) | ((y7 & TOP) >> S32) | ((y15 & TOP) >> S16) | (y31 & TOP)
            if c1 == U0:
                k = exact_key(c0)
                return k, k
            h = (_mix(c0 + G257) ^ _mix(c1 + G258)) & EVEN
            if h == U0:
                h = np.uint64(2)
            return h, (_mix_key(c0 + K257) ^ _mix_key(c1 + K258)) | U1
    return gap_hash(bits, off, W), key_hash(bits, off, W)


SLOTS = 8
"""Slots per bucket of both tables: 8 keys of 8 bytes, one 64-byte cache line, compared in one
vector operation.  Buckets never spill: a full bucket overwrites one of its keys."""
P_BASE = 9
"""log2 of the buckets of the P table whose index comes from ``gap_hash`` (its least size,
``MIN_TABLE``, has this many buckets)."""
N_BASE = 15
"""The same for the N table (its least growable size, ``START_NTABLE``, has 2**15 buckets)."""
RSHIFT = np.uint64(32)
"""A bucket's place within its block comes from the key's bits from this one up (``bucket``)."""


@njit(cache=True, forceinline=True, _nrt=False)
def bt_geometry(table, base):  # pragma: no cover - compiled
    """(bmask, m, base) of a bucket table: 2**base blocks of m buckets (``bucket``) when it has at
    least 2**base buckets (a multiple of it); else (buckets - 1, 1, 0): blocks of one bucket (a power
    of two of them)."""
    nb = table.shape[0] >> 3
    if nb < (1 << base):
        return nb - 1, 1, 0
    return (1 << base) - 1, nb >> base, base


@njit(cache=True, forceinline=True, _nrt=False)
def bucket(h, key, g):  # pragma: no cover - compiled
    """First slot of the bucket of the position with hash h and key ``key`` in a table of geometry
    g = (bmask, m, base) (``bt_geometry``): block ``(h >> 6) & bmask`` (``base`` bits of the hash),
    and in it bucket r = ``(key >> 32) * m >> 32`` (the key's top 32 bits scaled to m, which is
    monotone in m: a table grows in place, ``bt_grow``), at index ``r << base | block`` (the blocks
    interleaved: one multiplication per index, not two).

    A stored key matches a probe only when both have the same bucket (so the same ``base`` bits of h)
    and the same 63-bit key: a false match needs two independent hashes to agree on 63 + ``base``
    bits (at most 8 / 2**(63 + base) per lookup, whatever the table's size)."""
    r = np.int64(((key >> RSHIFT) * np.uint64(g[1])) >> RSHIFT)
    return ((r << g[2]) | (np.int64(h >> np.uint64(6)) & g[0])) << 3


@njit(cache=True, forceinline=True, _nrt=False)
def bt_store(table, i, key, st, slot):  # pragma: no cover - compiled
    """Store ``key`` in the bucket at slot i (``bucket``): counted in ``st[slot]``; in a full
    bucket one key (chosen by the key) is overwritten, counted in ``st[OVERWRITE]`` (a lost
    result is recomputed, never wrong)."""
    if _line_mask64(table, i, key) != U0:
        return
    empty = _line_mask64(table, i, U0)
    if empty != U0:
        table[i + np.int64(_ctz(empty))] = key
        st[slot] += 1
        return
    table[i + np.int64((key >> np.uint64(1)) & np.uint64(SLOTS - 1))] = key
    st[OVERWRITE] += 1


@njit(cache=True, _nrt=False, aot=f"({BITS}, int64, int64, uint8[::1])")
def bt_grow(table, old, base, fill):  # pragma: no cover - compiled
    """Grow a bucket table in place: its keys are laid out for its first ``old`` buckets (at least
    2**base, a multiple of it), the rest of ``table`` is zero; afterwards they are laid out for all
    of its buckets.  A key's index only moves up as m grows (``bucket``), so the old buckets are
    re-laid from the last down, each one's keys going to buckets at or above it that hold only
    re-laid keys.  ``fill`` (zeros, a byte per new bucket) counts the keys re-laid into each, so
    that no line is read back right after a store to it (a stalled store-to-load forwarding; this
    takes a third less time than finding the empty slot in the line).  Returns the number of keys
    kept (a key whose new bucket is full is dropped: rare, and a lost result is recomputed)."""
    um = np.uint64((table.shape[0] >> 3) >> base)
    bmask = (1 << base) - 1
    n = 0
    for b in range(old - 1, -1, -1):
        i = b << 3
        used = _line_mask64(table, i, U0) ^ np.uint64((1 << SLOTS) - 1)
        while used != U0:
            s = np.int64(_ctz(used))
            used &= used - U1
            e = table[i + s]
            table[i + s] = U0
            d = (np.int64(((e >> RSHIFT) * um) >> RSHIFT) << base) | (b & bmask)
            c = np.int64(fill[d])
            if c < SLOTS:
                # d == this bucket: c <= s, a slot already re-laid
                table[(d << 3) + c] = e
                fill[d] = c + 1
                n += 1
    return n


@njit(cache=True, forceinline=True, _nrt=False)
def pf_bits(key):  # pragma: no cover - compiled
    """The two bits of the P filter word that a key sets (bits independent of its word index)."""
    return (U1 << ((key >> np.uint64(7)) & U63)) | (U1 << ((key >> np.uint64(13)) & U63))


@njit(cache=True, forceinline=True, _nrt=False)
def pf_maybe(pfilt, fshift, key):  # pragma: no cover - compiled
    """False when the key is certainly not in the P table (both of its filter bits are not set)."""
    if fshift == 0:
        return True
    b = pf_bits(key)
    return (pfilt[np.int64(key >> np.uint64(fshift))] & b) == b


@njit(cache=True, _nrt=False, aot=f"({BITS}, {BITS}, int64)")
def pf_build(ptab, pfilt, fshift):  # pragma: no cover - compiled
    """Fill the P filter ``pfilt`` (cleared first) from every key of ``ptab``."""
    for k in range(pfilt.shape[0]):
        pfilt[k] = U0
    sh = np.uint64(fshift)
    for k in range(ptab.shape[0]):
        e = ptab[k]
        if e != U0:
            pfilt[np.int64(e >> sh)] |= pf_bits(e)


@njit(cache=True, forceinline=True, _nrt=False)
def p_has(ptab, pfilt, fshift, h, key, pg):  # pragma: no cover - compiled
    """True when the position (hash h, key) is stored in the P table (``pg``: its geometry)."""
    return pf_maybe(pfilt, fshift, key) and _line_has64(ptab, bucket(h, key, pg), key)


@njit(cache=True, forceinline=True, _nrt=False)
def n_has(ntab, h, key, ng):  # pragma: no cover - compiled
    """True when the position (hash h, key) is stored in the N table (``ng``: its geometry)."""
    return _line_has64(ntab, bucket(h, key, ng), key)


@njit(cache=True, forceinline=True, _nrt=False)
def eg_hash(c0):  # pragma: no cover - compiled
    """The hash of a position of the endgame table, given by its gap word ``c0`` (t < 64)."""
    return _mix_key(c0)


@njit(cache=True, forceinline=True, _nrt=False)
def eg_small(c0, egg):  # pragma: no cover - compiled
    """Whether the position with the one-word gap set ``c0`` is in the endgame table: at most
    ``egg`` gaps (its genus; then t <= 2 egg - 1 < 64, so one word holds it)."""
    return np.int64(_popcount(c0)) <= egg


@njit(cache=True, forceinline=True, _nrt=False)
def eg_upper_zero(bits, off, W):  # pragma: no cover - compiled
    """Whether the gap set at ``bits[off:off+W]`` lies in its word 0 (t < 64)."""
    for i in range(1, W):
        if bits[off + i] != U0:
            return False
    return True


@njit(cache=True, forceinline=True, _nrt=False)
def eg_has(egtab, egfilt, efshift, c0, hk):  # pragma: no cover - compiled
    """Whether the position with gap word ``c0`` (hash ``hk = eg_hash(c0)``) is a P-position of the
    endgame table: its bucket is the top bits of hk (``hk >> efshift``); the filter word of that
    bucket (one per bucket: two bits per P-position whose bucket it is), then the buckets of 8 gap
    words from there, by linear probing (a bucket with an empty slot ends the probe; the table is at
    most 3/4 full)."""
    i = np.int64(hk >> np.uint64(efshift))
    b = pf_bits(hk)
    if (egfilt[i] & b) != b:
        return False
    mask = (egtab.shape[0] >> 3) - 1
    while True:
        if _line_has64(egtab, i << 3, c0):
            return True
        if _line_has64(egtab, i << 3, U0):
            return False
        i = (i + 1) & mask


EGC_BITS = 14
"""log2 of the slots of a search thread's endgame cache (``eg_cached``): 16384 words, 128 KiB."""
EGC_MASK = np.uint64((1 << EGC_BITS) - 1)


@njit(cache=True, forceinline=True, _nrt=False)
def eg_cached(egc, c0, hk):  # pragma: no cover - compiled
    """The outcome of the endgame-table position with gap word ``c0`` (hash ``hk = eg_hash(c0)``)
    when the **endgame cache** ``egc`` holds it: 1 P, 0 N, -1 not there.  The cache is a small
    direct-mapped table (a slot per low bits of hk) of gap words with the outcome in bit 0 (free:
    0 is never a gap), in front of the endgame table: the same few thousand small positions are met
    again and again (about 3 lookups in 4 hit it), and it stays in the L2 cache where the endgame
    table's 4 MiB filter and 32 MiB of buckets do not.  A slot answers only for its own gap word, so
    it is never wrong; the caller clears it when the endgame table changes."""
    e = egc[np.int64(hk & EGC_MASK)]
    if (e & EVEN) != c0:
        return -1
    return np.int64(e & U1)


@njit(cache=True, forceinline=True, _nrt=False)
def eg_has_cached(eg, c0, hk):  # pragma: no cover - compiled
    """``eg_has`` through the endgame cache (``eg_cached``) of ``eg`` = (egtab, egfilt, efshift,
    egg, egc): a position not there is looked up in the table and its outcome cached."""
    egtab, egfilt, efshift, egg, egc = eg
    i = np.int64(hk & EGC_MASK)
    e = egc[i]
    if (e & EVEN) == c0:
        return (e & U1) != U0
    p = eg_has(egtab, egfilt, efshift, c0, hk)
    egc[i] = c0 | U1 if p else c0
    return p


@njit(cache=True, aot=f"({BITS}, {BITS}, int64, {BITS})")
def eg_lookup(egtab, egfilt, efshift, gaps):  # pragma: no cover - compiled
    """1 when the position with gap set ``gaps`` (t < 64: one word, or more words all 0 but the
    first) is a P-position of the endgame table, else 0 (the caller checks that it is in the table)."""
    c0 = gaps[0]
    return 1 if eg_has(egtab, egfilt, efshift, c0, eg_hash(c0)) else 0


@njit(cache=True, aot=f"({BITS}, {BITS}, int64, {BITS})")
def eg_fill(egtab, egfilt, efshift, words):  # pragma: no cover - compiled
    """Insert the gap words ``words`` (P-positions, nonzero, distinct) into the endgame table
    ``egtab`` and its filter ``egfilt`` (``eg_has``; the table may hold words already, as while it
    is built genus by genus).  Words sorted by bucket (``eg_bucket_order``, as a saved table is)
    fill both in one sequential sweep without reading a line back (a line read right after an
    8-byte store into it stalls store-to-load forwarding: 14 ns a word instead of 4): the slots from
    the first of the bucket where the sweep last jumped up to ``nxt`` are the sweep's own, so a word
    whose bucket starts at or below ``nxt`` goes to ``nxt`` and one whose bucket starts above to that
    start, when that slot is free: where the probe would put it.  From the first word out of order,
    or whose slot is taken or past the table's end, the words are probed."""
    mask = (egtab.shape[0] >> 3) - 1
    nxt = np.int64(0)
    home = np.int64(-1)
    for j in range(words.shape[0]):
        c0 = words[j]
        hk = eg_hash(c0)
        i = np.int64(hk >> np.uint64(efshift))
        egfilt[i] |= pf_bits(hk)
        q = max(nxt, i << 3)
        if i >= home >= -1 and q < egtab.shape[0] and egtab[q] == U0:
            egtab[q] = c0
            nxt = q + 1
            home = i
            continue
        home = np.int64(-2)  # out of order: probe from now on
        while True:
            empty = _line_mask64(egtab, i << 3, U0)
            if empty != U0:
                egtab[(i << 3) + np.int64(_ctz(empty))] = c0
                break
            i = (i + 1) & mask


@njit(cache=True)
def eg_tree_children(level, out):  # pragma: no cover - compiled
    """The endgame table's build (:mod:`sylver.solver.endgame`): the semigroups of the next genus: for each gap word g of ``level`` (genus n), g with one
    minimal generator x > t(g) made a gap, x <= 63.  Writes them to ``out`` when it is large enough
    (else only counts); returns their number."""
    n = 0
    for j in range(level.shape[0]):
        g = level[j]
        t = 63 - np.int64(_clz(g))
        m = np.int64(_ctz(~g & ~U1))  # the multiplicity: the least member > 0
        # a minimal generator x > t is at most t + m (else x - m > t is a member, and m is one)
        for x in range(t + 1, min(t + m, 63) + 1):
            minimal = True
            for a in range(m, x // 2 + 1):
                if (g >> np.uint64(a)) & U1 == U0 and (g >> np.uint64(x - a)) & U1 == U0:
                    minimal = False
                    break
            if minimal:
                if n < out.shape[0]:
                    out[n] = g | (U1 << np.uint64(x))
                n += 1
    return n


@njit(cache=True)
def eg_decide(level, egtab, egfilt, efshift, out):  # pragma: no cover - compiled
    """Write the P-positions of ``level`` to ``out`` (returns their number): g is P iff no move
    x >= 2 leaves a position that the table (every P-position of smaller genus) holds."""
    n = 0
    for j in range(level.shape[0]):
        g = level[j]
        w = g & ~np.uint64(3)
        p = True
        while w != U0:
            x = 63 - np.int64(_clz(w))
            w &= ~(U1 << np.uint64(x))
            c0, _ = child2(g, U0, x)
            if eg_has(egtab, egfilt, efshift, c0, eg_hash(c0)):
                p = False
                break
        if p:
            out[n] = g
            n += 1
    return n


@njit(cache=True)
def eg_bucket_order(words, efshift):  # pragma: no cover - compiled
    """The bucket of each word (``eg_has``), to sort them for ``eg_fill``."""
    out = np.empty(words.shape[0], dtype=np.int64)
    for j in range(words.shape[0]):
        out[j] = np.int64(eg_hash(words[j]) >> np.uint64(efshift))
    return out


@njit(cache=True, aot="(Array(int64, 1, 'C', readonly=True), int64)")
def gaps_from_apery(ap, W):  # pragma: no cover - compiled
    """The gap bitset (W words) of the semigroup with Apéry set ``ap`` (gcd 1)."""
    out = np.zeros(W, dtype=np.uint64)
    m = ap.shape[0]
    for r in range(m):
        v = r
        while v < ap[r]:
            if v > 0:
                out[v >> 6] |= U1 << np.uint64(v & 63)
            v += m
    return out


@njit(cache=True, aot=f"({BITS}, int64, int64)")
def gap_list(bits, off, W):  # pragma: no cover - compiled
    g = genus_of(bits, off, W)
    out = np.empty(g, dtype=np.int64)
    k = 0
    for i in range(W):
        w = bits[off + i]
        while w != U0:
            out[k] = 64 * i + np.int64(_ctz(w))
            w &= w - U1
            k += 1
    return out


@njit(cache=True, forceinline=True, _nrt=False)
def _sort_moves(moves, keys, a, b):  # pragma: no cover - compiled
    """Insertion sort of moves[a:b] by keys[a:b] (short lists)."""
    for i in range(a + 1, b):
        km = keys[i]
        mv = moves[i]
        j = i - 1
        while j >= a and keys[j] > km:
            keys[j + 1] = keys[j]
            moves[j + 1] = moves[j]
            j -= 1
        keys[j + 1] = km
        moves[j + 1] = mv


@njit(cache=True, forceinline=True, _nrt=False)
def _store2(ptab, ntab, pfilt, fshift, h, key, outcome, st, pg, ng):  # pragma: no cover - compiled
    """Store the outcome (0 = P, 1 = N) of the position with hash h and key ``key``."""
    if outcome == 0:
        bt_store(ptab, bucket(h, key, pg), key, st, PCOUNT)
        if fshift != 0:
            pfilt[np.int64(key >> np.uint64(fshift))] |= pf_bits(key)
    else:
        bt_store(ntab, bucket(h, key, ng), key, st, COUNT)


@njit(cache=True, forceinline=True, _nrt=False)
def _full(st):  # pragma: no cover - compiled
    return (st[LIMIT] > 0 and st[COUNT] >= st[LIMIT]) or (st[PLIMIT] > 0 and st[PCOUNT] >= st[PLIMIT])


@njit(cache=True, forceinline=True, _nrt=False)
def _suspend(st, sp, res, children, status):  # pragma: no cover - compiled
    """Save the search's place in ``st`` (resumed by the next call) and return ``status``."""
    st[SP] = sp
    st[RES] = res
    st[CHILDREN] += children
    return status


@njit(cache=True, forceinline=True, _nrt=False)
def _pair(a, b):  # pragma: no cover - compiled
    """Slot of the two-move counter table for the moves a then b."""
    return (a * C2MUL + b) & C2MASK


@njit(cache=True, forceinline=True, _nrt=False)
def _refuted(bits, coff, W, we, sp, x, last, hints, ptab, pfilt, fshift, pg, scratch, eg, swap, late):  # pragma: no cover - compiled
    """Whether the child at ``bits[coff:coff+we]`` (frame sp + 1 of W words, reached by move x; its
    words from ``we`` on are zero, and so are those of frame sp + 2) is N by a reply
    known without expanding it: 0 no; 2 yes, by the {2,3} rule; a move h >= 4: yes, h is a hint
    whose result is P in the endgame table ``eg`` = (egtab, egfilt, efshift, egg) or stored P.  The
    hints, in order: the paired reply of x in frame sp (``swap``, see ``_pair_reply``), the reply
    that last won against x, the one after the last two moves, the killer of its depth (``_learn``).
    ``late``: only the paired reply (``_next_child``).  For W > 2 the hints' results are computed in frame sp + 2, and
    only when it exists (``scratch``)."""
    low = bits[coff] & np.uint64(12)
    if low == np.uint64(4) or low == np.uint64(8):
        return 2
    if we != 2 and not scratch:
        return 0
    # the paired reply alone first: when it is there its position was found P (it refutes nearly always)
    e = swap[sp * SWAP + (x & (SWAP - 1))]
    hs = e & ((1 << SWAP_SHIFT) - 1) if (e >> SWAP_SHIFT) == x else 0
    if _hint_legal(bits, coff, we, hs):
        small, a, b = _hint_key(bits, coff, W, we, hs, eg, pfilt, fshift)
        if _hint_p(small, a, b, eg, ptab, pfilt, fshift, pg):
            return hs
    if late:
        return 0
    # the other three: all their positions computed and their filter words requested first, so
    # that the cache misses overlap, then looked up in order (a repeated hint is tried once)
    counter, counter2, killer = hints
    h0 = np.int64(counter[x])
    h1 = np.int64(counter2[_pair(last[sp], x)]) if sp > 0 else 0
    h2 = np.int64(killer[sp + 1])
    if h0 == hs or not _hint_legal(bits, coff, we, h0):
        h0 = 0
    if h1 == hs or h1 == h0 or not _hint_legal(bits, coff, we, h1):
        h1 = 0
    if h2 == hs or h2 == h0 or h2 == h1 or not _hint_legal(bits, coff, we, h2):
        h2 = 0
    s0, a0, b0 = _hint_key(bits, coff, W, we, h0, eg, pfilt, fshift) if h0 != 0 else (0, U0, U0)
    s1, a1, b1 = _hint_key(bits, coff, W, we, h1, eg, pfilt, fshift) if h1 != 0 else (0, U0, U0)
    s2, a2, b2 = _hint_key(bits, coff, W, we, h2, eg, pfilt, fshift) if h2 != 0 else (0, U0, U0)
    if h0 != 0 and _hint_p(s0, a0, b0, eg, ptab, pfilt, fshift, pg):
        return h0
    if h1 != 0 and _hint_p(s1, a1, b1, eg, ptab, pfilt, fshift, pg):
        return h1
    if h2 != 0 and _hint_p(s2, a2, b2, eg, ptab, pfilt, fshift, pg):
        return h2
    return 0


@njit(cache=True, forceinline=True, _nrt=False)
def _hint_legal(bits, coff, we, h):  # pragma: no cover - compiled
    """Whether hint h is worth trying at the gap set ``bits[coff:coff+we]``: a legal move, at least 4
    (2 and 3 never win once the {2,3} rule did not; 0 is no hint)."""
    return h >= 4 and (h >> 6) < we and ((bits[coff + (h >> 6)] >> np.uint64(h & 63)) & U1) != U0


@njit(cache=True, forceinline=True, _nrt=False)
def _hint_key(bits, coff, W, we, h, eg, pfilt, fshift):  # pragma: no cover - compiled
    """The position after hint h from the gap set at ``bits[coff:coff+we]`` (of a frame of W words;
    for W > 2 computed in the next frame): (1, its gap word, its endgame hash) when the endgame
    table decides it (2 or 3 when the endgame cache knows it is N or P), else (0, hash, key); the
    filter word to be read is requested (prefetched)."""
    egtab, egfilt, efshift, egg, egc = eg
    if we == 2:
        c0, c1 = child2(bits[coff], bits[coff + 1], h)
        small = c1 == U0 and eg_small(c0, egg)
    else:
        play_into(bits, coff, coff + W, we, h)
        c0 = bits[coff + W]
        small = eg_small(c0, egg) and eg_upper_zero(bits, coff + W, we)
    if small:
        hk = eg_hash(c0)
        known = eg_cached(egc, c0, hk)
        if known >= 0:
            return 2 + known, c0, hk
        _prefetch(egfilt, np.int64(hk >> np.uint64(efshift)))
        return 1, c0, hk
    if we == 2:
        hc, kc = keys2(c0, c1)
    else:
        hc, kc = state_keys(bits, coff + W, we)
    if fshift != 0:
        _prefetch(pfilt, np.int64(kc >> np.uint64(fshift)))
    return 0, hc, kc


@njit(cache=True, forceinline=True, _nrt=False)
def _hint_p(small, a, b, eg, ptab, pfilt, fshift, pg):  # pragma: no cover - compiled
    """Whether the position of ``_hint_key`` = (small, a, b) is P: in the endgame table or stored."""
    if small >= 2:
        return small == 3
    if small:
        return eg_has_cached(eg, a, b)
    return p_has(ptab, pfilt, fshift, a, b, pg)


@njit(cache=True, forceinline=True, _nrt=False)
def _width(bits, off, W):  # pragma: no cover - compiled
    """The words of the gap set at ``bits[off:off+W]`` up to its highest nonzero one, at least 2
    (W when W <= 2): what its children need (their words above are zero too)."""
    we = W
    if W > 2:
        while we > 2 and bits[off + we - 1] == U0:
            we -= 1
    return we


@njit(cache=True, forceinline=True, _nrt=False)
def _pair_reply(swap, sp, y, z):  # pragma: no cover - compiled
    """In frame sp (position X) the child after y is N by the reply z (X + y + z is P): remember y as
    the **paired reply** of z, which refutes the sibling after z too (X + z + y is the same
    position), tried first by ``_refuted``.  A slot per move (its low bits), cleared when the frame
    starts its children (``_search``); a stale or overwritten slot only costs a failed try."""
    if y >= 4 and z >= 4:
        swap[sp * SWAP + (z & (SWAP - 1))] = (z << SWAP_SHIFT) | y


@njit(cache=True, forceinline=True, _nrt=False)
def _learn(hints, last, sp, x):  # pragma: no cover - compiled
    """Move x won in frame ``sp``: remember it as the killer at this depth, the counter-move to the
    move that led here, and the reply after the last two moves."""
    counter, counter2, killer = hints
    killer[sp] = x
    if sp > 0:
        counter[last[sp]] = x
        if sp > 1:
            counter2[_pair(last[sp - 1], last[sp])] = x


SWAP = 128
"""Slots of a frame's table of paired replies (``_pair_reply``), indexed by the move's low bits."""
SWAP_SHIFT = 14
"""A slot holds (z << SWAP_SHIFT) | y: the child after z is refuted by y (moves < 2**14)."""

CHUNK = 4
"""Children generated (and their P-filter words prefetched) before any of them is looked up."""


@njit(cache=True, _nrt=False, nogil=True, aot=f"({BITS}, int64, Tuple(({BITS}, {INTS}, {INTS}, {INTS}, {INTS}, {INTS})), Tuple(({INTS}, {INTS}, {BITS}, {BITS})), "
      f"UniTuple(int16[::1], 3), UniTuple({BITS}, 5), {INTS}, int64)")
def search(bits, W, frames, lists, hints, tables, st, budget):  # pragma: no cover - compiled
    """The search (``_search``), inlined twice: for 2 words (t < 128, the commonest width) with
    constant loop bounds (every bitset loop unrolled), and for any width.  It releases the GIL
    (``nogil``, ahead of time too): ``--jobs`` runs it in several threads over one pair of tables.

    The helpers and ``_search`` are inlined by LLVM (``forceinline``), not by numba
    (``inline="always"``, which types every inlined body again at each call site: 5 minutes of
    compilation instead of 30 seconds, for the same machine code)."""
    if W == 2:
        return _search(bits, 2, frames, lists, hints, tables, st, budget)
    return _search(bits, W, frames, lists, hints, tables, st, budget)


@njit(cache=True, forceinline=True, _nrt=False)
def _next_child(bits, W, we, sp, frames, moves, hints, ptab, ntab, pfilt, fshift, pg, ng, eg, depth_cap, st):  # pragma: no cover - compiled
    """Push the next child of frame sp (of width ``we``, ``_width``) to be searched, from ``idx[sp]``
    on (into frame sp + 1: its gap set, move, hash and key): True, or False when none is left (then
    every child is N).

    A child whose paired reply (``_pair_reply``) the searches of its elder siblings have found since
    pass 2 is first tried against it (``_refuted``, ``late``), and stored N instead of searched
    when it refutes it (``LATE``).  Trying all four hints again, or the killer too, cost more than
    it saved (a hint's P-filter word is a cache miss; {16,26,33,62,89,102}: 8-16 % slower than
    without, with 14 % fewer expansions)."""
    hashes, mvbase, nmv, idx, last, swap = frames
    off = sp * W
    coff = off + W
    scratch = sp + 2 <= depth_cap
    while idx[sp] < nmv[sp]:
        x = moves[mvbase[sp] + idx[sp]]
        play_into(bits, off, coff, we, x)
        hc, kc = state_keys(bits, coff, we)
        # its result will be stored in this line of the N table: request it now, so that the
        # miss overlaps with the work until then (an N result is stored after pass 1)
        _prefetch(ntab, bucket(hc, kc, ng))
        if (swap[sp * SWAP + (x & (SWAP - 1))] >> SWAP_SHIFT) == x:
            if _refuted_now(bits, off, W, we, sp, x, last, hints, ptab, pfilt, fshift, pg, scratch, eg, swap, st, True) != 0:
                st[LATE] += 1
                _store2(ptab, ntab, pfilt, fshift, hc, kc, 1, st, pg, ng)
                idx[sp] += 1
                continue
        last[sp + 1] = x
        hashes[2 * sp + 2] = hc
        hashes[2 * sp + 3] = kc
        return True
    return False


@njit(cache=True, forceinline=True, _nrt=False)
def _refuted_now(bits, off, W, we, sp, x, last, hints, ptab, pfilt, fshift, pg, scratch, eg, swap, st, late):  # pragma: no cover - compiled
    """``_refuted`` of the child after x of frame sp (written to frame sp + 1), counted in ``st``;
    a hint that refutes it is remembered as the paired reply of its move (``_pair_reply``)."""
    r = _refuted(bits, off + W, W, we, sp, x, last, hints, ptab, pfilt, fshift, pg, scratch, eg, swap, late)
    if r >= 4:
        st[KILLER] += 1
        if swap[sp * SWAP + (x & (SWAP - 1))] == (x << SWAP_SHIFT) | r:
            st[PAIRED] += 1
        _pair_reply(swap, sp, x, r)
    elif r != 0:
        st[TERMINAL] += 1
    return r


@njit(cache=True, forceinline=True, _nrt=False)
def _search(bits, W, frames, lists, hints, tables, st, budget):  # pragma: no cover - compiled
    """Run the search from the state in ``st`` for about ``budget`` expansions.

    ``frames`` = (hashes, mvbase, nmv, idx, last, swap), one entry per depth (two in ``hashes``: the
    hash and the key; ``SWAP`` in ``swap``: the paired replies, ``_pair_reply``); ``lists`` = (moves, keys, chash, egc), the move lists of all frames end to end (``keys``:
    their sort keys; ``chash``: hash and key of each child) and the thread's endgame cache (``eg_cached``); ``hints`` = (counter, counter2, killer),
    the move-ordering hints (see ``_learn``); ``tables`` = (ptab, ntab, pfilt, egtab, egfilt).

    Frame d holds its gap set in ``bits[d*W:(d+1)*W]``, its hash and key in ``hashes[2d:2d+2]``, the move that led
    to it in ``last[d]`` and its untried moves in ``moves[mvbase[d] + idx[d] : mvbase[d] + nmv[d]]``.
    Before the first call the caller fills frame 0, sets ``st[SP] = 0``, ``st[RES] = -1`` and
    ``mvbase[0] = 0``.  Returns a status code (``DONE``, ``BUDGET``, ``GROW_TABLE``, ``GROW_STACK``).

    P results go to ``ptab`` and N results to ``ntab``.  P-positions are few (about one in ten), so
    ``ptab`` is small; in front of it ``pfilt`` (when ``st[FSHIFT]`` is not 0) is a one-word Bloom
    filter (two bits per P-position) an eighth of its size, which stays in the L2 cache and answers
    most lookups (the misses) alone.  A child with at most ``st[EG_GENUS]`` gaps is decided by the
    endgame table (``egtab``, ``egfilt``: every P-position of that genus, see
    :mod:`sylver.solver.endgame`) instead, and is never searched nor stored.  Expanding a position
    first scans its children against the P table (largest move first, ``CHUNK`` children at a time whose filter words are prefetched
    together); only when no child is known P are the rest looked up in ``ntab`` and refuted by the
    hints (``_refuted``) before they are pushed.

    Compiled without the numba runtime (``_nrt=False``): the loop allocates nothing, and reference
    counting of the array arguments (atomic increments, a third of the time) is not emitted.
    """
    hashes, mvbase, nmv, idx, last, swap = frames
    moves, keys, chash, egc = lists
    ptab, ntab, pfilt, egtab, egfilt = tables
    egg = st[EG_GENUS]
    efshift = st[EG_FSHIFT]
    eg = (egtab, egfilt, efshift, egg, egc)
    sp = st[SP]
    res = st[RES]
    order = st[ORDER]
    prune = st[PRUNE] != 0
    fshift = st[FSHIFT]
    done = 0
    depth_cap = hashes.shape[0] // 2 - 1
    pg = bt_geometry(ptab, P_BASE)
    ng = bt_geometry(ntab, N_BASE)
    cap = moves.shape[0]
    children = 0
    while True:
        if res < 0:
            if done >= budget:
                return _suspend(st, sp, res, children, BUDGET)
            off = sp * W
            # a position pushed below the root was looked up (P in pass 1, N in pass 2) of its parent;
            # it is stored since only if a sibling's subtree reached it (under 1 % of the cases), so
            # only the cheap P check is repeated, not the N table (usually a cache miss)
            h0 = hashes[2 * sp]
            k0 = hashes[2 * sp + 1]
            if p_has(ptab, pfilt, fshift, h0, k0, pg):
                res = 0
                continue
            if sp == 0 and n_has(ntab, h0, k0, ng):
                res = 1
                continue
            if sp + 1 > depth_cap:
                return _suspend(st, sp, res, children, GROW_STACK)
            base = mvbase[sp]
            # the position's words from the highest nonzero one up are zero, and so are its
            # children's and grandchildren's (t only decreases): they are computed on its width
            we = _width(bits, off, W)
            g = genus_of(bits, off, we)
            if base + g > cap:
                return _suspend(st, sp, res, children, GROW_STACK)
            done += 1
            st[EXPANDED] += 1
            if sp > st[MAXDEPTH]:
                st[MAXDEPTH] = sp
            coff = off + W
            for i in range(we, W):
                bits[coff + i] = U0
                if sp + 2 <= depth_cap:
                    bits[coff + W + i] = U0
            count = 0
            win = False
            wx = 0
            # 2 and 3: if exactly one of them is legal, naming it leaves {2,3} (P), so the position
            # is N at once; if both are, naming either lets the opponent name the other and leave
            # {2,3}: never a winning move, so neither is generated (nor searched)
            skip = np.uint64(2)  # word-0 moves never generated: 1 (naming 1 loses)
            low = bits[off] & np.uint64(12)
            if low == np.uint64(4) or low == np.uint64(8):
                st[TERMINAL] += 1
                win = True
                wx = 2 if low == np.uint64(4) else 3
            elif low == np.uint64(12):
                skip = np.uint64(14)
            # pass 1: children against the P table, largest move first (the hints of ``_learn`` were
            # tried by the parent's pass 2, ``_refuted``, before this position was pushed)
            b0 = bits[off]
            b1 = bits[off + 1] if we == 2 else U0
            h0word = word0_hash(b0)
            k0word = word0_key(b0)
            i = we - 1
            w = bits[off + i]
            if i == 0:
                w &= ~skip
            while not win:
                # generate up to CHUNK children (largest move first), prefetching their filter words
                first = count
                while count - first < CHUNK:
                    while w == U0 and i > 0:
                        i -= 1
                        w = bits[off + i]
                        if i == 0:
                            w &= ~skip
                    if w == U0:
                        break
                    b = 63 - np.int64(_clz(w))
                    x = 64 * i + b
                    w &= ~(U1 << np.uint64(b))
                    small = 0
                    if we == 2:
                        # the commonest width (t < 128): the child in registers
                        c0, c1 = child2(b0, b1, x)
                        if c1 == U0 and eg_small(c0, egg):
                            # in the endgame table: its gap word is its key there
                            small = 1
                            hc = c0
                            kc = eg_hash(c0)
                        elif (c0 >> S16) & U1 == U0:
                            # 16 in S: the Kunz form, one word (``state_keys``)
                            hc = exact_key(kunz_low(c0 ^ c1, c1))
                            kc = hc
                        else:
                            hc = hash2_word0(h0word if x >= 64 else word0_hash(c0), c1)
                            kc = key2_word0(k0word if x >= 64 else word0_key(c0), c1)
                        terminal = c0 == np.uint64(2) and c1 == U0
                    else:
                        # (for t < 512 both with constant loop bounds: unrolled)
                        play_into(bits, off, coff, we, x)
                        c0 = bits[coff]
                        if eg_small(c0, egg) and eg_upper_zero(bits, coff, we):
                            small = 1
                            hc = c0
                            kc = eg_hash(c0)
                        else:
                            hc, kc = state_keys(bits, coff, we)
                        terminal = is_terminal(bits, coff, we)
                    children += 1
                    if terminal:
                        st[TERMINAL] += 1
                        win = True
                        wx = x
                        break
                    if small:
                        known = eg_cached(egc, hc, kc)
                        if known >= 0:
                            st[EG_HIT] += 1
                            if known == 1:
                                win = True
                                wx = x
                                break
                            continue
                        _prefetch(egfilt, np.int64(kc >> np.uint64(efshift)))
                    elif fshift != 0:
                        _prefetch(pfilt, np.int64(kc >> np.uint64(fshift)))
                    else:
                        _prefetch(ptab, bucket(hc, kc, pg))
                    moves[base + count] = x
                    keys[base + count] = small
                    chash[2 * (base + count)] = hc
                    chash[2 * (base + count) + 1] = kc
                    count += 1
                if win:
                    break
                # the children decided by the endgame table leave the list (they are N unless one
                # is P, which ends the scan)
                j = first
                for c in range(first, count):
                    hc = chash[2 * (base + c)]
                    kc = chash[2 * (base + c) + 1]
                    if keys[base + c] != 0:
                        st[EG_HIT] += 1
                        if eg_has_cached(eg, hc, kc):
                            win = True
                            wx = moves[base + c]
                            break
                        continue
                    if p_has(ptab, pfilt, fshift, hc, kc, pg):
                        st[TT_HIT] += 1
                        win = True
                        wx = moves[base + c]
                        break
                    if j != c:
                        moves[base + j] = moves[base + c]
                        chash[2 * (base + j)] = hc
                        chash[2 * (base + j) + 1] = kc
                    j += 1
                if win or count == first:
                    break
                count = j
            if win and wx != 0:
                _learn(hints, last, sp, wx)
                if sp > 0:
                    _pair_reply(swap, sp - 1, last[sp], wx)
            if not win:
                for c in range(sp * SWAP, (sp + 1) * SWAP):
                    swap[c] = 0
                # pass 2: drop the children known N: stored, or enders with t > 1 (theorem);
                # the N-table lines are requested first so that their cache misses overlap
                if st[PREFETCH] != 0:
                    for c in range(count):
                        _prefetch(ntab, bucket(chash[2 * (base + c)], chash[2 * (base + c) + 1], ng))
                j = 0
                for c in range(count):
                    if n_has(ntab, chash[2 * (base + c)], chash[2 * (base + c) + 1], ng):
                        st[TT_HIT] += 1
                        continue
                    x = moves[base + c]
                    play_into(bits, off, coff, we, x)
                    if prune:
                        t = top_bit(bits, coff, we)
                        if t > 1 and is_ender(bits, coff, we, t):
                            st[ENDER] += 1
                            continue
                    if _refuted_now(bits, off, W, we, sp, x, last, hints, ptab, pfilt, fshift, pg, sp + 2 <= depth_cap, eg, swap, st, False) != 0:
                        _store2(ptab, ntab, pfilt, fshift, chash[2 * (base + c)], chash[2 * (base + c) + 1], 1, st, pg, ng)
                        continue
                    if order == ORDER_GENUS:
                        key = genus_of(bits, coff, we)
                    elif order == ORDER_ASC:
                        key = x
                    elif order == ORDER_DESC:
                        key = -x
                    else:
                        key = -genus_of(bits, coff, we)
                    moves[base + j] = x
                    keys[base + j] = key
                    j += 1
                count = j
            if win:
                _store2(ptab, ntab, pfilt, fshift, hashes[2 * sp], hashes[2 * sp + 1], 1, st, pg, ng)
                res = 1
            elif count == 0:
                _store2(ptab, ntab, pfilt, fshift, hashes[2 * sp], hashes[2 * sp + 1], 0, st, pg, ng)
                res = 0
            else:
                _sort_moves(moves, keys, base, base + count)
                nmv[sp] = count
                idx[sp] = 0
                mvbase[sp + 1] = base + count
                if _next_child(bits, W, we, sp, frames, moves, hints, ptab, ntab, pfilt, fshift, pg, ng, eg, depth_cap, st):
                    sp += 1
                    continue
                _store2(ptab, ntab, pfilt, fshift, hashes[2 * sp], hashes[2 * sp + 1], 0, st, pg, ng)
                res = 0
            if _full(st):
                return _suspend(st, sp, res, children, GROW_TABLE)
        else:
            # frame sp finished with outcome res; hand it to the parent
            if sp == 0:
                st[SP] = 0
                st[RES] = res
                st[FINAL] = res
                st[CHILDREN] += children
                return DONE
            sp -= 1
            off = sp * W
            if res == 0:
                x = moves[mvbase[sp] + idx[sp]]
                _learn(hints, last, sp, x)
                if sp > 0:
                    _pair_reply(swap, sp - 1, last[sp], x)
                _store2(ptab, ntab, pfilt, fshift, hashes[2 * sp], hashes[2 * sp + 1], 1, st, pg, ng)
                res = 1
            else:
                idx[sp] += 1
                if _next_child(bits, W, _width(bits, off, W), sp, frames, moves, hints, ptab, ntab, pfilt, fshift, pg, ng, eg, depth_cap, st):
                    sp += 1
                    res = -1
                    continue
                _store2(ptab, ntab, pfilt, fshift, hashes[2 * sp], hashes[2 * sp + 1], 0, st, pg, ng)
                res = 0
            if _full(st):
                return _suspend(st, sp, res, children, GROW_TABLE)


@njit(cache=True, aot=f"({BITS}, int64, int64)")
def min_generators(bits, off, W):  # pragma: no cover - compiled
    """The minimal generators of the semigroup with the gap set at ``bits[off:off+W]``."""
    t = top_bit(bits, off, W)
    if t < 1:
        return np.ones(1, dtype=np.int64)
    m = 2
    while (bits[off + (m >> 6)] >> np.uint64(m & 63)) & U1:
        m += 1
    size = t + m + 1
    member = np.ones(size, dtype=np.bool_)
    for n in range(1, t + 1):
        if (bits[off + (n >> 6)] >> np.uint64(n & 63)) & U1:
            member[n] = False
    ap = np.full(m, -1, dtype=np.int64)
    found = 0
    for n in range(size):
        if member[n] and ap[n % m] < 0:
            ap[n % m] = n
            found += 1
            if found == m:
                break
    out = np.empty(m, dtype=np.int64)
    out[0] = m
    k = 1
    for r in range(1, m):
        a = ap[r]
        minimal = True
        for s in range(1, m):
            b = ap[s]
            if s != r and b < a and member[a - b]:
                minimal = False
                break
        if minimal:
            out[k] = a
            k += 1
    return np.sort(out[:k])


# -- proof certificates: the gcd-1 builder of :mod:`sylver.proof.build` ------------------------


@njit(cache=True)
def _seen_put(slots, a, b):  # pragma: no cover - compiled
    """Add the key (a, b), a != 0, to the open-addressing table ``slots`` (two words a slot, a = 0:
    empty; linear probing from the home slot ``_mix(a ^ b·φ)``); True if it was not there."""
    mask = np.uint64(slots.shape[0] // 2 - 1)
    i = np.int64(_mix(a ^ (b * GOLD)) & mask)
    while True:
        s = slots[2 * i]
        if s == U0:
            slots[2 * i] = a
            slots[2 * i + 1] = b
            return True
        if s == a and slots[2 * i + 1] == b:
            return False
        i = np.int64((np.uint64(i) + U1) & mask)


@njit(cache=True)
def seen_put_key(slots, keys, o, W):  # pragma: no cover - compiled
    """Add the position ``keys[o:o+W]`` to the table ``slots`` (``prove.SeenSet``); True if it was
    not there.  The key, the same whatever W (zero words beyond t do not count): the words
    themselves when t < 128 (exact; word 0 is never 0, as 1 is always a gap), else the two
    independent 64-bit hashes of the gap set (``key_hash``, odd, and ``gap_hash``)."""
    w = W
    while w > 2 and keys[o + w - 1] == U0:
        w -= 1
    if w <= 2:
        a = keys[o]
        b = keys[o + 1] if w == 2 else U0
    else:
        a = key_hash(keys, o, W)
        b = gap_hash(keys, o, W)
    return _seen_put(slots, a, b)


@njit(cache=True, aot=f"({BITS}, {BITS}, int64, boolean[::1])")
def seen_add(slots, keys, W, fresh):  # pragma: no cover - compiled
    """For each k with ``fresh[k]``, add the position ``keys[k*W:(k+1)*W]`` to the table ``slots``
    (``seen_put_key``); ``fresh[k]`` is cleared when it was there already.  Returns how many
    were added."""
    added = 0
    for k in range(fresh.shape[0]):
        if fresh[k]:
            if seen_put_key(slots, keys, k * W, W):
                added += 1
            else:
                fresh[k] = False
    return added


@njit(cache=True, aot=f"({BITS}, {BITS})")
def seen_rehash(old, slots):  # pragma: no cover - compiled
    """Add the keys of the table ``old`` to the (larger, empty) table ``slots``."""
    for i in range(old.shape[0] // 2):
        if old[2 * i] != U0:
            _seen_put(slots, old[2 * i], old[2 * i + 1])


@njit(cache=True,
      aot=f"({BITS}, int64, UniTuple({BITS}, 2), int64, UniTuple({BITS}, 2), int64, int64)")
def first_p_reply(bits, w, ptabs, fshift, egtabs, efshift, egg):  # pragma: no cover - compiled
    """The least move y >= 2 from the position ``bits[0:w]`` whose result (written to
    ``bits[w:2w]``) is {2,3}, P in the endgame table ``egtabs`` = (egtab, egfilt) (positions of at
    most ``egg`` gaps) or stored in the P table of ``ptabs`` = (ptab, pfilt), else 0.  The table is
    looked up behind its P filter, which holds every key of the table and so only skips lookups
    that would miss (most of them, and the filter stays in cache)."""
    ptab, pfilt = ptabs
    egtab, egfilt = egtabs
    pg = bt_geometry(ptab, P_BASE)
    for i in range(w):
        v = bits[i] & ~np.uint64(2) if i == 0 else bits[i]
        while v != U0:
            y = 64 * i + np.int64(_ctz(v))
            v &= v - U1
            play_into(bits, 0, w, w, y)
            if is_terminal(bits, w, w):
                return y
            c0 = bits[w]
            if eg_small(c0, egg) and eg_upper_zero(bits, w, w):
                if eg_has(egtab, egfilt, efshift, c0, eg_hash(c0)):
                    return y
                continue
            hc, kc = state_keys(bits, w, w)
            if p_has(ptab, pfilt, fshift, hc, kc, pg):
                return y
    return 0


@njit(cache=True, aot=f"({BITS}, UniTuple({BITS}, 2), int64, UniTuple({BITS}, 2), int64, int64, {INTS}, {BITS})")
def node_replies(gaps, ptabs, fshift, egtabs, efshift, egg, found, after):  # pragma: no cover - compiled
    """A refutation of each move x >= 2 of the P-position ``gaps`` (the moves increasing), for proof
    certificates: ``found[k]`` is 0 when the position after the k-th move is an ender with t > 1
    (N by strategy stealing, sec. 1), else the least reply known to win (``first_p_reply``), the
    position after it written to ``after[k*W:(k+1)*W]``, or -1 when none is known.  Computed on the
    position's own width (its words up to t, at least 2), not the array's: most nodes of a proof
    from t = 273 have t < 192.  Returns the number of moves."""
    W = gaps.shape[0]
    w = min(W, max(2, top_bit(gaps, 0, W) // 64 + 1))
    bits = np.zeros(3 * w, dtype=np.uint64)  # the node, the position after x, after x and y
    bits[:w] = gaps[:w]
    k = 0
    for i in range(w):
        v = gaps[i] & ~np.uint64(3) if i == 0 else gaps[i]
        while v != U0:
            x = 64 * i + np.int64(_ctz(v))
            v &= v - U1
            play_into(bits, 0, w, w, x)
            t = top_bit(bits, w, w)
            if t > 1 and is_ender(bits, w, w, t):
                found[k] = 0
            else:
                y = first_p_reply(bits[w:], w, ptabs, fshift, egtabs, efshift, egg)
                found[k] = y if y > 0 else -1
                if y > 0:
                    after[k * W : k * W + w] = bits[2 * w : 3 * w]
                    after[k * W + w : (k + 1) * W] = U0
            k += 1
    return k


@njit(cache=True)
def _put_int(out, pos, v):  # pragma: no cover - compiled
    """Write the decimal digits of v >= 0 at ``out[pos:]``; the position after them."""
    end = pos + 1
    u = v // 10
    while u > 0:
        end += 1
        u //= 10
    i = end
    while True:
        i -= 1
        out[i] = 48 + v % 10
        v //= 10
        if v == 0:
            return end


@njit(cache=True)
def _put_list(out, pos, xs, n):  # pragma: no cover - compiled
    """Write ``xs[:n]`` as a JSON list at ``out[pos:]``; the position after it."""
    out[pos] = 91  # [
    pos += 1
    for i in range(n):
        if i:
            out[pos] = 44  # ,
            pos += 1
        pos = _put_int(out, pos, xs[i])
    out[pos] = 93  # ]
    return pos + 1


# the state of a batch of ``prove_nodes``, in an int64 array shared with the builder
BATCH_SP, BATCH_TODO, BATCH_DONE, BATCH_BYTES, BATCH_COUNT, BATCH_MOVES = range(6)
BATCH_SIZE = 6
# why a batch of ``prove_nodes`` stopped
STOP_EMPTY, STOP_BATCH, STOP_SEARCH, STOP_GROW_SEEN, STOP_GROW_STACK, STOP_FLUSH = range(6)
PROOF_TABLES = f"Tuple((UniTuple({BITS}, 2), int64, UniTuple({BITS}, 2), int64, int64))"
"""The tables of ``prove_nodes``: (ptabs, fshift, egtabs, efshift, egg) of ``node_replies``."""


@njit(cache=True, aot=f"({BITS}, {INTS}, {BITS}, {PROOF_TABLES}, {INTS}, {BITS}, {BITS}, uint8[::1])")
def prove_nodes(stack, state, slots, tables, found, after, node, out):  # pragma: no cover - compiled
    """Prove the nodes on ``stack`` (``state[BATCH_SP]`` positions of W words, the last on top), as
    ``prove._Builder.run`` does, up to ``state[BATCH_TODO]`` of them: pop a node, find its replies
    (``node_replies``), add the positions they lead to to the seen set ``slots`` and push those
    met for the first time (in move order, {2,3} left out), and write the node's line
    ``[[generators],[replies]]`` to ``out`` (the lines of a batch separated by ",\\n";
    ``state[BATCH_BYTES]`` of them).  ``tables`` = (ptabs, fshift, egtabs, efshift, egg) of
    ``node_replies``.  Returns why it stopped: the stack is empty (``STOP_EMPTY``); the batch is
    done (``STOP_BATCH``: ``state[BATCH_DONE]`` nodes); a node has a move without a known reply
    (``STOP_SEARCH``: the node popped into ``node``, its ``state[BATCH_MOVES]`` replies in
    ``found`` and ``after``, nothing of it added); or the seen set, the stack or ``out`` must grow
    first (``STOP_GROW_SEEN``, ``STOP_GROW_STACK``, ``STOP_FLUSH``)."""
    ptabs, fshift, egtabs, efshift, egg = tables
    W = node.shape[0]
    sp = state[BATCH_SP]
    count = state[BATCH_COUNT]
    pos = 0
    done = 0
    digits = 1
    while 10 ** digits <= 128 * W:
        digits += 1
    status = STOP_BATCH
    while done < state[BATCH_TODO]:
        if sp == 0:
            status = STOP_EMPTY
            break
        n = genus_of(stack, (sp - 1) * W, W) - 1
        state[BATCH_MOVES] = n
        if 4 * (count + n) > 3 * (slots.shape[0] // 2):
            status = STOP_GROW_SEEN
            break
        if (sp - 1 + n) * W > stack.shape[0]:
            status = STOP_GROW_STACK
            break
        if pos + (2 * n + 4) * (digits + 1) + 8 > out.shape[0]:
            status = STOP_FLUSH
            break
        sp -= 1
        node[:] = stack[sp * W : (sp + 1) * W]
        node_replies(node, ptabs, fshift, egtabs, efshift, egg, found, after)
        if n and found[:n].min() < 0:
            status = STOP_SEARCH
            break
        for k in range(n):
            if found[k] > 0:
                if seen_put_key(slots, after, k * W, W):
                    count += 1
                    if not is_terminal(after, k * W, W):
                        stack[sp * W : (sp + 1) * W] = after[k * W : (k + 1) * W]
                        sp += 1
        gens = min_generators(node, 0, W)
        if done:
            out[pos] = 44  # ,
            out[pos + 1] = 10  # \n
            pos += 2
        out[pos] = 91
        pos = _put_list(out, pos + 1, gens, gens.shape[0])
        out[pos] = 44
        pos = _put_list(out, pos + 1, found, n)
        out[pos] = 93
        pos += 1
        done += 1
    state[BATCH_SP] = sp
    state[BATCH_COUNT] = count
    state[BATCH_DONE] = done
    state[BATCH_BYTES] = pos
    return status


@njit(cache=True)
def _next_gap(bits, off, W, start):  # pragma: no cover - compiled
    """The least gap >= start at ``bits[off:off+W]``, or -1."""
    i = start >> 6
    if i >= W:
        return -1
    w = bits[off + i] & (ALL << np.uint64(start & 63))
    while True:
        if w != U0:
            return 64 * i + np.int64(_ctz(w))
        i += 1
        if i >= W:
            return -1
        w = bits[off + i]


@njit(cache=True, forceinline=True, _nrt=False)
def _seen_add(seen, h, key):  # pragma: no cover - compiled
    """Insert the position (hash h, key) into ``seen``, a linear-probing table of (h, key) pairs
    (``seen[2i]``, ``seen[2i+1]``; key 0 = empty); False when it was there already."""
    mask = (seen.shape[0] >> 1) - 1
    i = np.int64(h >> np.uint64(6)) & mask
    while True:
        k = seen[2 * i + 1]
        if k == U0:
            seen[2 * i] = h
            seen[2 * i + 1] = key
            return True
        if k == key and seen[2 * i] == h:
            return False
        i = (i + 1) & mask


@njit(cache=True, aot=f"({BITS}, {BITS})")
def count_reachable(root, seen):  # pragma: no cover - compiled
    """Number of distinct positions reachable from ``root`` by moves other than 1, counting the root.

    ``seen`` is an empty table for ``_seen_add`` (a power-of-two number of pairs); returns -1 when
    it fills beyond half (the caller retries with a larger one)."""
    W = root.shape[0]
    depth = genus_of(root, 0, W) + 2
    bits = np.zeros(depth * W, dtype=np.uint64)
    cursor = np.zeros(depth, dtype=np.int64)
    bits[:W] = root
    limit = seen.shape[0] >> 2
    _seen_add(seen, gap_hash(bits, 0, W), key_hash(bits, 0, W))
    count = 1
    cursor[0] = 2
    sp = 0
    while sp >= 0:
        off = sp * W
        x = _next_gap(bits, off, W, cursor[sp])
        if x < 0:
            sp -= 1
            continue
        cursor[sp] = x + 1
        play_into(bits, off, off + W, W, x)
        if not _seen_add(seen, gap_hash(bits, off + W, W), key_hash(bits, off + W, W)):
            continue
        count += 1
        if count > limit:
            return -1
        sp += 1
        cursor[sp] = 2
    return count
