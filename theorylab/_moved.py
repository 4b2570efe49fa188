"""Old import paths of modules that moved to one package per paper: thin deprecated aliases.

``import theorylab.sim.exact`` (and ``from theorylab.compare import compare_grid``, and the mutation
harness's old home ``theorylab.certify.mutation``) keep working
for one release: the old name is bound to the new module itself (never a second copy of it, so
registries and caches stay single) and a ``DeprecationWarning`` names the new path. Removed in
the release after next; see CHANGELOG.md.

Names that moved out of a module that still exists (a module split along its seams) work the same
way, one name at a time: :data:`MOVED_NAMES` lists them and the old module's ``__getattr__``
(:func:`names_getattr`) hands out the new module's object with a ``DeprecationWarning``, so
``from theorylab.psa.transition import crossing_root`` keeps working for one release.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "theorylab.sim.exact": "theorylab.psa.quadrature",
    "theorylab.sim.row_stats": "theorylab.psa.row_stats",
    "theorylab.sim.row_stats_mc": "theorylab.psa.row_stats_mc",
    "theorylab.sim.competition": "theorylab.psa.montecarlo",
    "theorylab.sim.observables": "theorylab.psa.observables",
    "theorylab.sim.induction": "theorylab.psa.induction",
    "theorylab.compare": "theorylab.psa.compare",
    "theorylab.sim.ladder": "theorylab.graded.ladder_sim",
    "theorylab.sim.graded_risk": "theorylab.graded.risk_sim",
    "theorylab.sim.rng": "theorylab.rng",
    "theorylab.sim.sweep": "theorylab.sweep",
    "theorylab.certify.mutation_files": "theorylab.mutation.files",
    "theorylab.certify.mutation": "theorylab.mutation.run",
    "theorylab.certify.mutants": "theorylab.mutation.mutants",
    "theorylab.certify.planting": "theorylab.mutation.planting",
    "theorylab.certify.linecov": "theorylab.mutation.linecov",
    "theorylab.certify.callgraph": "theorylab.mutation.callgraph",
}
"""Old module -> new module (a package's submodules follow it: theorylab.sim.sweep.spec -> theorylab.sweep.spec)."""


MOVED_NAMES: dict[str, dict[str, str]] = {
    "theorylab.psa.transition": {n: "theorylab.psa.crossing" for n in (
        "crossing_polynomial", "crossing_residual", "crossing_root", "_crossing_polynomial", "_polyval_rows")},
    "theorylab.psa.montecarlo": {
        **{n: "theorylab.psa.mc_crossing" for n in ("MCGammaC", "mc_gamma_c", "first_crossing", "mc_gamma_c_cost",
                                                     "_mc_gamma_c", "_first_crossing", "_COARSE")},
        **{n: "theorylab.psa.mc_kernels" for n in ("exp32", "exp64")}},
    "theorylab.psa.observables": {
        **{n: "theorylab.psa.measurement" for n in ("METHODS", "Measurement", "_check")},
        **{n: "theorylab.psa.peaks" for n in (
            "SCAN", "inflection", "entropy_peak", "distractor_entropy_peak", "EXACT_PEAK_SECONDS", "_EXACT_PEAK_BYTES",
            "_STENCIL", "_SECOND", "_REL_STEP", "_interval", "_Peak", "_col", "_exact_entropy",
            "_exact_distractor_entropy", "_exact_mass", "_entropy_peak_spec", "_PEAKS", "_interior_argmax", "_exact_peak",
            "_exact_peak_search", "_crossing_near", "_mc_peak", "_peak")}},
    "theorylab.psa.induction": {
        **{n: "theorylab.psa.moments" for n in (
            "BULK_MIN_T", "ChannelMoments", "channel_moments", "rope_match_factor", "comparison_rows", "moments_cost",
            "MOMENT_SECONDS", "_se", "_couplings")},
        **{n: "theorylab.psa.masses" for n in (
            "MEMBERS", "MASS_VARIANT", "scores_at", "target_mass", "mass_rows", "mass_rows_cost", "MASS_SECONDS")},
        **{n: "theorylab.psa.positional" for n in (
            "coriolis_gain", "coriolis_band_ratios", "cesaro_averages", "envelope_slope")}},
    "theorylab.psa.shear": {
        **{n: "theorylab.psa.symplectic" for n in (
            "symplectic_form", "upper_shear_matrix", "lower_shear_matrix", "lattice_matrix", "nonlinear_shear",
            "shear_jacobian", "symplectic_shear_codimension", "_blocks", "_width")},
        **{n: "theorylab.psa.rotary" for n in (
            "rope_frequencies", "rope_tables", "rotate_pairs", "rope", "place_shear", "sheared_stream", "coriolis_term",
            "_rotate_pairs")},
        **{n: "theorylab.psa.scores" for n in ("score_channels", "coupling_split")}},
}
"""Module that still exists -> {name that moved out of it: the module that defines it now}."""


def names_getattr(module: str):
    """The module-level ``__getattr__`` (PEP 562) of ``module``: :func:`moved_names` over ``MOVED_NAMES[module]``."""
    return moved_names(module, MOVED_NAMES[module])


def new_name(old: str) -> str | None:
    """The module that ``old`` names now, or None if ``old`` did not move."""
    for before, after in MOVED.items():
        if old == before or old.startswith(before + "."):
            return after + old[len(before):]
    return None


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name only after the ordinary finders did not (no file of that name exists)."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if new_name(fullname) else None

    def create_module(self, spec):
        new = new_name(spec.name)
        warnings.warn(f"{spec.name} moved to {new}; the old name goes in the release after next",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """The new module is already executed."""


def install() -> None:
    """Put the alias finder last on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())


def moved_names(module: str, names: dict[str, str]):
    """A module ``__getattr__`` (PEP 562) for names that moved out of a module that stays.

    ``names`` maps each moved name to the module that holds it now: ``from module import name`` keeps
    working for one release, bound to the new module's object itself, with a ``DeprecationWarning``
    naming the new path. Any other missing name raises ``AttributeError`` as usual.

    Parameters
    ----------
    module : the old module's ``__name__``.
    names : moved name -> its new module.

    Returns
    -------
    The ``__getattr__`` function to bind in the old module.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = moved_names("old", {"sqrt": "math"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("sqrt")(4.0), str(caught[0].message)
    (2.0, 'old.sqrt moved to math.sqrt; the old name goes in the release after next')
    """
    def __getattr__(name: str):
        new = names.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} moved to {new}.{name}; the old name goes in the release after next",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__
