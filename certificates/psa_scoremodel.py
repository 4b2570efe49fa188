"""Certificates on the PSA reduced score model itself (PSA §6.3)."""
from __future__ import annotations

from theorylab.certify import Outcome, certificate, computed
from theorylab.psa.scoremodel import score_model


@certificate("P11", title="T4-only score-gap SNR is sqrt(dk)/2 for every g", paper="PSA §6.3",
             claim="In the T4-only model Delta/sigma = sqrt(dk)/2, independent of g.", method="exact")
def t4_snr(model=score_model("t4-only")) -> Outcome:
    """Decide ``Delta^2 - (dk/4) sigma^2 == 0`` as a polynomial identity in (g, dk)."""
    import sympy as sp  # SymPy only when a check runs (certify --list stays light)

    from theorylab.symbolic.psa import dk, g, gap_expr, variance_expr

    delta, var = gap_expr(model), variance_expr(model)
    residual = sp.Poly(sp.expand(delta**2 - dk / 4 * var), g, dk)
    ratio = sp.simplify(delta / sp.sqrt(var))
    return Outcome(residual.is_zero, (computed("Delta^2 - (dk/4) sigma^2", str(residual.as_expr())),
                                      computed("Delta/sigma", str(ratio))))
