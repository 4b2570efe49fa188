"""Argument types and options shared by the commands: integers with documented ranges, seeds,
non-empty paths, text (free text and names: UTF-8 only), the marker of options that name a file to
read (:func:`reads_file`), the file outputs (``-o/--out``, ``--plot``), ``--no-progress``, the
resource limits (``--max-memory``, ``--max-time``), deprecated spellings (:func:`deprecated`) and
options a mode does not read.

Integer options accept decimal integers and exact integral values in scientific notation
(``20000``, ``2e4``); anything else (``1.5``, ``nan``, ``inf``, an out-of-range value) is a
one-line usage error naming the option and its range.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from theorylab import resources
from theorylab.errors import ParameterError

COUNT_HIGH = 2**63 - 1
"""Largest count any command accepts (a signed 64-bit integer); the resource check bounds it further."""
SEED_HIGH = 2**64 - 1
"""Seeds are any integer in [0, 2^64)."""


def _range(low: int, high: int) -> str:
    if high == SEED_HIGH:
        return f"in [{low}, 2^64)"
    if high == COUNT_HIGH:
        return f">= {low}"
    return f"in [{low}, {high}]"


def to_int(text: str) -> int | None:
    """The integer ``text`` denotes exactly (``"2e4"`` -> 20000), or None (``"1.5"``, ``"nan"``, ...).

    Values above 10^40 are returned as None too (no option accepts them; it avoids building
    astronomically large integers from ``1e999999999``)."""
    try:
        d = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite() or d.adjusted() > 40 or d != d.to_integral_value():
        return None
    return int(d)


def integer(low: int = 1, high: int = COUNT_HIGH):
    """An argparse ``type``: an integer in ``[low, high]``."""
    def parse(text: str) -> int:
        value = to_int(text)
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer {_range(low, high)} (got {text!r})")
        return value

    parse.__name__ = "integer"
    return parse


def real(low: float, high: float):
    """An argparse ``type``: a finite real number in ``[low, high]``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a real number in [{low:g}, {high:g}] (got {text!r})")
        return value

    parse.__name__ = "real"
    return parse


seed = integer(0, SEED_HIGH)
"""An argparse ``type`` for seeds: any integer in [0, 2^64), the same in every command."""
SEED_HELP = "an integer in [0, 2^64)"


def path(text: str) -> str:
    """An argparse ``type`` for a file path: any non-empty string (an empty path is refused, never ignored)."""
    if text == "":
        raise argparse.ArgumentTypeError("must name a file (got an empty path)")
    return text


@dataclass(frozen=True)
class InputFile:
    """What an option reads (see :func:`reads_file`)."""

    format: str
    """The kind of file, e.g. ``"report"``, ``"prereg"``, ``"spec"``, ``"store"``, ``"numbers"``."""
    inline: bool = False
    """The option also takes text that names no file (inline numbers, a keyword such as ``paper``)."""
    beside: tuple[str, str] | None = None
    """``(option, suffix)``: the file read is the value of that other option plus ``suffix`` (a journal)."""


def reads_file(action: argparse.Action, format: str, *, inline: bool = False,
               beside: tuple[str, str] | None = None) -> argparse.Action:
    """Mark ``action`` (what ``add_argument`` returned) as naming a file the command reads.

    Every such file is read through :func:`theorylab._io.read_bytes` / ``read_text`` (or, for a sweep
    store, checked to be a regular file before SQLite opens it); the mark lets the adversarial suite
    (``tests/test_cli_hostile_files.py``) find every input option of every command and feed it hostile
    files, so a new option inherits those checks by being marked.

    Parameters
    ----------
    action : the option (or positional argument) as returned by ``add_argument``.
    format : the kind of file it names (see :class:`InputFile`).
    inline : whether a value that names no existing file is read as inline text.
    beside : ``(option, suffix)`` when the file is not named by this option's value but is the value
        of ``option`` plus ``suffix`` (``mutate --resume`` reads ``--json PATH`` + ``.partial.jsonl``).

    Returns
    -------
    argparse.Action
        ``action``, with the attribute ``input_file`` (an :class:`InputFile`).
    """
    action.input_file = InputFile(format, inline, beside)
    return action


