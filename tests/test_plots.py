"""Figures compose: no plot function touches the session's backend or rcParams, each returns a Figure
and draws into the caller's Axes (``ax=``); saving writes the format of the suffix; the figure defects
of issue 21 (overprinted arm names, 6x10^1 ticks, a RoPE run beside a model without RoPE) stay fixed."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from theorylab.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]


def sweep_rows():
    """gamma_c rows of two variants on a dk x T grid (the shape of a sweep store's export)."""
    rows = []
    for variant, shift in (("t4-only", 0.0), ("key-only", 0.05)):
        for dk in (64, 128, 256):
            for T in (64, 512):
                mc = 0.5 + shift + 0.001 * dk / T
                rows.append({"variant": variant, "dk": dk, "T": T, "law_gamma_c": mc * 1.01,
                             "exact_gamma_c": mc * 0.999, "mc_gamma_c": mc, "mc_ci_low": mc - 0.01,
                             "mc_ci_high": mc + 0.01})
    return rows


def induction_rows():
    g = [0.5, 1.0]
    moments = [{"g": x, "channel": ch, "gap": 1.0 * x, "gap_se": 0.1, "gap_model": x, "gap_model_rope": 0.35 * x,
                "var": 1.0 + x, "var_se": 0.1, "var_model": 1.0 + x} for x in g for ch in ("T1", "T3", "T4")]
    moments += [{"g": x, "channel": "cov(T3,T4)", "gap": None, "gap_se": None, "gap_model": None,
                 "gap_model_rope": None, "var": 2 * x ** 3, "var_se": 0.1, "var_model": 2 * x ** 3} for x in g]
    mass = [{"g": x, "member": "symmetric", "target_mass": 0.3 * x, "target_mass_se": 0.01, "accuracy": 0.4 * x,
             "mass_model": 0.9 * x, "model_variant": "t3-inclusive"} for x in g]
    return moments, mass


def ladder_result():
    """A ladder whose four educated arms sit within 4 % of each other: their names used to overprint."""
    arms = [("uniform", 0.0, 1.0), ("random", -0.05, 1.05), ("taxonomic", 0.402, 1.19), ("proxy", 0.418, 1.18),
            ("educated", 0.426, 1.176), ("oracle", 0.436, 1.165)]
    rows = [{"arm": a, "ip_hat": ip, "efficiency": e, "eff_lo": e - 0.01, "eff_hi": e + 0.01,
             "inv_Lambda_true": e + 0.6, "Lambda_hat": 1 / (e + 0.62), "risk_ratio_ref": 1 / (e + 0.5),
             "rr_lo": 1 / (e + 0.52), "rr_hi": 1 / (e + 0.48)} for a, ip, e in arms]
    summary = {"target_fraction": 0.5, "spearman_efficiency": 0.37, "m_ref": 45, "spearman_risk_ratio": 1.0,
               "design": "geometric nu=0.6, mu=0.3"}
    return SimpleNamespace(rows=rows, summary=summary)


def test_figures_leave_a_notebook_backend_alone_and_import_no_pyplot():
    """In a fresh session whose user chose the svg backend (as a notebook chooses its inline one), every
    figure function returns a Figure, the backend is still svg afterwards and pyplot was never imported."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        import matplotlib
        matplotlib.use("svg")
        from matplotlib.figure import Figure
        import test_plots as t
        from theorylab.plots import sweep, observables, induction, ladder, trained, check_text
        moments, mass = t.induction_rows()
        curve = {{"label": "a", "gamma": [0.1, 0.5, 1.0], "mass": [0.1, 0.5, 0.9], "entropy": [3.0, 2.0, 0.5],
                  "marks": {{"entropy-peak": 0.5, "law": 0.6}}}}
        figures = [sweep.predicted_vs_simulated(t.sweep_rows()), sweep.gamma_c_along(t.sweep_rows()),
                   sweep.mass_curves([{{"variant": "v", "dk": 16, "T": 64, "gamma": g, "exact_mass": g,
                                        "mc_mass": g, "mc_se": 0.01}} for g in (0.1, 0.5)]),
                   observables.transition_curves([curve]),
                   observables.condensation_ratio_along_T({{"entropy-peak": ([16, 64, 256], [0.7, 0.75, 0.8])}}),
                   induction.channel_figure(moments, mass), ladder.ladder_figure(t.ladder_result()),
                   trained.accuracy_curves([{{"variant": "key-only", "gamma": 2.0, "mean": 0.7, "t_low": 0.6,
                                              "t_high": 0.8}}]),
                   trained.tap_histories([[{{"step": 0, "q_b0": 1, "q_b1": 0, "k_b0": 1, "k_b1": 0}}]])]
        check_text("--title", "a title")
        assert all(isinstance(f, Figure) for f in figures), [type(f) for f in figures]
        print(matplotlib.get_backend(), "matplotlib.pyplot" in sys.modules, len(figures))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["svg", "False", "9"]


def test_ax_draws_into_the_callers_axes_and_returns_their_figure():
    from matplotlib.figure import Figure

    from theorylab.plots.induction import channel_figure
    from theorylab.plots.sweep import predicted_vs_simulated

    host = Figure()
    ax = host.add_subplot(1, 2, 1)
    assert predicted_vs_simulated(sweep_rows(), ax=ax) is host
    assert len(ax.containers) == 2 and len(ax.lines) >= 1          # two variants' error bars, the identity line
    assert len(host.axes) == 2 - 1                                 # no Axes added
    moments, mass = induction_rows()
    three = Figure().subplots(1, 3)
    assert channel_figure(moments, mass, ax=three) is three[0].figure
    assert all(len(a.lines) > 0 for a in three)
    with pytest.raises(ParameterError, match=r"^ax must be a sequence of 3 matplotlib Axes \(got list of 2\)$"):
        channel_figure(moments, mass, ax=list(three[:2]))


def test_plot_compare_and_compare_plot_share_one_figure_function():
    """One implementation per figure: the psa module's duplicate is gone, compare --plot calls the sweep one."""
    assert not (ROOT / "theorylab" / "plots" / "psa.py").exists()
    source = (ROOT / "theorylab" / "cli" / "compare.py").read_text()
    assert "predicted_vs_simulated" in source and "comparison_figure" not in source


@pytest.mark.parametrize("suffix, head", [(".pdf", b"%PDF"), (".png", b"\x89PNG\r\n\x1a\n"), (".svg", None)])
def test_save_writes_the_format_of_the_suffix(tmp_path, suffix, head):
    from theorylab.plots import save
    from theorylab.plots.sweep import gamma_c_along

    path = tmp_path / f"fig{suffix.upper()}"                       # the suffix is read case-insensitively
    assert save(gamma_c_along(sweep_rows()), str(path)) == str(path)
    data = path.read_bytes()
    if head is not None:
        assert data.startswith(head)
    else:
        assert ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]          # no temporary left


