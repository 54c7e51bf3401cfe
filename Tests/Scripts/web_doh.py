#!/usr/bin/env python3
"""Loads pages in a real headless Chromium whose names it resolves only over DNS over HTTPS, as a
managed policy (DnsOverHttpsMode "secure", DnsOverHttpsTemplates) set by the test tells it, and
reports what loaded, as one JSON object on stdout.

    web_doh.py DOH_HOST SPKI_PIN URL...

DOH_HOST is mapped to 127.0.0.1 (the DoH server's own name needs no lookup); the server's
certificate is trusted by its key's pin (--ignore-certificate-errors-spki-list), as an
installed authority would be. For each URL: {"title": ...} or {"error": ...}.
"""
import json
import sys

from selenium.common.exceptions import WebDriverException

from web_pages import browser


def main():
    host, pin, urls = sys.argv[1], sys.argv[2], sys.argv[3:]
    driver = browser([f"--host-resolver-rules=MAP {host} 127.0.0.1", f"--ignore-certificate-errors-spki-list={pin}"])
    driver.set_page_load_timeout(15)
    report = {}
    try:
        for url in urls:
            try:
                driver.get(url)
                report[url] = {"title": driver.title}
            except WebDriverException as error:
                report[url] = {"error": (error.msg or str(error)).splitlines()[0]}
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
