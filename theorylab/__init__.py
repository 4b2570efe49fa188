"""theorylab: compute, simulate and certify the claims of three ML-theory papers.

Start here -- one package per paper, each re-exporting its functions (``help(theorylab.psa)``):

* Phase Space Attention (PSA): ``theorylab.psa`` -- ``gamma_c('t4-only', 128, 512)``, ``exact_gamma_c``,
  ``mc_gamma_c``, ``simulate_mass``, ``measure``, ``compare_grid``;
* Power Law Graph Attention (PLGA): ``theorylab.plga`` -- ``init_params``, ``g_lm``, ``perron_frobenius``,
  ``notears_h``, ``twirl_statistics``;
* Graded LLMs (GLLM): ``theorylab.graded`` -- ``Lambda``, ``optimal_grades``, ``table3_row``, ``simulate``,
  ``learning_curves``;
* the NumPy transformer hosting their heads: ``theorylab.nn`` -- ``head``, ``random_decoder``, ``TrainConfig``;
* certificates from Python: ``theorylab.certify`` (``python -m theorylab certify --list`` on the command
  line); parameter sweeps: ``theorylab.sweep``. A walk-through: docs/from-python.md.

Scalar input gives Python scalars, arrays give arrays; result records with rows have ``rows()`` (a list
of dicts) and ``to_frame()`` (a ``pandas.DataFrame``, the optional extra ``theorylab[pandas]``).

Every public function validates its input once and raises
:class:`ParameterError` (a ``ValueError``) naming the parameter and its valid range.
"""
from theorylab import _moved

__all__ = ["ParameterError", "__version__"]

_moved.install()        # old import paths (theorylab.sim.*, theorylab.compare) for one release


def _installed_version() -> str:
    """The version of the installed distribution (setuptools-scm wrote it from git at install time).

    A source tree imported without being installed has no metadata: ``0+unknown``.
    """
    from importlib import metadata

    try:
        return metadata.version("theorylab")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str):
    # ParameterError is imported on first use, so ``import theorylab`` (and the CLI's start,
    # where Ctrl-C must already be handled) does not load NumPy; __version__ reads the metadata
    # once, on first use
    if name == "ParameterError":
        from theorylab.errors import ParameterError

        return ParameterError
    if name == "__version__":
        global __version__
        __version__ = _installed_version()
        return __version__
    raise AttributeError(f"module 'theorylab' has no attribute {name!r}")