def test_save_refuses_another_suffix_in_one_line(tmp_path):
    from theorylab.plots import save
    from theorylab.plots.sweep import gamma_c_along

    with pytest.raises(ParameterError) as info:
        save(gamma_c_along(sweep_rows()), str(tmp_path / "f.jpg"), "--plot")
    assert str(info.value) == f"--plot must name a .png or .pdf or .svg file (got '{tmp_path / 'f.jpg'}')"
    assert list(tmp_path.iterdir()) == []


def test_cli_bad_figure_suffix_is_one_line_naming_option_and_suffixes(tmp_path, capsys):
    from theorylab.cli import main

    assert main(["induction", "--dk", "8", "--T", "16", "--samples", "50", "--plot", str(tmp_path / "f.jpeg")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("theorylab induction: error: --plot must name a .png or .pdf or .svg file")


def test_cli_writes_pdf_and_svg(tmp_path, capsys):
    from theorylab.cli import main

    for suffix in (".pdf", ".svg"):
        path = tmp_path / f"ind{suffix}"
        assert main(["induction", "--dk", "8", "--T", "16", "--samples", "50", "--gamma", "0.5", "--plot",
                     str(path), "--format", "json"]) == 0
        data = path.read_bytes()
        assert data.startswith(b"%PDF") if suffix == ".pdf" else ET.fromstring(data).tag.endswith("}svg")
    capsys.readouterr()


def test_write_figure_draws_in_the_house_style_and_restores_the_session(tmp_path):
    import matplotlib

    from theorylab.plots import STYLE, write_figure
    from theorylab.plots.sweep import mass_curves

    seen = {}

    def plot():
        seen["legend.fontsize"] = matplotlib.rcParams["legend.fontsize"]
        return mass_curves([{"variant": "v", "dk": 16, "T": 64, "gamma": 0.5, "exact_mass": 0.5}])

    before = dict(matplotlib.rcParams)
    write_figure(str(tmp_path / "m.png"), plot)
    assert seen["legend.fontsize"] == STYLE["legend.fontsize"]
    assert dict(matplotlib.rcParams) == before


def test_log_axes_over_dk_and_T_are_labelled_with_plain_integers():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from theorylab.plots.observables import condensation_ratio_along_T
    from theorylab.plots.sweep import gamma_c_along

    for fig, want in ((gamma_c_along(sweep_rows(), axis="dk"), ["64", "128", "256"]),
                      (gamma_c_along(sweep_rows(), axis="T"), ["64", "512"]),
                      (condensation_ratio_along_T({"x": ([16, 60, 256], [0.7, 0.8, 0.9])}), ["16", "60", "256"])):
        FigureCanvasAgg(fig).draw()
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == want
        assert [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()] == []


def test_ladder_arm_names_do_not_overprint():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from theorylab.plots.ladder import ladder_figure

    fig = ladder_figure(ladder_result())
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    arms = {r["arm"] for r in ladder_result().rows}
    for ax in fig.axes:
        boxes = [Text.get_window_extent(t, renderer) for t in ax.texts if t.get_text() in arms]   # the text, no line
        assert len(boxes) == len(arms)
        overlaps = [(i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])]
        assert overlaps == []


def test_induction_mass_panel_sets_the_model_beside_a_run_without_rope_only():
    from theorylab.plots.induction import channel_figure

    moments, mass = induction_rows()
    plain = channel_figure(moments, mass, rope_match_factor=1.0).axes[2]
    rope = channel_figure(moments, mass, rope_match_factor=0.35).axes[2]
    assert [line.get_label() for line in plain.lines if "reduced model" in line.get_label()] == \
        ["reduced model (t3-inclusive)"]
    assert [line.get_label() for line in rope.lines if "reduced model" in line.get_label()] == []
    assert "RoPE run (factor 0.35)" in rope.get_title()


def test_accuracy_curves_mark_each_paper_number_in_its_variants_colour():
    from theorylab.plots.trained import accuracy_curves

    rows = [{"variant": v, "gamma": g, "mean": 0.5, "t_low": 0.4, "t_high": 0.6}
            for v, g in (("standard", 0.0), ("symmetric", 2.0), ("symmetric", 4.0))]
    ax = accuracy_curves(rows, paper={"symmetric": [(4.0, 0.834)]}).axes[0]
    (cross,) = [line for line in ax.lines if line.get_marker() == "x"]
    assert cross.get_color() == ax.containers[1].lines[0].get_color()      # symmetric's colour, not standard's
    assert list(cross.get_xdata()) == [4.0] and list(cross.get_ydata()) == [0.834]


def test_a_dense_log_grid_keeps_plain_integer_labels_at_readable_spacing():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from theorylab.plots.observables import condensation_ratio_along_T

    T = [9, 12, 16, 24, 29, 32, 40, 48, 64, 94, 128, 256, 302, 512, 972, 1024, 2048, 3147, 4096, 8192, 16384, 32768]
    fig = condensation_ratio_along_T({"x": (T, np.full(len(T), 0.7))})
    FigureCanvasAgg(fig).draw()
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["16", "64", "256", "1024", "4096", "16384"]          # grid values, powers of two first
