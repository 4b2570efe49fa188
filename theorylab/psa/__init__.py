"""Phase Space Attention (PSA): the symplectic shear, its filter-order account of
single-layer induction, and the reduced Gaussian score model with its critical couplings.

Start here (paper sections in each docstring):

* :func:`gamma_c` -- the quoted critical coupling (two-branch law, §6.6-6.8); :func:`annealed_gamma_c`,
  :func:`condensed_gamma_c`, :func:`crossover_dk`, :func:`t4_band`;
* :func:`crossing_root` -- the generic root of any model's crossing polynomial (§6.6);
* :func:`exact_gamma_c`, :func:`exact_mass` -- the same crossing by exact quadrature (§6.7);
* :func:`simulate_mass`, :func:`mc_gamma_c` -- the Monte Carlo of the score model (§6.8, §10);
  :func:`measure` -- one named observable (mass-half, entropy-peak, ...) by either route;
* :func:`compare_grid` -- prediction against simulation on the paper's grid (Table 3);
* :func:`band_gamma_c`, :func:`power_law_fit`, :func:`large_dk_exponent`, ... -- the arithmetic behind
  figures quoted from the laws and fits (A34.3, A6.5, §10, §7.12; :mod:`theorylab.psa.laws`);
* :class:`ScoreModel`, :func:`score_model` -- the reduced model of each variant (§6.6);
* :func:`simulate`, :func:`channel_moments` -- the canonical induction queries (§7-8).

``theorylab.psa.shear`` and ``theorylab.psa.softmax`` are the modules (their functions ``shear.shear``
and ``softmax.softmax`` keep their module's name); every other public name of the modules below is
re-exported here, imported on first use. Cost estimates (``*_cost``) stay in their modules.
Scalar input gives Python scalars, arrays give arrays.
"""
from __future__ import annotations

from theorylab._lazy import lazy_exports

_EXPORTS = {
    "canonical": ("ceiling", "plant_induction", "target_positions"),
    "compare": ("PAPER_GRID", "PAPER_STATISTICS", "PaperStatistics", "Comparison", "compare_grid",
                "pearson_r", "relative_error", "read_grid", "validate_grid", "CALIBRATION_GRID",
                "CONDENSED_GRID", "CONDENSED_SCAN", "Calibration", "calibrate_condensation_c",
                "annealed_mass", "band_edge_check", "plateau_check", "gap_crossover", "CROSSOVER_BATCHES",
                "Crossover", "t3_t4_crossover"),
    "crossing": ("crossing_root", "crossing_polynomial", "crossing_residual"),
    "deploy": ("kv_cache_floats", "extra_state_floats", "extra_state_fraction", "shear_flops",
               "insert_sheared", "count_flops", "int8_headroom_bits", "range_growth", "alternating_stream"),
    "induction": ("HEAD_SIGN", "CHANNELS", "DEGREE", "ChannelModel", "reduced_channel_model",
                  "frequencies", "induction_batch", "stream_channels", "InductionSample", "simulate"),
    "moments": ("BULK_MIN_T", "ChannelMoments", "channel_moments", "rope_match_factor", "comparison_rows"),
    "masses": ("MEMBERS", "MASS_VARIANT", "scores_at", "target_mass", "mass_rows"),
    "positional": ("coriolis_gain", "coriolis_band_ratios", "cesaro_averages", "envelope_slope"),
    "laws": ("CouplingBand", "band_gamma_c", "PowerLawFit", "power_law_fit", "loglog_fit", "power_law",
             "implied_exponent", "large_dk_exponent", "gap_fraction", "chance_multiple"),
    "mc_kernels": ("exp32", "exp64"),
    "mc_crossing": ("MCGammaC", "mc_gamma_c", "first_crossing"),
    "montecarlo": ("LOADINGS", "MassCurve", "simulate_mass", "per_sample_mass", "loadings",
                   "loading_variance_poly", "simulated_model"),
    "measurement": ("METHODS", "Measurement"),
    "observables": ("mass_half", "half_plateau", "plateau_level", "OBSERVABLES", "OBSERVABLE_NAMES",
                    "PEAK_OBSERVABLES", "DEFAULT_OBSERVABLE", "observable", "measure"),
    "peaks": ("SCAN", "inflection", "entropy_peak", "distractor_entropy_peak"),
    "quadrature": ("exact_mass", "exact_gamma_c", "argmax_limit", "one_minus_phi", "mass_given",
                   "integer_context_length", "MAX_REFINE"),
    "row_stats": ("RowMoments", "RowStatistics", "STATISTICS", "bump_expectations", "exact_row_stats",
                  "row_moments_given", "exact_entropy", "exact_distractor_entropy", "SIGMA_MAX"),
    "row_stats_mc": ("STATS", "RowStatsCurve", "simulate_row_stats", "per_sample_row_stats",
                     "score_polynomials"),
    "scoremodel": ("VARIANTS", "ScoreModel", "score_model", "resolve_model", "log_count", "distractors",
                   "context_length", "head_width"),
    "rotary": ("rope_frequencies", "rope_tables", "rotate_pairs", "rope", "place_shear", "sheared_stream",
               "coriolis_term"),
    "scores": ("coupling_split", "score_channels"),
    "shear": ("LATTICE", "momentum", "upper_shear", "lower_shear", "shear_step", "unshear_step", "lattice_couplings",
              "stream_taps", "stream_gain_sq"),
    "softmax": ("softmax_jacobian", "softmax_response"),
    "symplectic": ("nonlinear_shear", "shear_jacobian", "symplectic_shear_codimension", "symplectic_form",
                   "upper_shear_matrix", "lower_shear_matrix", "lattice_matrix"),
    "transition": ("CONDENSATION_C", "CONDENSATION_C_PAPER", "CONDENSATION_OBSERVABLE", "CriticalCoupling",
                   "gamma_c", "annealed_gamma_c", "condensed_gamma_c", "crossover_dk", "key_only_threshold",
                   "freezing_coupling", "t4_band", "t4_asymptote", "t3_asymptote", "t4_above_one_interval", "argmax_probability",
                   "argmax_plateau"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
