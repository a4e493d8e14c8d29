"""The filter builder's front end in a real browser (issue 29): headless Chromium (Debian's, with
its driver, installed by scripts/ensure-chromium.sh when missing) runs the widget's ES module
against its Python widget through tests/widget_harness.py. A person's steps: add rows by
clicking and typing, pick fields from the searchable list, operators from the list the field's
type allows, values; the JSON shown is ``builder.filter.to_json()``. Every wait is for a state
of the page (explicit waits), never a sleep."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

import escpush
from escpush import Filter, FilterError, field
from escpush._format import percent, size
from escpush.widget import FilterBuilder
from widget_harness import Bridge, start_chromium

ROOT = Path(__file__).resolve().parents[2]
OPS = escpush.field_operators("http_requests")


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = start_chromium(ROOT)
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    """The builder in the browser, and its Python widget."""

    def __init__(self, driver: WebDriver, builder: FilterBuilder) -> None:
        self.driver = driver
        self.builder = builder
        # The panel is drawn anew with each report: an element read as it is replaced is read again.
        self.wait = WebDriverWait(driver, 15, ignored_exceptions=(StaleElementReferenceException,))

    def until(self, condition: Any, message: str = "") -> Any:
        return self.wait.until(lambda _: condition(), message)

    def settled(self) -> bool:
        """Every change the page sent has reached the widget."""
        h = self.driver.execute_script("return window.harness")
        return bool(h and h.get("ready")) and h["sent"] == h["synced"]

    def rows(self) -> list[str]:
        """The ids of the rows, in order (a row is re-drawn as it changes: found by its id)."""
        found = self.driver.find_elements(By.CSS_SELECTOR, "[data-testid=row]")
        return [r.get_attribute("data-row") or "" for r in found]

    def in_row(self, row: str, testid: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-row="{row}"] [data-testid={testid}]')

    def all_in_row(self, row: str, testid: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, f'[data-row="{row}"] [data-testid={testid}]')

    def click(self, testid: str) -> None:
        self.driver.find_elements(By.CSS_SELECTOR, f"[data-testid={testid}]")[-1].click()

    def pick_field(self, row: str, typed: str, name: str, *, enter: bool = False) -> None:
        box = self.in_row(row, "field")
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.BACKSPACE)
        box.send_keys(typed)
        names = [o.get_attribute("data-name") or "" for o in self.all_in_row(row, "field-option")]
        assert name in names, names[:10]
        assert all(typed.lower() in n.lower() for n in names), names  # searched by what was typed
        if enter:
            for _ in range(names.index(name)):
                box.send_keys(Keys.ARROW_DOWN)
            box.send_keys(Keys.ENTER)
        else:
            self.all_in_row(row, "field-option")[names.index(name)].click()
        self.until(lambda: self.in_row(row, "field").get_attribute("value") == name)

    def operators(self, row: str) -> list[str]:
        return [o.get_attribute("value") or "" for o in Select(self.in_row(row, "operator")).options]

    def choose_operator(self, row: str, op: str) -> None:
        Select(self.in_row(row, "operator")).select_by_value(op)

    def shown_json(self) -> str | None:
        found = self.driver.find_elements(By.CSS_SELECTOR, "[data-testid=json]")
        return found[0].text if found else None

    def python_json(self) -> str | None:
        try:
            f = self.builder.filter
        except FilterError:
            return None
        return None if f is None else f.to_json()

    def shows(self, expected: Filter) -> None:
        """Waits until the widget's filter is ``expected`` and the page shows its JSON."""
        self.until(self.settled, "the page's changes reach the widget")
        self.until(lambda: self.python_json() == expected.to_json(), f"the widget says {expected}")
        self.until(lambda: self.shown_json() == self.python_json(), "the page shows builder.filter.to_json()")


@pytest.fixture
def page(browser: WebDriver) -> Iterator[Page]:
    builder = FilterBuilder("http_requests")
    with Bridge(builder) as bridge:
        browser.get(bridge.url)
        p = Page(browser, builder)
        p.until(p.settled, "the page is up")
        yield p
        assert bridge.errors == []
        assert_no_script_errors(browser)


def assert_no_script_errors(browser: WebDriver) -> None:
    """No error in the page's console: no exception of the widget's script, no failed load
    (but the harness's long poll, which a page left open by the test before sees cut)."""
    logs = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "/poll?" not in e["message"]]
    assert logs == []


