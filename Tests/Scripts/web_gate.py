#!/usr/bin/env python3
"""Passes an app's gate on its page of lockr in a real headless Chromium, as a person on a phone
would: reads the sentence the page shows, tries to paste it (which the page refuses), types it into
the field and sends the form. Prints one JSON object: the app's badge before and after, the field's
value after the paste, and the countdown chip.

    web_gate.py URL SCREENSHOT_DIR

URL is the app's page (http://HOST:PORT/apps/APP).
"""
import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_pages import browser, save_page, wait  # noqa: E402


def main():
    url, directory = sys.argv[1], sys.argv[2]
    driver = browser()
    report = {}
    try:
        driver.set_window_size(390, 844)
        driver.get(url)
        field = driver.find_element(By.ID, "phrase")
        sentence = driver.find_element(By.ID, "sentence").text
        report["before"] = driver.find_element(By.CSS_SELECTOR, ".app-head .badge").text
        # A paste through the clipboard event the page refuses.
        driver.execute_script(
            "const data = new DataTransfer(); data.setData('text/plain', arguments[1]);"
            "const event = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});"
            "if (arguments[0].dispatchEvent(event)) { arguments[0].value = arguments[1]; }", field, sentence)
        report["after_paste"] = field.get_attribute("value")
        field.clear()
        field.send_keys(sentence)
        save_page(driver, os.path.join(directory, "gate-phone-typed.png"))
        field.send_keys(Keys.ENTER)
        # The page may reload under the reads for the window's live event: each read looks again.
        report["chip"] = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, ".chip").text)
        report["after"] = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, ".app-head .badge").text)
        save_page(driver, os.path.join(directory, "gate-phone-open.png"))
        report["sentence"] = sentence
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
