"""The sweep tasks the engine can run: a task name -> the module that implements it.

The engine (spec loading, points and chunks, the store, executors, resume, store readers) is
generic; what a sweep computes is a *task*, a module named in :data:`TASKS` by its dotted path
and imported on first use (:func:`task`). The engine never imports a task statically: a store
or a worker finds the task from the spec alone (its ``task`` name, :data:`DEFAULT_TASK` when
absent), so nothing has to be imported first for a task to be known, and ``import
theorylab.sweep`` stays light.

A task module provides (see :mod:`theorylab.psa.sweep`, the PSA task, for a complete one):

``PARAMETER_COLUMNS``, ``RESULT_COLUMNS``
    ``(name, SQL type)`` pairs: the store columns of a point's parameters (after ``idx``,
    before ``seed``) and of its results.
``spec_from_dict(data, source)``
    Validate the parsed TOML tables (without ``sweep.task``) into a spec: an instance of a
    subclass of :class:`theorylab.sweep.spec.SweepSpec` whose ``task`` is the task's name.
``spec_from_canonical(record, source)``
    The spec whose ``canonical()`` dict is ``record``, validated again.
``points(spec)``
    Every point in canonical order: objects with ``index``, ``key``, ``seed``, ``group``
    (points computed together) and ``parameters()`` (the parameter columns as a dict).
``fits(spec, chunk, point)``, ``default_chunk_size(spec)``
    Whether a point may join a (non-empty) chunk; points per task when the spec sets none.
``compute_group(spec, group)``
    The result columns of the points of one group (runs on a worker).
``task_memory(spec, threads)``, ``describe_request(spec)``
    Upper estimate in bytes of one task's allocation; a short text naming the request.
``status_fields(spec)``
    The task's own fields of ``theorylab sweep status``.
``WHOLE_NUMBER_COLUMNS``
    Parameter columns that store readers give as ints where whole (the store keeps them REAL).
"""
from __future__ import annotations

import importlib
from types import ModuleType

from theorylab.errors import ParameterError

TASKS = {"psa": "theorylab.psa.sweep", "train": "theorylab.nn.sweep"}
"""Registered tasks: name -> dotted module path (imported by :func:`task` on first use)."""
DEFAULT_TASK = "psa"
"""The task of a spec or store that names none (every one written before tasks were named)."""
REQUIRED = ("PARAMETER_COLUMNS", "RESULT_COLUMNS", "spec_from_dict", "spec_from_canonical", "points", "fits",
            "default_chunk_size", "compute_group", "task_memory", "describe_request", "status_fields",
            "WHOLE_NUMBER_COLUMNS")
"""What every task module provides (see the module docstring)."""


def task(name: str) -> ModuleType:
    """The module of the registered task ``name`` (imported on first use).

    Parameters
    ----------
    name : str
        A key of :data:`TASKS`.

    Returns
    -------
    module
        The task module, checked to provide every name of :data:`REQUIRED`.

    Raises
    ------
    ParameterError
        ``name`` is not a registered task.

    Examples
    --------
    The default task (PSA's reduced model) is a module:

    >>> import theorylab.sweep as sweep
    >>> sweep.task('psa').__name__
    'theorylab.psa.sweep'
    """
    if not isinstance(name, str) or name not in TASKS:
        raise ParameterError(f"sweep.task must be one of {', '.join(sorted(TASKS))} (got {name!r})")
    module = importlib.import_module(TASKS[name])
    missing = [attr for attr in REQUIRED if not hasattr(module, attr)]
    if missing:
        raise TypeError(f"sweep task {name!r} ({TASKS[name]}) does not provide {', '.join(missing)}")
    return module


def task_of(spec) -> ModuleType:
    """The task module of a validated spec (its ``task`` name).

    Examples
    --------
    A spec's task module:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> sweep.task_of(spec).__name__
    'theorylab.psa.sweep'
    """
    return task(spec.task)
