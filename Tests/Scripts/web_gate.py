#!/usr/bin/env python3
"""Passes an app's gate on lockr's status page in a real headless Chromium, as a person on a phone
would: reads the sentence the page shows, tries to paste it (which the page refuses), types it into
the field and sends the form. Prints one JSON object: the app's badge before and after, the field's
value after the paste, and the countdown chip.

    web_gate.py URL APP SCREENSHOT_DIR
"""
import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_pages import browser  # noqa: E402


def main():
    url, app, directory = sys.argv[1], sys.argv[2], sys.argv[3]
    driver = browser()
    report = {}
    try:
        driver.set_window_size(390, 844)
        driver.get(url)
        field = driver.find_element(By.ID, f"phrase-{app}")
        sentence = driver.find_element(By.ID, f"sentence-{app}").text
        report["before"] = [c.find_element(By.CLASS_NAME, "badge").text for c in driver.find_elements(By.CSS_SELECTOR, "li.app")]
        # A paste through the clipboard event the page refuses.
        driver.execute_script(
            "const data = new DataTransfer(); data.setData('text/plain', arguments[1]);"
            "const event = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});"
            "if (arguments[0].dispatchEvent(event)) { arguments[0].value = arguments[1]; }", field, sentence)
        report["after_paste"] = field.get_attribute("value")
        field.clear()
        field.send_keys(sentence)
        driver.save_screenshot(os.path.join(directory, "gate-phone-typed.png"))
        field.send_keys(Keys.ENTER)
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".chip"))
        driver.save_screenshot(os.path.join(directory, "gate-phone-open.png"))
        report["after"] = [c.find_element(By.CLASS_NAME, "badge").text for c in driver.find_elements(By.CSS_SELECTOR, "li.app")]
        report["chip"] = driver.find_element(By.CSS_SELECTOR, ".chip").text
        report["sentence"] = sentence
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
