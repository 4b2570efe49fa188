"""theorylab: compute, simulate and certify the claims of three ML-theory papers.

* Phase Space Attention (PSA): ``theorylab.psa``
* Power Law Graph Attention (PLGA): ``theorylab.plga``
* Graded LLMs (GLLM): ``theorylab.graded``

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
