"""The library's parameter objects read as the plain arrays the reference routes take.

Only *data* crosses here (weights, couplings, grades, PLGA parameters); no library function is
called, so a certificate comparing the library with ``theorylab.certificates.reference`` shares no code
with the route under test.
"""
from __future__ import annotations

from theorylab.nn import specs
from theorylab.plga.operator import GatedResidualUnit, PLGAParams

from theorylab.certificates.reference import plga as ref_plga
from theorylab.certificates.reference import transformer as ref


def psi(p: PLGAParams) -> ref_plga.Psi:
    """The parameters of one PLGA head as the reference's :class:`~theorylab.certificates.reference.plga.Psi`."""
    units = tuple({"glus": tuple((g.W1, g.b1, g.W2, g.b2, g.W3, g.b3) for g in u.glus), "gamma": u.ln_gamma,
                   "beta": u.ln_beta} if isinstance(u, GatedResidualUnit) else (u.W1, u.b1, u.W2, u.b2)
                  for u in p.units)
    return ref_plga.Psi(p.W, p.b_W, p.P, p.a, p.b_a, units, p.ln_gamma, p.ln_beta, p.eps, p.eps_ln)


def head(spec, *, clip: bool = True, frozen_prompt: int | None = None):
    """The reference head function for a library head spec (``clip=False`` drops a graded head's clip)."""
    if isinstance(spec, specs.SDPA):
        return ref.head("sdpa", base=spec.base)
    if isinstance(spec, specs.PSA):
        return ref.head("psa", g_q=spec.g_q, g_k=spec.g_k, placement=spec.placement, base=spec.base)
    if isinstance(spec, specs.TwoTap):
        return ref.head("two_tap", q_taps=spec.q_taps, k_taps=spec.k_taps, placement=spec.placement, base=spec.base)
    if isinstance(spec, specs.Graded):
        return ref.head("graded", grades=spec.grades, lam=spec.lam, clip=spec.clip if clip else None,
                        base=spec.base)
    return ref.head("plga", psi=psi(spec.params), gram=spec.gram, base=spec.base, frozen_prompt=frozen_prompt)


def model(m, **head_options) -> dict:
    """A library ``Decoder`` as the reference's picoGPT-style dict (same weights, reference heads)."""
    return {"wte": m.wte, "ln_f": m.ln_f,
            "blocks": [{"w_q": l.w_q, "w_k": l.w_k, "w_v": l.w_v, "w_o": l.w_o, "w_fc": l.w_fc, "b_fc": l.b_fc,
                        "w_proj": l.w_proj, "b_proj": l.b_proj, "ln_1": l.ln1, "ln_2": l.ln2,
                        "heads": [head(s, **head_options) for s in l.heads]} for l in m.layers]}
