"""The filter builder's style sheet against JupyterLab's (issue 33): a widget's output sits in
JupyterLab's output area, whose rules for elements (``.jp-OutputArea-output pre``,
``.jp-RenderedHTMLCommon td``, ...) set padding, borders, alignment and fonts on every such
element in an output. A builder.css rule that sets the same property on the same element must
be more specific, else JupyterLab's wins: the text form and the JSON lost their padding (and
border), so that the copy buttons sat on the text. JupyterLab's CSS is read from nbconvert's
``lab`` template, a copy of JupyterLab's own (scripts/screenshot-notebooks.py shows the widget
in a real JupyterLab)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import escpush.widget

WIDGET = Path(escpush.widget.__file__).parent
# The output area's containers: a widget's view is inside the first, and the second is the
# HTML renderer's (where some front ends draw widgets too).
OUTPUT_SCOPES = (".jp-OutputArea-output", ".jp-RenderedHTMLCommon")


def _lab_css() -> str:
    import sys

    import nbconvert  # noqa: F401 - the test extra's; its templates hold JupyterLab's CSS

    found = sorted(Path(sys.prefix).glob("share/jupyter/nbconvert/templates/lab/static/index.css"))
    assert found, "nbconvert's lab template (JupyterLab's CSS) is not installed"
    return found[0].read_text()


def rules(css: str) -> list[tuple[str, dict[str, str]]]:
    """(selector, {property: value}) for every plain rule, one selector at a time (rules
    inside @media and the like included, at-rules themselves left out)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out = []
    for sel, body in re.findall(r"([^{}@;]+)\{([^{}]*)\}", css):
        decls = {}
        for decl in body.split(";"):
            if ":" in decl:
                name, value = decl.split(":", 1)
                decls[name.strip().lower()] = value.strip()
        out.extend((s.strip(), decls) for s in sel.split(",") if s.strip())
    return out


def specificity(selector: str) -> tuple[int, int, int]:
    """CSS specificity of a selector without :is()/:not() arguments (none here has them)."""
    s = re.sub(r"::[\w-]+", " _pe ", selector)
    ids = len(re.findall(r"#[\w-]+", s))
    classes = len(re.findall(r"\.[\w-]+|\[[^\]]*\]|:[\w-]+(?:\([^)]*\))?", s))
    elements = len(re.findall(r"(?:^|[\s>+~])([a-zA-Z][\w-]*)", s))
    return ids, classes, elements


def last_compound(selector: str) -> str:
    return re.split(r"[\s>+~]+", selector.strip())[-1]


def element_of(compound: str) -> str | None:
    found = re.match(r"[a-zA-Z][\w-]*", compound)
    return found.group(0).lower() if found else None


def widget_classes() -> dict[str, set[str]]:
    """Each class builder.js gives an element -> the elements it is given to."""
    js = (WIDGET / "builder.js").read_text()
    out: dict[str, set[str]] = {}
    for tag, classes in re.findall(r'h\(\s*"(\w+)",\s*\{[^{}]*?className:\s*[`"]([^`"]+)[`"]', js, flags=re.S):
        for name in re.findall(r"ep-[\w-]+", classes):
            out.setdefault(name, set()).add(tag)
    return out


def lab_element_rules() -> list[tuple[str, str, dict[str, str]]]:
    """JupyterLab's rules for an element inside an output: (selector, element, properties)."""
    found = []
    for selector, decls in rules(_lab_css()):
        last = last_compound(selector)
        element = element_of(last)
        if element and last == element and any(scope in selector for scope in OUTPUT_SCOPES):
            found.append((selector, element, decls))
    return found


def test_jupyterlab_styles_pre_in_outputs() -> None:
    """What the rules below are for: JupyterLab takes the padding and border of a <pre> in an
    output (if it no longer does, the check has nothing to hold against)."""
    pre = [(s, d) for s, e, d in lab_element_rules() if e == "pre"]
    assert any(d.get("padding") == "0" and s.startswith(".jp-OutputArea-output") for s, d in pre), pre


def same_property(a: str, b: str) -> bool:
    """One property, or a shorthand and one of its parts (``border`` and ``border-bottom``)."""
    return a == b or a.startswith(b + "-") or b.startswith(a + "-")


def clashes() -> list[str]:
    classes = widget_classes()
    lab = lab_element_rules()
    out = []
    for selector, decls in rules((WIDGET / "builder.css").read_text()):
        last = last_compound(selector)
        elements = {element_of(last)} - {None}
        for name in re.findall(r"\.(ep-[\w-]+)", last):
            elements |= classes.get(name, set())
        for lab_selector, element, lab_decls in lab:
            if element not in elements:
                continue
            for prop in sorted(p for p in decls if any(same_property(p, q) for q in lab_decls)):
                if specificity(selector) <= specificity(lab_selector):
                    out.append(f"{selector} {{{prop}}} loses to JupyterLab's {lab_selector} on <{element}>")
    return out


def test_every_widget_rule_beats_jupyterlabs_rule_for_the_same_element() -> None:
    assert clashes() == []


@pytest.mark.parametrize(
    ("selector", "expected"),
    [(".jp-OutputArea-output pre", (0, 1, 1)), (".ep-builder pre.ep-code", (0, 2, 1)), (".a:hover > b", (0, 2, 1))],
)
def test_specificity(selector: str, expected: tuple[int, int, int]) -> None:
    assert specificity(selector) == expected


def test_the_code_boxes_keep_room_for_their_copy_button() -> None:
    """The text form and the JSON are <pre class="ep-code">: their padding on the right is what
    keeps the copy button off the text, in JupyterLab too (the rule above)."""
    assert widget_classes()["ep-code"] == {"pre"}
    padded = [
        (s, d["padding"]) for s, d in rules((WIDGET / "builder.css").read_text()) if "ep-code" in s and "padding" in d
    ]
    assert padded and all(len(p.split()) == 4 and int(p.split()[1].rstrip("px")) >= 70 for _, p in padded), padded
