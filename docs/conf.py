"""Sphinx configuration of the theorylab documentation site.

Build (warnings are errors, as in CI; ``.ci/run``)::

    pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The Markdown pages are read by MyST; the API reference (``docs/reference/``) is generated from each
paper package's ``__all__`` by ``docs/apiref.py``, run here at the start of each build
(tests/test_docs_reference.py checks that it lists every name).
"""
import re
import sys
from pathlib import Path

import theorylab

sys.path.insert(0, str(Path(__file__).parent))
import apiref  # noqa: E402  (docs/apiref.py, beside this file)

apiref.write(Path(__file__).parent / "reference")   # the API reference, from each package's __all__

project = "theorylab"
author = "theorylab developers"
copyright = "theorylab developers"
release = theorylab.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# MyST: "#section" links of the Markdown pages resolve to heading anchors (h1-h4)
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

# autodoc + napoleon: numpydoc-style docstrings; the reference pages list every name themselves
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = False   # "Attributes" entries as attribute entries of the class ("name : text" shows as "name: text")
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"   # no bare parameter list for a dataclass

html_theme = "pydata_sphinx_theme"
html_title = f"theorylab {release}"
html_theme_options = {"navigation_with_keys": False}


_ENTRY = re.compile(r"^(\S[^:]*?) : (.+)$")


def _attributes_as_descriptions(app, what, name, obj, options, lines):
    """The library's "Attributes" sections read ``name : what it is`` (a description, not a type): give
    napoleon the text as the entry's description, so that it is not rendered as a type."""
    in_section = False
    for i, line in enumerate(list(lines)):
        header = i + 1 < len(lines) and lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"}
        if header and line.strip():
            in_section = line.strip() == "Attributes"
        elif in_section and (m := _ENTRY.match(line)):
            lines[i] = m.group(1) + "\n    " + m.group(2)
    lines[:] = "\n".join(lines).split("\n")


def _drop_inherited_docstring(app, what, name, obj, options, lines):
    """A constant's entry shows its attribute docstring (docs/apiref.py puts it in the entry), never the
    docstring of its type (``dict``, ``tuple``, ``numpy.ndarray``, a record class documented itself)."""
    if what == "data":
        lines.clear()


def _skip_field_aliases(app, what, name, obj, skip, options):
    """A NamedTuple's fields are described by its class docstring, not as "Alias for field number N"."""
    if (getattr(obj, "__doc__", None) or "").startswith("Alias for field number"):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _attributes_as_descriptions, priority=400)   # before napoleon
    app.connect("autodoc-process-docstring", _drop_inherited_docstring)
    app.connect("autodoc-skip-member", _skip_field_aliases)
