"""Deprecated import path, kept for one release: the PLGA operator and its structural quantities.

This module used to hold the whole of PLGA's numerics; it now only re-exports the public names of the
modules of one job that hold them (new code imports those, or :mod:`theorylab.plga` itself):

* :mod:`theorylab.plga.params` -- the head's parameters and their initialisation (§3.1, eqs. 3.3-3.6);
* :mod:`theorylab.plga.chain` -- the forward chain D_Q -> A -> A_LM -> A_P -> G_LM and the scores
  (eqs. 3.1-3.9, Thm 5.4(ii));
* :mod:`theorylab.plga.perron` -- Perron-Frobenius data and the rank-one ``1 alpha^T`` (§3.3-3.4);
* :mod:`theorylab.plga.notears` -- NOTEARS ``h(W)``, the walk series and the DAG-loss floor (§4.3);
* :mod:`theorylab.plga.rope` -- the RoPE commutant and the rotary twirl (Prop. 4.1, Lemma 5.9);
* :mod:`theorylab.plga.diagnostics` -- positivity margins, the order parameter, the density report,
  LayerNorm's scale error and the row-stability bound (§3.2, §5.1-5.3).

``theorylab.plga.operator.X`` is the same object as ``theorylab.plga.<module>.X`` for every name of
``__all__`` (theorylab.nn and the certificates still use this path).
"""
from __future__ import annotations

from theorylab.plga.chain import (PLGAStages, absorb_operator, cumulative_density_operators, density_operator,
                                  g_lm, g_lm_cumulative, gated_unit, glu, hadamard_power, iswiglu, layer_norm,
                                  metric_learner, plga_stages, scores, sigmoid, silu, stages_from_density)
from theorylab.plga.diagnostics import (NORMALIZATIONS, DensityReport, PositivityMargins, density_report,
                                        ln_scale_error, ln_scale_proxy, order_parameter, positivity_margins,
                                        rms, row_perturbation_bound)
from theorylab.plga.notears import NotearsValue, dag_floor, dag_loss, notears_h, walk_terms
from theorylab.plga.params import (EPS, EPS_LN, GLU, RESIDUALS, GatedResidualUnit, PLGAParams, ResidualUnit,
                                   init_params, sdpa_params)
from theorylab.plga.perron import PerronPair, collatz_wielandt_bounds, perron_frobenius, row_clone
from theorylab.plga.rope import (J2, PAIR_SETS, TwirlStatistics, commutant_projection, off_commutant_residual,
                                 plane_rotations, position_twirl, twirl_constant, twirl_frequencies,
                                 twirl_multiplier, twirl_statistics)

__all__ = [
    "EPS", "EPS_LN", "J2", "RESIDUALS", "ResidualUnit", "GLU", "GatedResidualUnit", "PLGAParams", "init_params",
    "sdpa_params",
    "iswiglu", "silu", "density_operator", "cumulative_density_operators", "layer_norm", "glu", "gated_unit",
    "hadamard_power", "metric_learner",
    "PLGAStages", "stages_from_density", "plga_stages", "g_lm", "g_lm_cumulative", "scores",
    "row_perturbation_bound",
    "PositivityMargins", "positivity_margins", "PerronPair", "row_clone", "perron_frobenius",
    "collatz_wielandt_bounds", "sigmoid",
    "NotearsValue", "walk_terms", "notears_h", "dag_loss", "dag_floor",
    "commutant_projection", "off_commutant_residual", "plane_rotations", "position_twirl", "PAIR_SETS",
    "twirl_frequencies", "twirl_multiplier", "TwirlStatistics", "twirl_statistics", "twirl_constant",
    "rms", "NORMALIZATIONS", "order_parameter", "DensityReport", "density_report", "ln_scale_error", "ln_scale_proxy",
    "absorb_operator",
]
