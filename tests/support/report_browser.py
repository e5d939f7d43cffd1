#!/usr/bin/python3
"""Renders a report.html in headless Chromium through chromedriver (Debian's chromium,
chromium-driver and python3-selenium) and reads its layout, as a buyer's browser would draw it.

  report_browser.py check REPORT.html SCREENSHOT.png
      exit 0 when the verdict banner (#summary) ends within the first 1000 px and every
      <svg data-plot> has a non-zero size; prints one line per fact it checked, FAIL lines
      for what it did not find; keeps a full-window screenshot.
  report_browser.py time REPORT.html...
      prints "file bytes load_ms" per file: the time from navigation to the load event.
Exit 77 (a skip for ctest) when Chromium or its driver cannot be started.
"""
import os
import shutil
import sys


def driver():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        print(f"skip: python3-selenium is not installed ({e})")
        sys.exit(77)
    exe = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not os.path.exists(exe) or not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium")):
        print("skip: chromium or chromium-driver is not installed")
        sys.exit(77)
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,1000", "--force-device-scale-factor=1"):
        opts.add_argument(a)
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    try:
        return webdriver.Chrome(service=Service(exe), options=opts)
    except Exception as e:  # a driver that cannot start is no finding about the report
        print(f"skip: chromium did not start: {e}")
        sys.exit(77)


def check(path, shot):
    from selenium.webdriver.common.by import By
    d = driver()
    bad = 0
    try:
        d.get("file://" + os.path.abspath(path))
        banner = d.find_elements(By.CSS_SELECTOR, "#summary")
        if not banner:
            print("FAIL: no #summary verdict banner")
            bad += 1
        else:
            r = banner[0].rect
            bottom = r["y"] + r["height"]
            word = banner[0].find_element(By.TAG_NAME, "h1").text
            ok = bottom <= 1000 and r["height"] > 0 and word
            print(f"{'ok' if ok else 'FAIL'}: the verdict '{word}' is drawn at y {r['y']:.0f}..{bottom:.0f} px")
            bad += not ok
        plots = d.find_elements(By.CSS_SELECTOR, "svg[data-plot]")
        if not plots:
            print("FAIL: no <svg data-plot> in the page")
            bad += 1
        for p in plots:
            r = p.rect
            name = p.get_attribute("data-plot")
            ok = r["width"] > 0 and r["height"] > 0
            print(f"{'ok' if ok else 'FAIL'}: plot {name} is {r['width']:.0f} x {r['height']:.0f} px")
            bad += not ok
        d.save_screenshot(shot)
        print(f"screenshot: {shot}")
    finally:
        d.quit()
    return 1 if bad else 0


def timing(paths):
    d = driver()
    try:
        for p in paths:
            d.get("file://" + os.path.abspath(p))
            ms = d.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return t ? t.loadEventEnd - t.startTime : -1;")
            print(f"{p} {os.path.getsize(p)} {ms:.0f}")
    finally:
        d.quit()
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if len(sys.argv) >= 3 and sys.argv[1] == "time":
        sys.exit(timing(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
