"""Planted bugs in theorylab/rng.py (the shared counter RNG).

One :class:`planted.Bug` per bug: the library file, the text replaced (it must occur exactly once), the
certificates that catch it and the statuses they may end with (tests/test_planted_bugs.py runs them).
"""
from planted import FAIL_OR_ERROR, Bug

RNG = 'theorylab/rng.py'

BUGS = [
    Bug('seed salt off by one (every stream shifts)',
        RNG,
        '_SEED_SALT = np.uint64(0x5851F42D4C957F2D)',
        '_SEED_SALT = np.uint64(0x5851F42D4C957F2C)',
        ('P17.rng',),
        slow=True),
    Bug('log32 loses its ln2 low-order term',
        RNG,
        'y = y * f * z + _LN2B * e - _HALF * z',
        'y = y * f * z - _HALF * z',
        ('P17.rng',),
        slow=True),
    Bug('float64 kernel sine series with (-1/2)^k',
        RNG,
        'tuple((-1.0) ** k / math.factorial(2 * k + 1)',
        'tuple((-0.5) ** k / math.factorial(2 * k + 1)',
        ('P17.rng',),
        slow=True),
    Bug('float32 kernel u1 without its 1/2 (u1 = 0 at hi = 0)',
        RNG,
        'u1 = (np.float32(np.int64(w >> _S32)) + _HALF) * _TWO_M32F',
        'u1 = np.float32(np.int64(w >> _S32)) * _TWO_M32F',
        ('P17.rng',),
        slow=True),
]
