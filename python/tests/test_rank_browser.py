"""The ranking's page (gym2048/rank/page.html) in headless Chromium, against the real service on a temporary
database: the table starts empty, a record submitted through the API and one through the page's form appear
without a reload, the search narrows the table, a stored game replays step by step, and the screenshot shows a
drawn page; the page logs no error and asks no other origin than the service's.

Chromium is driven over its DevTools pipe (tests/chromium.py); without Chromium the test is skipped, saying why.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from chromium import Chromium, Page
from png_image import read_png
from rank_records import random_record
from rank_service import Service

#: The viewport, in CSS pixels at scale 1: the screenshot's size.
WIDTH, HEIGHT = 1280, 900

#: The table's rows of submissions (the "no submission yet" row has no id).
ROWS = "[...document.querySelectorAll('#table tbody tr[data-id]')]"

#: The page's status line: "live" while its updates come, the error when one of its calls failed.
STATUS = "document.getElementById('status').textContent"




def wait(page: Page, expression: str, what: str) -> object:
    """`page.wait_until(expression)`, failing with `what` and the page's status line."""
    return page.wait_until(expression, what=what, context=STATUS)


def teams(page: Page) -> list[str]:
    """The team column of the table's rows, top to bottom."""
    found: list[str] = page.evaluate(f"{ROWS}.map(row => row.cells[1].textContent)")
    return found


def board(page: Page) -> str:
    """The replay board's cells as text, row by row."""
    cells: str = page.evaluate("[...document.querySelectorAll('#replay-board div')].map(c => c.textContent).join(',')")
    return cells


def step(page: Page) -> int:
    """The step the replay viewer shows ('step 12 / 80' is 12)."""
    return int(page.evaluate("document.getElementById('replay-step').textContent").split()[1])


def test_the_ranking_page_shows_submissions_live_and_replays_a_game(browser: Chromium, tmp_path: Path) -> None:
    api_record = random_record(3, str(tmp_path / "api.jsonl"))
    form_record = tmp_path / "form.jsonl"
    random_record(4, str(form_record))
    with Service(str(tmp_path / "ranking.sqlite")) as service:
        page = browser.open_page(WIDTH, HEIGHT)
        page.navigate(service.url + "/")
        wait(page, f"{STATUS} === 'live'", "the live updates")
        assert wait(page, "document.querySelector('#table tbody td.empty')?.textContent", "the empty table") == \
            "no submission yet"
        assert teams(page) == []
        # A reload would lose this: the rows must come without one.
        page.evaluate("window.sameDocument = true")

        status, answer = service.submit(api_record, team="Blue", agent="Dice", description="from the API")
        assert status == 201, answer
        wait(page, f"{ROWS}.length === 1", "the API's submission in the table")
        assert teams(page) == ["Blue"]

        page.evaluate("""
            document.getElementById('submit-team').value = 'Form team';
            document.getElementById('submit-agent').value = 'Clicker';
            document.getElementById('submit-description').value = 'from the page';
        """)
        page.set_file_input("#submit-file", str(form_record))
        page.evaluate("document.querySelector('#submit-form button[type=submit]').click()")
        result = wait(page, "(t => t.startsWith('submission') || t.startsWith('refused') ? t : '')"
                            "(document.getElementById('submit-result').textContent)", "the form's answer")
        assert isinstance(result, str) and result.startswith("submission 2: rank "), result
        wait(page, f"{ROWS}.length === 2", "the form's submission in the table")
        assert sorted(teams(page)) == ["Blue", "Form team"]
        assert page.evaluate("window.sameDocument") is True

        page.evaluate("(s => { s.value = 'clicK'; s.dispatchEvent(new Event('input')); })"
                      "(document.getElementById('search'))")
        wait(page, f"{ROWS}.length === 1", "the search to narrow the table")
        assert teams(page) == ["Form team"]
        page.evaluate("(s => { s.value = ''; s.dispatchEvent(new Event('input')); })(document.getElementById('search'))")
        wait(page, f"{ROWS}.length === 2", "the whole table again")

        page.evaluate(f"{ROWS}.find(row => row.cells[1].textContent === 'Blue').click()")
        wait(page, "!document.getElementById('detail').hidden", "the submission's details")
        page.evaluate("document.getElementById('replay-open').click()")
        wait(page, "document.getElementById('replay-title').textContent.includes('game 0')", "the replay")
        assert step(page) == 0
        first = board(page)
        page.evaluate("document.getElementById('replay-play').click()")
        wait(page, "parseInt(document.getElementById('replay-step').textContent.split(' ')[1]) >= 3", "the replay to advance")
        assert board(page) != first
        page.evaluate("document.getElementById('replay-play').click()")  # pause: the screenshot shows a still page

        image = read_png(page.screenshot())
        assert (image.width, image.height) == (WIDTH, HEIGHT)
        assert len(image.colours()) > 100, "the page looks blank"
        box = page.evaluate("(r => [r.left, r.top, r.right, r.bottom].map(Math.round))"
                            "(document.getElementById('table').getBoundingClientRect())")
        assert box[2] - box[0] > 100 and box[3] - box[1] > 40, box
        assert len(image.colours(*box)) > 10, "the table's region is uniform"

        assert page.evaluate(STATUS) == "live"
        assert page.console_errors() == []
        origin = urlsplit(service.url).netloc
        foreign = [url for url in page.requested_urls()
                   if urlsplit(url).scheme not in ("data", "blob", "about") and urlsplit(url).netloc != origin]
        assert foreign == [], json.dumps(foreign)