def test_rows_added_by_clicking_and_typing_make_the_filter(page: Page) -> None:
    page.click("add-row")
    page.until(lambda: len(page.rows()) == 1)
    first = page.rows()[0]
    page.pick_field(first, "EdgeResp", "EdgeResponseStatus")
    assert page.operators(first) == OPS["EdgeResponseStatus"]  # int: eq !eq lt leq gt geq in !in
    page.choose_operator(first, "geq")
    page.in_row(first, "value").send_keys("500")
    page.shows(field("EdgeResponseStatus") >= 500)

    page.click("add-row")
    page.until(lambda: len(page.rows()) == 2)
    second = page.rows()[1]
    page.pick_field(second, "country", "ClientCountry", enter=True)  # found inside the name, picked by keys
    assert page.operators(second) == OPS["ClientCountry"]  # string: no lt/leq/gt/geq
    page.choose_operator(second, "in")
    page.in_row(second, "value-entry").send_keys("cn", Keys.ENTER)
    page.in_row(second, "value-entry").send_keys("ru", Keys.ENTER)
    page.until(lambda: [c.text for c in page.all_in_row(second, "value-chip")] == ["cn", "ru"], "two chips")
    page.shows((field("EdgeResponseStatus") >= 500) & field("ClientCountry").is_in(["cn", "ru"]))

    # OR between them, then a nested group: X OR (Y AND Z).
    page.driver.find_elements(By.CSS_SELECTOR, "[data-testid=join-or]")[0].click()
    page.shows((field("EdgeResponseStatus") >= 500) | field("ClientCountry").is_in(["cn", "ru"]))
    page.driver.find_elements(By.CSS_SELECTOR, "[data-testid=add-group]")[-1].click()
    page.until(lambda: len(page.rows()) == 3)
    nested = page.rows()[2]
    page.pick_field(nested, "WorkerSub", "WorkerSubrequest")
    assert page.operators(nested) == ["eq", "!eq"]  # bool
    Select(page.in_row(nested, "value")).select_by_value("true")
    expected = Filter.from_dict(
        {
            "where": {
                "or": [
                    (field("EdgeResponseStatus") >= 500).to_dict()["where"],
                    field("ClientCountry").is_in(["cn", "ru"]).to_dict()["where"],
                    {"and": [(field("WorkerSubrequest") == True).to_dict()["where"]]},  # noqa: E712 - a filter
                ]
            }
        }
    )
    page.shows(expected)
    text_form = expected.to_text()
    page.until(lambda: page.driver.find_element(By.CSS_SELECTOR, "[data-testid=text-form]").text == text_form)


def test_the_operator_list_follows_the_fields_type(page: Page) -> None:
    page.click("add-row")
    page.until(lambda: len(page.rows()) == 1)
    [row] = page.rows()
    types = escpush.dataset_fields("http_requests")
    for name in (
        "ClientRequestHost",
        "EdgeResponseStatus",
        "WorkerSubrequest",
        "EdgeStartTimestamp",
        "SecurityRuleIDs",
    ):
        page.pick_field(row, name[:8], name)
        page.until(lambda name=name: page.operators(row) == OPS[name], f"{name}'s operators")
        page.until(lambda name=name: page.in_row(row, "field-type").text == types[name], f"{name}'s type")
        # The operator in force is one the field takes: the row still makes a filter.
        assert Select(page.in_row(row, "operator")).first_selected_option.get_attribute("value") in OPS[name]


def test_a_problem_is_shown_on_its_row_as_it_is_typed(page: Page) -> None:
    page.click("add-row")
    page.until(lambda: len(page.rows()) == 1)
    [row] = page.rows()
    page.in_row(row, "field").send_keys("ClientRequestHots")
    page.in_row(row, "value").send_keys("x")
    page.until(page.settled)

    def row_problem() -> str:
        return page.in_row(row, "row-problems").text

    page.until(lambda: "did you mean `ClientRequestHost`?" in row_problem(), "the did-you-mean on the row")
    page.until(lambda: page.driver.find_element(By.CSS_SELECTOR, "[data-testid=status]").text.startswith("1 problem"))
    # A set with no value: not a filter yet; the problem is shown and builder.filter refuses.
    page.pick_field(row, "ClientRequestHost", "ClientRequestHost")
    page.choose_operator(row, "in")
    page.until(lambda: len(page.all_in_row(row, "value-chip")) == 1)  # the value "x", carried into the list
    page.in_row(row, "value-chip").find_element(By.CSS_SELECTOR, "button").click()
    page.until(page.settled)
    page.until(lambda: "needs at least one value" in row_problem(), "the empty set on the row")
    with pytest.raises(FilterError, match="empty_set"):
        page.builder.filter  # noqa: B018 - the property raises
    page.until(lambda: page.shown_json() is None, "no JSON while it is not a filter")


def test_an_existing_filter_is_drawn_and_the_text_mode_round_trips(browser: WebDriver) -> None:
    f = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
        "ClientCountry"
    ).is_in(["cn", "ru"])
    builder = FilterBuilder("http_requests", filter=f)
    with Bridge(builder) as bridge:
        browser.get(bridge.url)
        page = Page(browser, builder)
        page.until(page.settled)
        page.until(lambda: len(page.rows()) == 3)
        assert page.shown_json() == f.to_json()
        values = [page.all_in_row(r, "value") for r in page.rows()]
        assert [v[0].get_attribute("value") for v in values if v] == [".example.com", "500"]
        assert [c.text for c in page.all_in_row(page.rows()[2], "value-chip")] == ["cn", "ru"]
        page.click("mode-text")
        area = page.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=text]"))
        page.until(lambda: area.get_attribute("value") == f.to_text())
        area.send_keys(Keys.CONTROL, "a")
        area.send_keys('EdgeResponseStatus >= 500 and not ClientRequestPath startsWith "/health"')
        g = Filter.from_text('EdgeResponseStatus >= 500 and not ClientRequestPath startsWith "/health"')
        page.shows(g)
        page.click("mode-rows")
        page.until(lambda: len(page.rows()) == 2)
        page.shows(g)
        assert bridge.errors == []
        assert_no_script_errors(browser)


