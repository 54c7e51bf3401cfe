#!/usr/bin/env python3
"""Takes the ways out of a lock on an app's page of lockr in a real headless Chromium, as a person
on a phone would, and prints one JSON object of what happened.

    web_app.py puzzle URL APP SCREENSHOT_DIR
        asks for the puzzle (unless it is out already), finds a mating move with python-chess (the oracle), makes it by
        clicking the piece and its square, answers, and opens the app.
    web_app.py arithmetic URL APP SCREENSHOT_DIR
        by keyboard alone: answers the first sum wrong, then the next (a level harder) right, and
        opens the app.
    web_app.py fallback URL APP SCREENSHOT_DIR
        the spoken sentence typed instead: asks for the typed fallback, waits until the page shows
        the field by itself, types the sentence and opens the app.
    web_app.py hold URL APP SCREENSHOT_DIR
        presses the emergency button and lets go after 3 s, then holds it 8.5 s.
    web_app.py live URL APP SCREENSHOT_DIR
        URL is the status page: keeps it open in one tab, opens APP from its page in another (no
        gate: hourly mode), and waits for the first tab to show it open by itself.
    web_app.py voice URL APP SCREENSHOT_DIR CLIP.wav (record SECONDS | file)
        says the sentence: recorded through the microphone for SECONDS and a second more (Chromium's
        fake device plays CLIP), or sent as a recording through the file input; then opens the app.

URL is the page of APP (http://HOST:PORT/apps/APP) unless said otherwise.
"""
import json
import os
import re
import sys
import time

import chess
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_pages import browser, save_page, wait  # noqa: E402


def badge(driver):
    return driver.find_element(By.CSS_SELECTOR, ".app-head .badge").text


def open_app(driver):
    """Presses the button that opens the app, found afresh should the page have reloaded for a live
    event meanwhile, and waits for the app to show as open; returns its badge."""
    def press(d):
        if badge(d) == "open":  # a press the page reloaded under went through
            return True
        d.find_element(By.CSS_SELECTOR, "button[name=action][value=unlock]").click()
        return True

    wait(driver).until(press)
    return wait(driver).until(lambda d: badge(d) == "open" and "open")


def puzzle(driver, directory, report):
    ask = driver.find_elements(By.XPATH, "//button[text()='Show the puzzle']")
    if ask:
        ask[0].click()
    board_element = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-board]"))
    fen = board_element.get_attribute("data-fen")
    board = chess.Board(fen)
    mates = [move for move in board.legal_moves if board.gives_check(move) and is_mate(board, move)]
    move = mates[0]
    report["fen"] = fen
    report["move"] = move.uci()
    save_page(driver, os.path.join(directory, "app-phone-puzzle.png"))
    driver.find_element(By.CSS_SELECTOR, f"[data-square={chess.square_name(move.from_square)}]").click()
    report["pressed"] = driver.find_element(
        By.CSS_SELECTOR, f"[data-square={chess.square_name(move.from_square)}]").get_attribute("aria-pressed")
    driver.find_element(By.CSS_SELECTOR, f"[data-square={chess.square_name(move.to_square)}]").click()
    field = driver.find_element(By.CSS_SELECTOR, "input[name=answer]")
    report["typed_by_clicks"] = field.get_attribute("value")
    driver.find_element(By.XPATH, "//button[text()='Answer']").click()
    wait(driver).until(lambda d: "Solved" in d.find_element(By.TAG_NAME, "main").text)
    report["solved"] = True
    report["after"] = open_app(driver)
    save_page(driver, os.path.join(directory, "app-phone-open.png"))


def arithmetic(driver, directory, report):
    report["first"] = answer_sum(driver, right=False)
    report["after_wrong"] = wait(driver).until(
        lambda d: [text for text in [d.find_element(By.TAG_NAME, "main").text] if "wrong" in text])[0]
    save_page(driver, os.path.join(directory, "app-phone-arithmetic-wrong.png"))
    report["second"] = answer_sum(driver, right=True)
    wait(driver).until(lambda d: "Solved" in d.find_element(By.TAG_NAME, "main").text)
    report["after"] = open_app(driver)


def answer_sum(driver, right):
    """Asks for the puzzle if it is not out, works it out from its prompt and types the answer (or
    one more than it) into the answer field, submitting with Enter; returns what was asked."""
    ask = driver.find_elements(By.XPATH, "//button[text()='Show the puzzle']")
    if ask:
        ask[0].click()
    prompt = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, ".prompt")).text
    question = prompt.split("=")[0].replace("×", "*").replace("−", "-")
    if not re.fullmatch(r"[0-9 +*-]+", question):
        raise ValueError(f"not a sum: {prompt}")
    answer = eval(question, {"__builtins__": {}})  # digits and + - * only, checked above
    level = driver.find_element(By.XPATH, "//p[@class='prompt']/following-sibling::p").text.split(";")[0]
    field = driver.find_element(By.CSS_SELECTOR, "input[name=answer]")
    field.send_keys(str(answer if right else answer + 1) + Keys.ENTER)
    return {"prompt": prompt, "difficulty": level, "typed": str(answer if right else answer + 1)}


