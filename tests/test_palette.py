"""One palette: readable on JupyterLab Light and Dark, and the same in the widgets and the altair charts."""

import json
from pathlib import Path

import pytest

from embias_widgets import palette

ROOT = Path(__file__).resolve().parent.parent
BACKGROUNDS = {"light": "#ffffff", "dark layout-color0": "#111111", "dark layout-color1": "#212121"}


def luminance(hex_colour: str) -> float:
    """WCAG 2.1 relative luminance."""
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_matches_wcag_reference_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey


@pytest.mark.parametrize("colour", sorted({*palette.CATEGORICAL, *palette.SET_COLORS.values(),
                                           *palette.PAIR_COLORS.values(), *palette.LIKELIHOOD_COLORS.values(),
                                           *palette.SIGN_COLORS.values()}))
def test_every_mark_colour_reads_on_light_and_dark(colour):
    for name, bg in BACKGROUNDS.items():
        assert contrast(colour, bg) >= 3.0, f"{colour} on {name} ({bg}): {contrast(colour, bg):.2f} < 3"


def test_roles_use_distinct_colours():
    assert len(set(palette.SET_COLORS.values())) == 4
    assert palette.LIKELIHOOD_COLORS["stereo"] != palette.LIKELIHOOD_COLORS["anti"]
    assert len(set(palette.CATEGORICAL)) == len(palette.CATEGORICAL)


def test_group_colours_follow_the_front_end_rule():
    colours = palette.group_colors(["pairs: first", "pairs: second", "men", "women", "men"])
    assert colours == {"pairs: first": palette.PAIR_COLORS["pairs: first"],
                       "pairs: second": palette.PAIR_COLORS["pairs: second"],
                       "men": palette.CATEGORICAL[0], "women": palette.CATEGORICAL[1]}


def test_association_chart_colours_sets_as_the_widget_does(glove):
    from embias_widgets.analysis import AssociationTest

    result = AssociationTest("weat6", model=glove).run()
    spec = result.chart().to_dict()
    scale = spec["encoding"]["color"]["scale"]
    assert scale["domain"] == [result.categories["targ1"], result.categories["targ2"]]
    assert scale["range"] == [palette.SET_COLORS["targ1"], palette.SET_COLORS["targ2"]]


def test_palette_module_imports_nothing_from_widgets():
    text = (ROOT / "embias_widgets" / "palette.py").read_text()
    assert "from ." not in text and "import embias_widgets" not in text
    assert json.loads((ROOT / "embias_widgets" / "palette.json").read_text())["sets"] == palette.SET_COLORS