def text(value: str) -> str:
    """An argparse ``type`` for free text and names (a title, certificate ids, variants, ...): text
    that can be encoded as UTF-8.

    An argument holding bytes that are not UTF-8 reaches Python as lone surrogates
    (``surrogateescape``: ``$'\\xff'`` becomes ``'\\udcff'``), which no renderer, file or strict
    stream can take; it is refused here, so every option of this type refuses it the same way.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"must be text that can be encoded as UTF-8 (got {value!r}, which "
                                         f"holds bytes that are not UTF-8)") from None
    return value


def _size(text: str) -> float:
    try:
        return resources.parse_size(text, "size")
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("size ")) from None


def _duration(text: str) -> float:
    try:
        return resources.parse_duration(text, "duration")
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("duration ")) from None


def add_resource_options(parser) -> None:
    """Add ``--max-memory`` and ``--max-time`` (read by :func:`check_cost`)."""
    g = parser.add_argument_group("resource limits (checked before anything is allocated)")
    g.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help=f"refuse a request estimated to need more memory than SIZE, e.g. 16G (default: half "
                        f"of the available memory, or ${resources.MEMORY_ENV})")
    g.add_argument("--max-time", type=_duration, metavar="DURATION",
                   help=f"refuse a request estimated to take longer than DURATION, e.g. 90s, 30m, 2h (default "
                        f"{resources.DEFAULT_MAX_SECONDS / 60:g}m, or ${resources.TIME_ENV})")


def check_cost(args, cost: resources.Cost) -> resources.Cost:
    """Refuse ``cost`` (one line, exit 2) if it exceeds the limits of ``args`` / the environment / the defaults."""
    return resources.check(cost, resources.limits(getattr(args, "max_memory", None), getattr(args, "max_time", None)))


def refuse_unread(unread: dict[str, bool], mode: str) -> None:
    """Raise if an option the mode does not read was given: ``unread`` maps ``--option`` to whether it was."""
    given = [name for name, was_given in unread.items() if was_given]
    if given:
        raise ParameterError(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} not read {mode}")


def writes_file(action: argparse.Action) -> argparse.Action:
    """Mark ``action`` (what ``add_argument`` returned) as naming a file the command writes.

    The vocabulary test (``tests/test_cli_vocabulary.py``) checks that every marked option is spelled as
    :data:`theorylab.cli._vocabulary.OUTPUT_OPTIONS` allows and that every path option is marked as read
    (:func:`reads_file`) or written. Returns ``action`` with the attribute ``output_file = True``.
    """
    action.output_file = True
    return action


def add_out_option(parser, what: str, **kwargs) -> argparse.Action:
    """Add ``-o/--out PATH``: the file the command writes its result to (``what`` completes the help)."""
    return writes_file(parser.add_argument("-o", "--out", metavar="PATH", type=path, help=f"write {what}", **kwargs))


def add_plot_option(parser, what: str) -> argparse.Action:
    """Add ``--plot FIG``: a figure written beside the printed result (``what`` names it)."""
    return writes_file(parser.add_argument("--plot", metavar="FIG", type=path, default=None,
                                           help=f"also write {what} to this file, in the format of its suffix "
                                                f"(.png, .pdf or .svg; in an existing folder)"))


def add_progress_option(parser) -> argparse.Action:
    """Add ``--no-progress`` (read by :func:`show_progress`)."""
    return parser.add_argument("--no-progress", action="store_true",
                               help="never show a progress bar (none is shown when stderr is not a terminal)")


def show_progress(args) -> bool:
    """Whether the command may show a progress bar: not ``--no-progress``, and stderr is a terminal."""
    from theorylab._progress import stderr_is_terminal

    return not args.no_progress and stderr_is_terminal()


class DeprecatedOption(argparse.Action):
    """A former spelling of an option, still read for one release: it stores its value where the new
    spelling does and prints one line on stderr, ``theorylab CMD: --old is deprecated; use --new``."""

    def __init__(self, option_strings, dest, use: str, **kwargs):
        self.use = use
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} is deprecated; use {self.use}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def deprecated(parser, old: str, action: argparse.Action) -> argparse.Action:
    """Accept ``old`` (hidden from the help) as a deprecated spelling of ``action``, an option taking a value.

    Parameters
    ----------
    parser : the (sub)parser ``action`` belongs to.
    old : the former option string, e.g. ``"--json"``.
    action : the option as returned by ``add_argument``; ``old`` takes its type, nargs, choices and dest.

    Returns
    -------
    argparse.Action
        The hidden :class:`DeprecatedOption`.
    """
    use = next(o for o in action.option_strings if o.startswith("--"))
    return parser.add_argument(old, dest=action.dest, action=DeprecatedOption, use=use, type=action.type,
                               nargs=action.nargs, choices=action.choices, metavar=action.metavar,
                               default=argparse.SUPPRESS, help=argparse.SUPPRESS)
