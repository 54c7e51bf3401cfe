#!/usr/bin/env python3
"""Signs in to lockr's admin view in a real headless Chromium and walks it, printing one JSON
object of what happened.

    web_admin.py BASE_URL SCREENSHOT_DIR PIN PERSON PROFILE LIST_URL

Saves a whole-page screenshot of the sign-in page and, signed in with a wrong PIN first (refused)
and then PIN, of every admin page (phone and desktop, light and dark), runs axe-core on each, switches PERSON's PROFILE on from their
page, adds LIST_URL as PERSON's block list on the lists page and waits for its rules, adds a deny
entry on PERSON's page and a local record on the names page, reads the dashboard's numbers, filters the query log to blocked queries, signs out and checks the admin
view asks for the PIN again.
"""
import json
import os
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_pages import SIZES, browser, save_page, serious_violations  # noqa: E402


def sign_in(driver, base, pin):
    driver.get(base + "/admin")
    field = driver.find_element(By.ID, "pin")
    field.send_keys(pin)
    field.submit()


def main():
    base, directory, pin, person, profile, list_url = sys.argv[1:7]
    os.makedirs(directory, exist_ok=True)
    driver = browser()
    report = {"violations": [], "pages": []}
    pages = {"admin": "/admin", "admin-person": f"/admin/people/{person}", "admin-dashboard": "/admin/dashboard",
             "admin-queries": "/admin/queries", "admin-events": "/admin/events", "admin-lists": "/admin/lists",
             "admin-names": "/admin/names"}
    try:
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            for scheme in ("light", "dark"):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                       {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                driver.get(base + "/admin")
                save_page(driver, os.path.join(directory, f"admin-login-{size}-{scheme}.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
        driver.set_window_size(*SIZES["phone"])
        sign_in(driver, base, "0000")
        report["wrong_pin"] = WebDriverWait(driver, 10).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "[role=alert]")).text
        report["violations"] += serious_violations(driver, "admin-login")
        sign_in(driver, base, pin)
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "nav.admin-nav"))
        report["signed_in_heading"] = driver.find_element(By.TAG_NAME, "h1").text
        report["assignable_devices"] = [field.get_attribute("value")
                                        for field in driver.find_elements(By.CSS_SELECTOR, "input[name=device]")]
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            for scheme in ("light", "dark"):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                       {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                for name, path in pages.items():
                    driver.get(base + path)
                    save_page(driver, os.path.join(directory, f"{name}-{size}-{scheme}.png"))
                    report["pages"].append({
                        "page": name, "size": size, "scheme": scheme, "heading": driver.find_element(By.TAG_NAME, "h1").text,
                        "scrollWidth": driver.execute_script("return document.documentElement.scrollWidth"),
                        "tableOverflow": driver.execute_script(
                            "return Math.max(0, ...[...document.querySelectorAll('.scroll')]"
                            ".map(e => e.scrollWidth - e.clientWidth))"),
                        "width": driver.execute_script("return window.innerWidth")})
                    if scheme == "light":
                        report["violations"] += serious_violations(driver, f"{name} {size}")
        driver.set_window_size(*SIZES["phone"])
        driver.get(base + pages["admin-person"])
        report["charts"] = len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg"))
        driver.find_element(By.XPATH, f"//button[text()='Switch {profile} on']").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.XPATH, f"//button[text()='Switch {profile} off']"))
        report["profile_switched_on"] = True
        driver.get(base + "/admin/lists")
        driver.find_element(By.ID, "l-url").send_keys(list_url)
        Select(driver.find_element(By.ID, "l-kind")).select_by_value("blocklist")
        Select(driver.find_element(By.ID, "l-person")).select_by_value(person)
        driver.find_element(By.ID, "l-comment").send_keys("trackers")
        driver.find_element(By.XPATH, "//button[text()='Add']").click()
        for _ in range(60):
            rows = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                    for row in driver.find_elements(By.CSS_SELECTOR, "table.data tbody tr")]
            if any(row[0] == list_url and row[2] not in ("", "none yet") for row in rows):
                break
            time.sleep(0.25)
            driver.get(base + "/admin/lists")
        report["list_rows"] = rows
        driver.get(base + pages["admin-person"])
        driver.find_element(By.XPATH, "//summary[text()='Add an entry']").click()
        driver.find_element(By.ID, "f-value").send_keys("games.example")
        Select(driver.find_element(By.ID, "f-match")).select_by_value("name")
        driver.find_element(By.ID, "f-comment").send_keys("homework first")
        driver.find_element(By.XPATH, "//form[contains(@action, '/filters')]//button[text()='Add']").click()
        WebDriverWait(driver, 10).until(lambda d: "|games.example^" in d.page_source)
        driver.get(base + "/admin/names")
        driver.find_element(By.ID, "n-name").send_keys("nas.home.arpa")
        Select(driver.find_element(By.ID, "n-type")).select_by_value("A")
        driver.find_element(By.ID, "n-data").send_keys("192.168.1.5")
        driver.find_element(By.ID, "n-comment").send_keys("the NAS")
        driver.find_element(By.XPATH, "//button[text()='Add']").click()
        WebDriverWait(driver, 10).until(lambda d: "nas.home.arpa A 192.168.1.5" in d.page_source)
        report["records"] = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")][:2]
                             for row in driver.find_elements(By.CSS_SELECTOR, "table.data tbody tr")]
        driver.get(base + pages["admin-person"])
        report["entries"] = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in
                             driver.find_elements(By.XPATH, "//th[text()='Rule or list']/ancestor::table//tbody/tr")]
        driver.get(base + "/admin/dashboard")
        report["dashboard"] = {
            "summary": driver.find_element(By.CSS_SELECTOR, "p.summary").text,
            "charts": len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg rect.bar")),
            "asked": [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in
                      driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Names asked most'] tbody tr")],
            "people": [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in
                       driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Queries per person'] tbody tr")]}
        driver.get(base + "/admin/queries")
        driver.find_element(By.NAME, "blocked").click()
        driver.find_element(By.XPATH, "//button[text()='Show']").click()
        WebDriverWait(driver, 10).until(lambda d: "blocked=on" in d.current_url)
        report["query_url"] = driver.current_url
        report["query_rows"] = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                                for row in driver.find_elements(By.CSS_SELECTOR, "table.data tbody tr")]
        driver.find_element(By.XPATH, "//button[text()='Sign out']").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "pin"))
        driver.get(base + pages["admin-person"])
        report["after_sign_out"] = driver.find_elements(By.ID, "pin") != []
    except Exception as error:  # the report says how far it got
        report["error"] = f"{type(error).__name__}: {error}"
        save_page(driver, os.path.join(directory, "admin-failed.png"))
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
