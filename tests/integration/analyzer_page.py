"""What the analyzer's page shows, read in a Selenium driver: shared by the
tests of the served page (analyzer_test.py) and of its export
(html_report_test.py)."""
import os

from er_test_support import check


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def table_numbers(driver):
    """The metric table's rows: (name, {metric spec: value})."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#view table.metric-table tr[data-name]')).map(r =>"
        " [r.dataset.name, Object.fromEntries(Array.from(r.querySelectorAll('td[data-spec]')).map(c =>"
        " [c.dataset.spec, parseFloat(c.dataset.value)]))])")


def same_numbers(driver, want, what):
    """The metric table shows er_print's JSON view `want`, row by row."""
    have = table_numbers(driver)
    check(len(have) == len(want["rows"]), f"{what}: {len(have)} rows, er_print has {len(want['rows'])}")
    for (name, values), row in zip(have, want["rows"]):
        check(name == row["name"] and values == row["values"], f"{what}: row {name} {values} vs {row}")


def timeline_bins(driver):
    """The Timeline tab's boxes: [name, thread, start, end, events] each, as
    er_print -timeline's rows give them."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.timeline rect.bin')).map(r => [r.dataset.name,"
        " r.dataset.thread, r.dataset.start, r.dataset.end, r.dataset.events])")


def loaded_count(driver):
    """How many times the page has drawn a view (body's data-loaded)."""
    return int(driver.execute_script("return document.body.dataset.loaded || '0'"))


def open_settled(driver, url):
    """Loads `url` afresh (a change of its hash alone would not load the page
    again) and waits until the page has drawn its view."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get(url)
    driver.refresh()
    WebDriverWait(driver, 120).until(lambda d: loaded_count(d) > 0 and d.find_element(By.ID, "status").text == "")


def visit_every_tab(driver, artifacts, prefix="", leave_out=()):
    """Clicks each tab of the page open in `driver` but those in `leave_out`:
    each shows its view (a table, list or drawing) with no error and no
    console error; a screenshot of each is kept in `artifacts`. Returns the
    tabs' ids."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    tabs = [b.get_attribute("data-tab") for b in driver.find_elements(By.CSS_SELECTOR, "#tabs button")]
    for tab in tabs:
        if tab in leave_out:
            continue
        before = loaded_count(driver)
        driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{tab}"]').click()
        WebDriverWait(driver, 120).until(lambda d: loaded_count(d) > before)
        if driver.find_element(By.ID, "status").text:  # a function tab went on to the hottest function
            WebDriverWait(driver, 120).until(lambda d: d.find_element(By.ID, "status").text == "")
        check(driver.find_element(By.ID, "view").get_attribute("data-tab") == tab, f"tab {tab} shown")
        error = driver.find_element(By.ID, "view-error").text
        check(error == "", f"tab {tab}: {error}")
        check(driver.find_elements(By.CSS_SELECTOR, "#view table, #view dl, #view svg"), f"tab {tab} shows a view")
        errors = console_errors(driver)
        check(not errors, f"tab {tab}: console errors {errors}")
        driver.save_screenshot(os.path.join(artifacts, f"{prefix}{tab}.png"))
    return tabs


def same_bars(driver, table, parts, what, rows=40):
    """The bars drawn (plugin_bars.js) are the first `rows` rows of er_print's
    JSON `table`, each split into `parts` (metric specs) of its values."""
    drawn = driver.execute_script(
        "return [...document.querySelectorAll('svg.plugin-bars rect.bar-part[data-part]')].map((r) =>"
        " [r.dataset.name, r.dataset.part, parseFloat(r.dataset.value)])")
    want = [[r["name"], p, r["values"][p]] for r in table["rows"][:rows] for p in parts]
    check(len(drawn) == len(want), f"{what}: {len(drawn)} bar parts drawn, er_print's rows give {len(want)}")
    for have, row in zip(drawn, want):
        check(have[0] == row[0] and have[1] == row[1] and abs(have[2] - row[2]) <= 1e-9 * max(1, abs(row[2])),
              f"{what}: bar {have} vs {row}")