def test_the_sample_is_broken_down_by_the_field_chosen(browser: WebDriver, tmp_path: Path) -> None:
    logs = tmp_path / "sample.ndjson"
    logs.write_text(
        "".join(
            json.dumps({"EdgeResponseStatus": status, "ClientCountry": country}) + "\n"
            for status, country in [(503, "cn"), (200, "cn"), (502, "de"), (200, "us"), (504, "cn")]
        )
    )
    f = field("EdgeResponseStatus") >= 500
    builder = FilterBuilder("http_requests", filter=f, sample=logs, debounce=0.0)
    with Bridge(builder) as bridge:
        browser.get(bridge.url)
        page = Page(browser, builder)
        page.until(page.settled)
        page.until(lambda: browser.find_element(By.CSS_SELECTOR, "[data-testid=sample-share]").text == "60.0%")
        assert browser.find_element(By.CSS_SELECTOR, "[data-testid=sample-counts]").text.startswith("3 of 5 lines")
        Select(browser.find_element(By.CSS_SELECTOR, "[data-testid=breakdown-field]")).select_by_value("ClientCountry")
        page.until(page.settled)
        page.until(lambda: builder.breakdown == "ClientCountry")

        def table() -> list[list[str]]:
            rows = browser.find_elements(By.CSS_SELECTOR, "[data-testid=breakdown-group]")
            return [[td.text for td in r.find_elements(By.CSS_SELECTOR, "td")] for r in rows]

        page.until(lambda: len(table()) == 3, "the breakdown's table")
        assert table() == [["cn", "2 / 3", "66.7%"], ["de", "1 / 1", "100.0%"], ["us", "0 / 1", "0.0%"]]
        assert bridge.errors == []
        assert_no_script_errors(browser)


def test_the_rest_row_is_labelled_as_the_scan_labels_it(browser: WebDriver, tmp_path: Path) -> None:
    """The widget lists the 10 largest groups; the rest row read "2 other values", which a
    string group can be. It is labelled as the scan's tables label it, `(other: 2 groups)`
    (review of issue 33, item 17)."""
    logs = tmp_path / "sample.ndjson"
    countries = [f"c{i:02}" for i in range(12)]
    logs.write_text("".join(json.dumps({"EdgeResponseStatus": 500, "ClientCountry": c}) + "\n" for c in countries))
    builder = FilterBuilder(
        "http_requests", filter=field("EdgeResponseStatus") >= 500, sample=logs, breakdown="ClientCountry", debounce=0.0
    )
    with Bridge(builder) as bridge:
        browser.get(bridge.url)
        page = Page(browser, builder)
        page.until(page.settled)

        def rest() -> list[str]:
            rows = browser.find_elements(By.CSS_SELECTOR, "[data-testid=breakdown-other]")
            return [td.text for r in rows for td in r.find_elements(By.CSS_SELECTOR, "td")]

        page.until(lambda: len(rest()) == 3, "the rest row")
        assert rest()[:2] == ["(other: 2 groups)", "2 / 2"], rest()
        assert len(browser.find_elements(By.CSS_SELECTOR, "[data-testid=breakdown-group]")) == 10
        assert bridge.errors == []
        assert_no_script_errors(browser)


def test_shares_and_sizes_are_shown_as_escpush_shows_them(browser: WebDriver, tmp_path: Path) -> None:
    """Issue 34: the front end had its own share (``toFixed(1)``: 1 line in 2,000 read
    ``0.1%``, a share that is not nothing could read ``0.0%``) and size (``92 B``) formatters;
    it now shows the texts Python makes with escpush's formatters (core's ``percent``,
    ``_format.size``), as the command line and the notebook display do."""
    logs = tmp_path / "sample.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503}\n' + '{"EdgeResponseStatus": 200}\n' * 1999)
    f = field("EdgeResponseStatus") >= 500
    result = f.scan(logs)
    builder = FilterBuilder("http_requests", filter=f, sample=logs, debounce=0.0)
    with Bridge(builder) as bridge:
        browser.get(bridge.url)
        page = Page(browser, builder)
        page.until(page.settled)
        share = lambda: browser.find_element(By.CSS_SELECTOR, "[data-testid=sample-share]").text  # noqa: E731
        page.until(lambda: share().endswith("%"), "the sample's share")
        assert share() == percent(1, 2000) == "0.050%"
        counts = browser.find_element(By.CSS_SELECTOR, "[data-testid=sample-counts]").text
        kept = f"{size(result.matched_bytes)} of {size(result.bytes)} ({percent(result.matched_bytes, result.bytes)})"
        assert counts == f"1 of 2,000 lines · {kept}", counts
        assert bridge.errors == []
        assert_no_script_errors(browser)