def fallback(driver, directory, report):
    report["field_before"] = bool(driver.find_elements(By.ID, "phrase"))
    wait(driver).until(lambda d: d.find_element(By.XPATH, "//button[starts-with(text(), 'Type it instead')]")).click()
    report["waiting"] = wait(driver).until(
        lambda d: d.find_element(By.XPATH, "//p[starts-with(text(), 'You may type it instead in')]")).text
    save_page(driver, os.path.join(directory, "app-phone-fallback-waiting.png"))
    # The page shows the field by itself when the wait is over.
    typed = wait(driver, 60).until(lambda d: d.find_element(By.ID, "phrase"))
    sentence = driver.find_element(By.ID, "sentence").text
    typed.send_keys(sentence)
    report["after"] = open_app(driver)


def is_mate(board, move):
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def hold(driver, directory, report):
    button = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-hold]"))
    ActionChains(driver).click_and_hold(button).pause(3).release().perform()
    report["after_3s"] = wait(driver).until(
        lambda d: [text for text in [d.find_element(By.CSS_SELECTOR, "[data-hold-status]").text]
                   if "nothing granted" in text]
    )[0]
    driver.refresh()
    report["badge_after_3s"] = wait(driver).until(lambda d: badge(d))
    button = driver.find_element(By.CSS_SELECTOR, "[data-hold]")
    ActionChains(driver).click_and_hold(button).pause(4).perform()
    # The viewport only: a whole-page capture resizes the page, which lets go of the button.
    driver.save_screenshot(os.path.join(directory, "app-phone-holding.png"))
    ActionChains(driver).pause(4.5).release().perform()
    report["badge_after_8s"] = wait(driver).until(lambda d: badge(d) == "open" and "open")


def card_badge(driver, app):
    return driver.find_element(By.XPATH, f"//li[.//a[@href='/apps/{app}']]//span[contains(@class, 'badge')]").text


def live(driver, url, app, directory, report):
    status_tab = driver.current_window_handle
    report["status_before"] = card_badge(driver, app)
    driver.switch_to.new_window("tab")
    driver.get(url.rstrip("/") + f"/apps/{app}")
    open_app(driver)
    driver.switch_to.window(status_tab)
    report["status_after"] = wait(driver, 20).until(lambda d: card_badge(d, app) == "open" and "open")
    save_page(driver, os.path.join(directory, "status-phone-live.png"))


def voice(driver, directory, report, clip, how):
    area = wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-voice]"))
    if how == "record":
        record = area.find_element(By.CSS_SELECTOR, "[data-record]")
        report["record_shown"] = record.is_displayed()
        record.click()
        time.sleep(float(sys.argv[7]) + 1)
        record.click()
    else:
        area.find_element(By.CSS_SELECTOR, "[data-clip]").send_keys(clip)
    wait(driver, 60).until(lambda d: "Heard" in d.find_element(By.TAG_NAME, "main").text)
    report["heard"] = True
    save_page(driver, os.path.join(directory, f"app-phone-voice-{how}.png"))
    report["after"] = open_app(driver)


def main():
    kind, url, app, directory = sys.argv[1:5]
    os.makedirs(directory, exist_ok=True)
    flags = []
    if kind == "voice" and sys.argv[6] == "record":
        flags = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 f"--use-file-for-fake-audio-capture={sys.argv[5]}"]
    driver = browser(flags)
    report = {"app": app}
    try:
        driver.set_window_size(390, 844)
        driver.get(url)
        if kind == "live":
            live(driver, url, app, directory, report)
        elif kind == "puzzle":
            report["before"] = badge(driver)
            puzzle(driver, directory, report)
        elif kind == "fallback":
            report["before"] = badge(driver)
            fallback(driver, directory, report)
        elif kind == "arithmetic":
            report["before"] = badge(driver)
            arithmetic(driver, directory, report)
        elif kind == "hold":
            report["before"] = badge(driver)
            hold(driver, directory, report)
        else:
            report["before"] = badge(driver)
            voice(driver, directory, report, sys.argv[5], sys.argv[6])
    except Exception as error:  # the report says how far it got
        report["error"] = f"{type(error).__name__}: {error}"
        report["page"] = driver.find_element(By.TAG_NAME, "main").text
        save_page(driver, os.path.join(directory, f"app-phone-{kind}-failed.png"))
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
