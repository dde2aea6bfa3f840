"""The GM's roll forms on a phone-width screen (360 px), in a real browser: every list shows its whole
choice, every text box is as tall as a finger needs, every box to tick sits on the line of its words,
and a region still waiting for its chance draws no empty box.

The pages: a Lucky 13 sheet's roll page and its contest page, the live dashboard's call for a roll, and a
D6 sheet's roll page (whose boxes to tick come from the shared field template). Served as production
serves them (uvicorn, the ASGI application), so that the dashboard's live socket opens."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.campaigns.test_browser import sign_in
from tests.characters.conftest import FIGHTING, make_character
from tests.play.test_live_browser import asgi_server  # noqa: F401 (a fixture)
from tests.systems.d6.helpers import jericho_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The room a list keeps for its arrow, beside the chosen option's words.
ARROW = 20

#: Each visible list whose chosen option's words are wider than the room the list gives them.
CUT_CHOICES = f"""() => {{
  const measure = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("main select")].filter(s => s.getClientRects().length).flatMap(s => {{
    const style = getComputedStyle(s);
    measure.font = style.font;
    const words = s.options[s.selectedIndex]?.text ?? "";
    const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - {ARROW};
    return measure.measureText(words).width > room ? [`${{s.name}}: "${{words}}"`] : [];
  }});
}}"""

#: Each visible text box less than 44 px tall.
LOW_BOXES = """() => [...document.querySelectorAll('main input[type="text"], main input:not([type])')]
  .filter(i => i.getClientRects().length && i.getBoundingClientRect().height < 44).map(i => i.name)"""

#: Each visible box to tick that is not on the line of its label's words, left of them.
OFF_THE_LINE = """() => [...document.querySelectorAll('main input[type="checkbox"]')]
  .filter(c => c.getClientRects().length && c.labels.length).flatMap(c => {
    const box = c.getBoundingClientRect();
    const words = [...c.labels].find(l => !l.contains(c)) || c.labels[0];
    const line = words.getBoundingClientRect();
    const middle = box.top + box.height / 2;
    const beside = words.contains(c) || box.right <= line.left;
    return middle >= line.top && middle <= line.bottom && beside ? [] : [c.name];
  })"""

#: Each chance or roll region that draws a box with nothing in it.
EMPTY_BOXES = """() => [...document.querySelectorAll("main .calculation, main .roll-result")]
  .filter(r => r.getClientRects().length && !r.children.length && parseFloat(getComputedStyle(r).borderTopWidth) > 0)
  .map(r => r.id)"""


@pytest.fixture
def pages(campaign, d6_campaign, player) -> dict[str, str]:
    brunella = make_character(campaign, player)
    jericho = jericho_of(d6_campaign, player)
    dexterity = next(s.id for s in jericho.document.stats if s.name == "Dexterity")
    return {
        "lucky13 roll": f"/characters/{brunella.pk}/roll/?skill={FIGHTING}",
        "lucky13 contest": f"/characters/{brunella.pk}/contest/?skill={FIGHTING}",
        "dashboard": f"/campaigns/{campaign.pk}/dashboard/",
        "d6 roll": f"/characters/{jericho.pk}/roll/?item={dexterity}&band=moderate",
    }


@pytest.mark.parametrize("which", ["lucky13 roll", "lucky13 contest", "dashboard", "d6 roll"])
def test_at_360_pixels_the_gms_roll_forms_show_every_choice_whole(
    asgi_server,  # noqa: F811
    page: Page,
    problems,
    gm,
    pages,
    which,
) -> None:
    sign_in(page.context, gm, asgi_server)
    page.set_viewport_size({"width": 360, "height": 740})

    page.goto(asgi_server.url + pages[which])

    assert page.locator("main select").count() > 0
    assert page.evaluate(CUT_CHOICES) == []
    assert page.evaluate(LOW_BOXES) == []
    assert page.locator("main input[type=checkbox]").count() > 0
    assert page.evaluate(OFF_THE_LINE) == []
    assert page.evaluate(EMPTY_BOXES) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


#: Each skill of a sheet whose Roll and Contest links do not sit on one line.
SPLIT_ACTIONS = """() => [...document.querySelectorAll("main .skill-actions")].flatMap(group => {
    const tops = [...group.querySelectorAll("a")].map(a => Math.round(a.getBoundingClientRect().top));
    return new Set(tops).size > 1 ? [group.closest("li").querySelector(".skill-name").textContent] : [];
  })"""


def test_at_360_pixels_a_lucky13_sheets_skill_keeps_its_roll_and_contest_links_together(
    asgi_server,  # noqa: F811
    page: Page,
    problems,
    campaign,
    player,
) -> None:
    brunella = make_character(campaign, player)
    sign_in(page.context, player, asgi_server)
    page.set_viewport_size({"width": 360, "height": 740})

    page.goto(f"{asgi_server.url}/characters/{brunella.pk}/")

    assert page.locator("main .skill-actions").count() > 0
    assert page.evaluate(SPLIT_ACTIONS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []
