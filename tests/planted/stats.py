"""Planted bugs in theorylab/stats.py (shared statistics).

One :class:`planted.Bug` per bug: the library file, the text replaced (it must occur exactly once), the
certificates that catch it and the statuses they may end with (tests/test_planted_bugs.py runs them).
"""
from planted import FAIL_OR_ERROR, Bug

STATS = 'theorylab/stats.py'

BUGS = [
    Bug('Wilson centre with z^2/n',
        STATS,
        'centre = (p + z * z / (2 * n))',
        'centre = (p + z * z / n)',
        ('P21.training',)),
]
