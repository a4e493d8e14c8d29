"""An ESC assessment as a picture: ``EscAssessment.plot`` calls this (a Python method that
``escpush._presentation`` puts on the native class).

The data come from ``EscAssessment.to_dict()`` alone, so the chart shows what ``escpush esc
assess --json`` prints. matplotlib stays optional (``_optional.need``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ._optional import need

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._escpush import EscAssessment

PASSED, FAILED, NOT_FETCHED = "#2e7d32", "#c62828", "#9e9e9e"


def url_labels(urls: list[str]) -> list[str]:
    """How each URL is named on the chart: its path (and query) when every URL is on the
    same scheme and host, else the URL without its scheme."""
    parts = [urlsplit(url) for url in urls]
    same_site = len({(p.scheme, p.netloc) for p in parts}) <= 1

    def label(p: Any) -> str:
        path = (p.path or "/") + (f"?{p.query}" if p.query else "")
        return path if same_site else f"{p.netloc}{path}"

    return [label(p) for p in parts]


def status_change(url: dict[str, Any] | None, with_esc: dict[str, Any] | None) -> str:
    """``301 → 404``: the status of one URL with ESC (``with_esc``, what the request stage
    fetched) and without it in one stage; ``error`` for a fetch that got no response."""
    if url is None:
        return "not fetched"

    def status(fetched: dict[str, Any] | None) -> str:
        if fetched is None:
            return "?"
        return "error" if fetched["status"] is None else str(fetched["status"])

    return f"{status(url['with_esc'] or with_esc)} → {status(url['without_esc'])}"


def plot(result: EscAssessment, ax: Any) -> Any:
    """What changed without ESC, by stage and URL: a grid of URLs by stage (green where the
    URL passed its check, red where not) with each status with ESC → without, and beside it
    the differences of each kind per URL (stacked bars). ``ax``: None (a new figure), one
    Axes (the grid alone) or two (the grid, the differences). Returns the figure."""
    plt = need("matplotlib.pyplot", "EscAssessment.plot")
    from matplotlib.axes import Axes
    from matplotlib.colors import ListedColormap
    from matplotlib.ticker import MaxNLocator

    data = result.to_dict()
    stages = [s for s in data["stages"] if s["urls"]]
    if not stages:
        why = f": {data['error']}" if data["error"] else ""
        raise ValueError(f"nothing to plot: no stage fetched a URL{why}")
    urls = list(dict.fromkeys(u["url"] for s in stages for u in s["urls"]))
    labels = url_labels(urls)
    if ax is None:
        # As ScanResult.plot: made by pyplot (for Jupyter's inline backend) and closed before
        # it is returned, so Jupyter shows it once, as the value returned.
        fig = plt.figure(figsize=(11, 1.4 + 0.5 * len(urls)))
        grid, diffs = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    elif isinstance(ax, Axes):
        grid, diffs = ax, None
    else:
        axes = list(ax)
        if len(axes) != 2 or not all(isinstance(a, Axes) for a in axes):
            raise TypeError("ax is a matplotlib Axes or a pair of them (the stages, the differences)")
        grid, diffs = axes

    by_url = [{u["url"]: u for u in s["urls"]} for s in stages]
    # ESC's own response is fetched once, in the request stage; the zone and account stages
    # fetch only without ESC and are compared with it.
    with_esc = {u["url"]: u["with_esc"] for b in by_url for u in b.values() if u["with_esc"] is not None}
    # 1 passed, 0 failed, -1 not fetched (a stage stopped before the URL).
    cells = [[int(b[url]["passed"]) if url in b else -1 for b in by_url] for url in urls]
    grid.imshow(cells, cmap=ListedColormap([NOT_FETCHED, FAILED, PASSED]), vmin=-1, vmax=1, aspect="auto")
    for i, url in enumerate(urls):
        for j, b in enumerate(by_url):
            grid.text(j, i, status_change(b.get(url), with_esc.get(url)), ha="center", va="center", color="white")
    grid.set_xticks(range(len(stages)), [f"{s['name']}\n{s['outcome']}" for s in stages])
    grid.set_yticks(range(len(urls)), labels)
    grid.set_title("status with ESC → without, by stage")

    if diffs is not None:
        kinds = list(dict.fromkeys(d["what"] for d in data["differences"]))
        left = [0] * len(urls)
        for kind in kinds:
            n = [sum(d["what"] == kind and d["url"] == url for d in data["differences"]) for url in urls]
            diffs.barh(labels, n, left=left, label=kind)
            left = [a + b for a, b in zip(left, n)]
        if not kinds:
            diffs.text(0.5, 0.5, "no differences", ha="center", va="center", transform=diffs.transAxes)
            diffs.set_yticks(range(len(urls)), labels)
        else:
            diffs.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        diffs.set_ylim(len(urls) - 0.5, -0.5)  # the grid's order, top to bottom
        diffs.xaxis.set_major_locator(MaxNLocator(integer=True))
        diffs.set_xlabel("differences")
        diffs.set_title("what changes without ESC, by kind")
    fig = grid.figure
    if ax is None:
        fig.tight_layout()
        plt.close(fig)
    return fig
