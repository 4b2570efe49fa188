"""Graded LLMs (GLLM): grades, the sample-complexity ratio Lambda, minimax envelopes, the ladder.

Start here (paper sections in each docstring):

* :func:`Lambda`, :func:`profile` -- grades and the ratio Lambda (§3-4); :func:`optimal_grades`,
  :func:`clipped_grades`, :func:`table3_row` -- the grades that minimise it (Prop. 7, 10-11, Table 3);
* :func:`caps`, :func:`window`, :func:`stratified_model` -- the minimax envelope (Theorem 4.1);
* :func:`simulate`, :func:`exact_risk` -- the risk simulation of the graded estimator (§5);
* :func:`grading_overhead` -- the training-parameter overhead of grading (§8.1.3);
* :func:`build_arms`, :func:`learning_curves`, :func:`summarize`, :func:`preregister` -- the ladder
  experiment (Table 2); :func:`constrained_fit` -- its estimator, least squares at a budget (Prop. 7).

``theorylab.graded.envelope`` is the module (its function ``envelope.envelope`` keeps the module's
name); the preregistration files are read and written by ``theorylab.graded.prereg`` (``read``,
``write``). Every other public name of the modules below is re-exported here, imported on first use.
"""
from __future__ import annotations

from theorylab._lazy import lazy_exports

_EXPORTS = {
    "attention": ("grading_matrix", "grade", "ellipsoid_semi_axes"),
    "budget_fit": ("NEWTON_ITERATIONS", "constrained_fit"),
    "embedding": ("mlge_grading", "graded_basis_defect", "orthogonality_defect", "gram_defect",
                  "prop6_bound"),
    "envelope": ("UPPER_CONSTANT", "WINDOW_LOW", "caps", "eps2", "worth_estimating", "upper_regime", "m_sat",
                 "window", "cap_ratio", "grade_condition", "theorem41_factors", "LinearClass",
                 "StratifiedModel", "stratified_model"),
    "grades": ("GAUGE", "PROFILE_SUM_RTOL", "profile", "profiles", "geometric_parameters",
               "geometric_profiles", "expand_levels", "reduce_levels", "Lambda", "Lambda_q", "log_Lambda_u",
               "bhattacharyya", "Lambda_star", "bc_geometric", "tilted", "gradient_u", "admissibility",
               "boundary_polynomial"),
    "optimal": ("optimal_grades", "ClippedOptimum", "clip_bound", "clipped_grades", "level_program", "moment_maps",
                "recession_slope", "clipped_lower_bound", "GradeRow", "table3_row", "TABLE3_PARAMETERS"),
    "io": ("read_vector",),
    "ladder": ("ARMS", "Q_BASE", "PILOT_FIT", "PILOT_BLOCKS", "PILOT_MAX", "SIGMA_XI_MAX", "PEAKED",
               "LadderDesign", "profile_design", "geometric_design", "design_from_dict", "Pilot",
               "pilot_size", "draw_pilot", "estimate_levels", "pilot_estimates", "bootstrap_weights", "Arm",
               "uniform_arm", "random_arm", "taxonomic_arm", "proxy_arm", "educated_arm", "oracle_arm",
               "build_arms", "q_of"),
    "ladder_sim": ("DESIGN", "TARGET_FRACTION", "GRID_FACTOR", "MAX_SIZE", "learning_curves", "grid", "crossing",
                   "window_end", "reference_size", "default_grid", "target_risk", "LadderResult", "spearman",
                   "measure", "summarize", "inverted_pairs"),
    "pilot_cost": ("Degradation", "profile_error", "degradation"),
    "overhead": ("PLANNED_CONFIGURATIONS", "GradingOverhead", "grading_overhead"),
    "prereg": ("CI_LEVEL", "ArmRecord", "Preregistration", "average_ranks", "predicted_ranks", "preregister",
               "RECOMPUTED_RTOL"),
    "risk_sim": ("TARGETS", "BLOCK", "DRAW_ELEMENTS", "FLAG_Z", "rows_per_draw", "estimable_levels",
                 "exact_risk", "least_favourable_target", "two_point_lower_bound", "RiskSimulation",
                 "simulate", "default_m_grid"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
