"""Planted bugs in theorylab/symbolic/ (the SymPy routes).

One :class:`planted.Bug` per bug: the library file, the text replaced (it must occur exactly once), the
certificates that catch it and the statuses they may end with (tests/test_planted_bugs.py runs them).
"""
from planted import FAIL_OR_ERROR, Bug

EXACT = 'theorylab/symbolic/exact.py'
GRADED = 'theorylab/symbolic/graded.py'
PLGA = 'theorylab/symbolic/plga.py'
SOFTMAX = 'theorylab/symbolic/softmax.py'

BUGS = [
    Bug('exact() rounds SymPy rationals through float',
        EXACT,
        'if value.has(sp.Float):\n            value = value.xreplace({f: sp.Rational(float(f)) for f in value.atoms(sp.Float)})',
        'if value.has(sp.Rational):\n            value = value.xreplace({f: sp.Rational(float(f)) for f in value.atoms(sp.Rational)})',
        ('P1',),
        accept=FAIL_OR_ERROR),
    Bug('unit residual with one tau coordinate short',
        GRADED,
        'list(symbols("t", d - 1))\n    a.append(1 - sum(a))\n    t.append(1 - sum(t))\n    return Lambda_expr(',
        'list(symbols("t", d - 2))\n    a.append(1 - sum(a))\n    t.append(1 - sum(t))\n    return Lambda_expr(',
        ('G3',),
        accept=FAIL_OR_ERROR),
    Bug('exact decider calls the constant 1 zero',
        GRADED,
        'bool(sp.nsimplify(num) == 0)',
        'bool(sp.nsimplify(num) == 1)',
        ('G4',),
        slow=True),
    Bug('scale residual without the scale', GRADED, '[c * x for x in g]', '[x for x in g]', ('G3',)),
    Bug('Hessian chain rule without the outer e_k',
        GRADED,
        'lambda j, k: du(du(phi, j), k))',
        'lambda j, k: du(sp.diff(phi, e[j]), k))',
        ('G4',)),
    Bug('commutant equations scaled by 1 + u^3',
        PLGA,
        'scale = [1 + u**2 for u in us]',
        'scale = [1 + u**3 for u in us]',
        ('A6',),
        slow=True),
    Bug('walk series stops one term early',
        PLGA,
        'range(1, kmax + 1))',
        'range(1, kmax))',
        ('A5.symbolic',),
        slow=True),
    Bug('circle moment without (i - 1)!!',
        PLGA,
        'sp.factorial2(i - 1) * sp.factorial2(j - 1)',
        'sp.factorial2(j - 1)',
        ('A12.symbolic',)),
    Bug('commutant solution placed in a 3-row block',
        PLGA,
        'M[2 * a:2 * a + 2, 2 * b:2 * b + 2]',
        'M[2 * a:3 * a + 2, 2 * b:2 * b + 2]',
        ('A6',),
        accept=FAIL_OR_ERROR),
    Bug('exact softmax normaliser off by u_0',
        SOFTMAX,
        '    total = sum(u)\n',
        '    total = sum(u) + u[0]\n',
        ('A17.symbolic',)),
]
