#!/usr/bin/env python3
"""Opens lockr's web pages in a real headless Chromium (Debian's chromium and chromium-driver,
driven by selenium) and reports what a person sees, as one JSON object on stdout.

    web_pages.py URL SCREENSHOT_DIR NAME

For a phone-sized and a desktop-sized window, each in light and dark colour schemes, it loads URL,
saves a screenshot of the whole page (NAME-phone-light.png, ...), reads the heading, each app's name, badge and text,
whether a stylesheet applied, and runs axe-core (axe-selenium-python) once per window size,
reporting its serious and critical violations.
"""
import atexit
import base64
import json
import os
import shutil
import sys
import tempfile

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

SIZES = {"phone": (390, 844), "desktop": (1280, 900)}


# How long a page may take to load, and a script to run: lockr's pages load in milliseconds here,
# and a page that hangs (the suite once saw a script wait ten minutes; Selenium's own limit for a
# page is five) should fail its test within seconds, with what the script saw, not hold the suite.
PAGE_LOAD_SECONDS = 20


def browser(flags=()):
    """A headless Chromium with `flags` besides the usual ones, which gives up on a page that has
    not loaded in PAGE_LOAD_SECONDS. Its scratch files (Chromium leaves a directory in TMPDIR per
    run) go to a directory of this script's own, removed when it exits."""
    scratch = tempfile.mkdtemp(prefix="lockr-chromium-")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    os.environ["TMPDIR"] = scratch
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking", *flags):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(PAGE_LOAD_SECONDS)
    driver.set_script_timeout(PAGE_LOAD_SECONDS)
    return driver


class ReloadTolerantWait(WebDriverWait):
    """A wait whose condition is tried again when the page reloaded under it (live events reload
    it): a stale element, or Chromium's word for a node no longer in the document."""

    def until(self, method, message=""):
        def looking_again_after_a_reload(driver):
            try:
                return method(driver)
            except StaleElementReferenceException:
                raise
            except WebDriverException as error:
                if "does not belong to the document" in (error.msg or ""):
                    raise StaleElementReferenceException(error.msg) from error
                raise
        return super().until(looking_again_after_a_reload, message)


def wait(driver, seconds=10):
    """A wait for the page that looks again when it reloaded under it."""
    return ReloadTolerantWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException])


def save_page(driver, path):
    """Saves a screenshot of the whole page, below the fold too."""
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size, viewport = metrics["cssContentSize"], metrics["cssLayoutViewport"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": max(size["width"], driver.execute_script("return window.innerWidth")),
                 "height": max(size["height"], viewport["clientHeight"]), "scale": 1}})
    with open(path, "wb") as file:
        file.write(base64.b64decode(shot["data"]))


def serious_violations(driver, label):
    """axe-core's serious and critical violations on the page loaded now."""
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [{"page": label, "id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["html"] for n in v["nodes"]][:3]}
            for v in results["violations"] if v["impact"] in ("serious", "critical")]


def main():
    url, directory, name = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(directory, exist_ok=True)
    driver = browser()
    report = {"views": [], "violations": []}
    try:
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            for scheme in ("light", "dark"):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                       {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                driver.get(url)
                path = os.path.join(directory, f"{name}-{size}-{scheme}.png")
                save_page(driver, path)
                background = driver.execute_script(
                    "return getComputedStyle(document.body).backgroundColor")
                apps = [{"name": card.find_element(By.TAG_NAME, "h2").text,
                         "badge": card.find_element(By.CLASS_NAME, "badge").text,
                         "text": card.find_elements(By.TAG_NAME, "p")[0].text}
                        for card in driver.find_elements(By.CSS_SELECTOR, "li.app")
                        if card.find_elements(By.CLASS_NAME, "badge")]
                report["views"].append({
                    "size": size, "scheme": scheme, "screenshot": path, "title": driver.title,
                    "heading": driver.find_element(By.TAG_NAME, "h1").text, "apps": apps,
                    "background": background,
                    "scrollWidth": driver.execute_script("return document.documentElement.scrollWidth"),
                    "width": driver.execute_script("return window.innerWidth"),
                })
            report["violations"] += serious_violations(driver, size)
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
