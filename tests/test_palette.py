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


# -- the relation plot's pair colours: told apart from each other and from the group colours --------------------
def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference, written from Sharma, Wu & Dalal (2005), eqs. 1-25 (kL = kC = kH = 1)."""
    import math

    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p - h1p > 180 else h2p - h1p + 360
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, c_barp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(c_barp**7 / (c_barp**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_barp, 1 + 0.015 * c_barp * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


def lab(hex_colour: str) -> tuple[float, float, float]:
    """sRGB (IEC 61966-2-1) -> CIE XYZ (D65) -> CIELAB."""
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    xyz = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b, 0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
           0.0193339 * r + 0.1191920 * g + 0.9503041 * b)
    fx, fy, fz = (t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
                  for t in (xyz[0] / 0.95047, xyz[1], xyz[2] / 1.08883))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


@pytest.mark.parametrize(("lab1", "lab2", "want"), [  # Sharma, Wu & Dalal (2005), Table 1, pairs 1, 7, 17, 18, 22, 25
    ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
    ((50, 0, 0), (50, -1, 2), 2.3669),
    ((50, 2.5, 0), (73, 25, -18), 27.1492),
    ((50, 2.5, 0), (61, -5, 29), 22.8977),
    ((50, 2.5, 0), (50, 3.1736, 0.5854), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_ciede2000_matches_the_published_test_data(lab1, lab2, want):
    assert ciede2000(lab1, lab2) == pytest.approx(want, abs=1e-4)
    assert ciede2000(lab2, lab1) == pytest.approx(want, abs=1e-4)


def test_lab_of_white_and_black():
    assert lab("#ffffff") == pytest.approx((100, 0, 0), abs=1e-3)
    assert lab("#000000") == pytest.approx((0, 0, 0), abs=1e-9)


def test_pair_colours_are_told_apart_from_each_other_and_from_the_first_group_colours():
    first, second = palette.PAIR_COLORS["pairs: first"], palette.PAIR_COLORS["pairs: second"]
    assert ciede2000(lab(first), lab(second)) >= 20
    for pair in (first, second):  # a relation plot's word groups take CATEGORICAL[0], [1], ... in order
        for group in palette.CATEGORICAL[:4]:
            assert ciede2000(lab(pair), lab(group)) >= 20, f"{pair} vs group colour {group}"
    # the case: the second words against the "neutral" group's orange (CATEGORICAL[1])
    assert ciede2000(lab(second), lab(palette.CATEGORICAL[1])) >= 20
    assert ciede2000(lab("#a96d00"), lab("#d9681e")) < 20  # the old gold vs orange: the measure catches it


def test_every_palette_colour_has_a_name_and_the_notebook_says_the_drawn_ones():
    import nbformat

    used = {*palette.CATEGORICAL, *palette.SET_COLORS.values(), *palette.PAIR_COLORS.values()}
    assert used <= set(palette.COLOR_NAMES)
    assert palette.color_name("#7D7D7D") == "grey" and palette.color_name("#123456") == "#123456"
    names = [palette.color_name(palette.PAIR_COLORS[g]) for g in ("pairs: first", "pairs: second")]
    phrase = f"{names[0]} and {names[1]} dots"
    for notebook in ("relation_projection.ipynb", "demo.ipynb"):
        text = " ".join(c.source for c in nbformat.read(ROOT / "notebooks" / notebook, 4).cells
                        if c.cell_type == "markdown").lower()
        assert phrase in " ".join(text.split()), f"{notebook} should say '{phrase}'"
        for stale in ("red and orange", "the grey dots are"):
            assert stale not in text, f"{notebook} still says '{stale}'"
