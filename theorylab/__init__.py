"""theorylab: compute, simulate and certify the claims of three ML-theory papers.

* Phase Space Attention (PSA): ``theorylab.psa``
* Power Law Graph Attention (PLGA): ``theorylab.plga``
* Graded LLMs (GLLM): ``theorylab.graded``

Every public function validates its input once and raises
:class:`ParameterError` (a ``ValueError``) naming the parameter and its valid range.
"""
from theorylab import _moved

__version__ = "0.1.0"
__all__ = ["ParameterError", "__version__"]

_moved.install()        # old import paths (theorylab.sim.*, theorylab.compare) for one release


def __getattr__(name: str):
    # ParameterError is imported on first use, so ``import theorylab`` (and the CLI's start,
    # where Ctrl-C must already be handled) does not load NumPy
    if name == "ParameterError":
        from theorylab.errors import ParameterError

        return ParameterError
    raise AttributeError(f"module 'theorylab' has no attribute {name!r}")
