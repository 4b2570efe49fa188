"""Target masses of the order-lattice members on a vector-level induction sample, beside the
reduced model's exact mass (PSA §2.3, §6.6; the sample of :func:`theorylab.psa.induction.simulate`).

A lattice member ``(g_q, g_k)`` (:data:`theorylab.psa.shear.LATTICE`) scores every key as
``c1 + g_q c2 + g_k c3 + g_q g_k c4`` from the sample's unit-coupling channels (:func:`scores_at`),
so any g grid costs one polynomial evaluation; :func:`target_mass` is the mean softmax mass of the
target over the ``T - 1`` keys (and the argmax accuracy), and :func:`mass_rows` sets it beside
:func:`theorylab.psa.quadrature.exact_mass` of the matching reduced-model variant
(:data:`MASS_VARIANT`; none for the query-only and standard members).

Convention: the head sign and placement of :mod:`theorylab.psa.induction`; SEs are over samples.
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import check_memory, choice, finite_output
from theorylab.psa import shear
from theorylab.psa.induction import InductionSample
from theorylab.psa.moments import _couplings, _se
from theorylab.psa.softmax import softmax
from theorylab.resources import Cost, bytes_of, count

__all__ = ["MEMBERS", "MASS_VARIANT", "scores_at", "target_mass", "mass_rows", "mass_rows_cost"]


MASS_SECONDS = 5e-7


def mass_rows_cost(T, samples, n_gamma, member: str = "symmetric") -> Cost:
    """Peak memory and run time of :func:`mass_rows`: the channels, ``(G, samples, T-1)`` scores and
    their softmax (four copies), and the reduced model's exact mass at each g."""
    from theorylab.psa.quadrature import exact_mass_cost

    entries = bytes_of(count("samples", samples), count("T", T), itemsize=1)
    G = count("n_gamma", n_gamma)
    own = Cost(bytes_of(4, entries) * 2 + 4 * bytes_of(G, entries), entries * G * MASS_SECONDS, "target masses")
    return own.then(exact_mass_cost(n_gamma) if MASS_VARIANT[choice("member", member, tuple(MASS_VARIANT))]
                    else Cost())


MEMBERS: tuple[str, ...] = tuple(shear.LATTICE)
MASS_VARIANT: dict[str, str | None] = {"symmetric": "t3-inclusive", "key-only": "key-only",
                                       "query-only": None, "standard": None}
"""The reduced-model variant whose mean target mass is set beside each lattice member's."""


@finite_output("g")
def scores_at(sample: InductionSample, g, member: str = "symmetric") -> np.ndarray:
    """Scores ``c1 + g_q c2 + g_k c3 + g_q g_k c4`` of a lattice member, shape (len(g), n, T-1).

    Examples
    --------
    Scores of the symmetric lattice member at two couplings:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=50)
    >>> psa.scores_at(sample, [0.0, 1.0]).shape
    (2, 50, 31)
    """
    g = _couplings(g)
    a, b = shear.lattice_couplings(choice("member", member, MEMBERS), 1)
    C = sample.channels
    check_memory("g", 8 * 2 * g.size * C.shape[0] * C.shape[2])
    gq, gk = (a * g)[:, None, None], (b * g)[:, None, None]
    return C[None, :, 0] + gq * C[None, :, 1] + gk * C[None, :, 2] + gq * gk * C[None, :, 3]


def target_mass(sample: InductionSample, g, member: str = "symmetric"
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per g: mean target softmax mass, its SE, and argmax accuracy (over all T-1 keys).

    Examples
    --------
    Mean target mass rises with the coupling:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=200)
    >>> mass, se, acc = psa.target_mass(sample, [0.0, 2.0])
    >>> print(mass.round(2))
    [0.03 0.28]
    """
    s = scores_at(sample, g, member)                                  # (G, n, T-1)
    mass = softmax(s)[:, np.arange(s.shape[1]), sample.target]        # (G, n)
    acc = (np.argmax(s, -1) == sample.target[None]).mean(-1)
    return mass.mean(-1), _se(mass, axis=1), acc


def mass_rows(sample: InductionSample, g, member: str = "symmetric") -> list[dict]:
    """Per g: measured target mass (+SE), accuracy, and the matching reduced model's exact mass.

    Examples
    --------
    Measured mass beside the reduced model's, per g:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=100)
    >>> rows = psa.mass_rows(sample, [1.0])
    >>> sorted(rows[0])
    ['accuracy', 'g', 'mass_model', 'member', 'model_variant', 'target_mass', 'target_mass_se']
    """
    from theorylab.psa.quadrature import exact_mass

    g = _couplings(g)
    mass, se, acc = target_mass(sample, g, member)
    variant = MASS_VARIANT[member]
    model = exact_mass(variant, sample.dk, sample.T, g) if variant else np.full(g.shape, np.nan)
    return [{"g": float(gv), "member": member, "target_mass": float(mass[i]), "target_mass_se": float(se[i]),
             "accuracy": float(acc[i]), "mass_model": float(model[i]), "model_variant": variant}
            for i, gv in enumerate(g)]
