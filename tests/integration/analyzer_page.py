"""What the analyzer's page shows, read in a Selenium driver: shared by the
tests of the served page (analyzer_test.py) and of its export
(html_report_test.py)."""
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
