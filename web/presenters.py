"""Plain, JSON-ready views of engine results for the templates (and the session,
which keeps a roll across the redirect of a form posted without JavaScript)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["bar_chart", "damage_chart", "totals_chart"]

#: Drawing units of the bar chart; the SVG scales to its container and keeps this shape.
CHART_WIDTH, PLOT_HEIGHT, LABEL_HEIGHT = 260, 110, 14


def bar_chart(
    points: Sequence[tuple[str, Fraction, bool]], *, marker: str | None = None, label_every: int | None = None
) -> dict[str, Any]:
    """Geometry of a server-drawn SVG bar chart.

    ``points`` are (label, probability, highlighted); ``marker`` names the label
    before whose bar a dashed line is drawn (13 on a check).
    """
    highest = max((p for _, p, _ in points), default=Fraction(0)) or Fraction(1)
    every = label_every or max(1, -(-len(points) // 16))
    marker_index = next((i for i, (label, _, _) in enumerate(points) if label == marker), None)
    step = CHART_WIDTH / max(len(points), 1)
    bar = step * 0.8
    bars = []
    marker_x = None
    for i, (label, p, highlighted) in enumerate(points):
        x = round(i * step + (step - bar) / 2, 3)
        height = float(p / highest) * PLOT_HEIGHT
        if label == marker:
            marker_x = round(i * step, 3)
        bars.append(
            {
                "x": x,
                "y": round(PLOT_HEIGHT - height, 3),
                "height": round(height, 3),
                "label": label,
                "text_x": round(x + bar / 2, 3),
                # Every few bars, and always the marker, never crowding it or running off the edge.
                "show_label": i == marker_index
                or (
                    i % every == 0
                    and (marker_index is None or abs(i - marker_index) >= max(2, every // 2 + 1))
                    and i < len(points) - 1
                ),
                "p": p,
                "highlighted": highlighted,
            }
        )
    return {
        "bars": bars,
        "bar_width": round(bar, 3),
        "width": CHART_WIDTH,
        "plot_height": PLOT_HEIGHT,
        "height": PLOT_HEIGHT + LABEL_HEIGHT,
        "label_y": PLOT_HEIGHT + LABEL_HEIGHT - 4,
        "marker_x": marker_x,
        "marker": marker,
    }


def totals_chart(
    totals: Sequence[tuple[int, Fraction]],
    *,
    target: int,
    open_ended: bool = False,
    wins: Callable[[int], bool] | None = None,
) -> dict[str, Any]:
    """The distribution of a roll's outcomes, with the winning bars highlighted: those that reach ``target``,
    or those ``wins`` says win (a total to stay under, successes counted). The last bar reads "or more" when
    the totals are ``open_ended``; a dashed line marks ``target`` when it is one of the bars."""
    points = []
    for i, (total, p) in enumerate(totals):
        last = open_ended and i == len(totals) - 1
        won = wins(total) if wins is not None else total >= target
        points.append((f"{total}+" if last else str(total), p, won))
    return bar_chart(points, marker=str(target))


def damage_chart(damage: Sequence[tuple[int, Fraction]], *, share: Fraction = Fraction(999, 1000)) -> dict[str, Any]:
    """Damage on a hit, cut where ``share`` of it is drawn; the rest is the last bar, "or more"."""
    points: list[tuple[str, Fraction, bool]] = []
    running = Fraction(0)
    for i, (amount, p) in enumerate(damage):
        if running >= share and i < len(damage) - 1:
            rest = sum((q for _, q in damage[i:]), Fraction(0))
            points.append((f"{amount}+", rest, False))
            break
        points.append((str(amount), p, False))
        running += p
    return bar_chart(points)
