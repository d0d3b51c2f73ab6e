"""axe.py DRIVER AXE_JS PAGE...: each page, loaded in the headless Chromium
that the chromedriver at DRIVER (a URL: a11y-test.sh starts it) runs, checked
by axe-core (AXE_JS) against WCAG 2.1 A and AA and axe's best practices
(AXE_TAGS=TAG,... asks for other rules by axe's tags): a line a violation,
with the rule, its impact and the element, then a count a page. Exits 1 on
any.
Instructors' only (make check-a11y), from build/pytools (make deps-a11y)."""
import os
import sys
from pathlib import Path

from selenium import webdriver

TAGS = os.environ.get("AXE_TAGS", "wcag2a,wcag2aa,wcag21a,wcag21aa,best-practice").split(",")


def main(driver_url, axe_js, pages):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    browser = webdriver.Remote(command_executor=driver_url, options=options)
    axe = Path(axe_js).read_text(encoding="utf-8")
    total = 0
    try:
        browser.set_script_timeout(60)
        for page in pages:
            browser.get(Path(page).resolve().as_uri())
            browser.execute_script(axe)
            results = browser.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "axe.run(document, { runOnly: { type: 'tag', values: arguments[0] } })"
                ".then(done, e => done({ error: String(e) }));", TAGS)
            if "error" in results:
                print(f"axe: {page}: axe-core failed: {results['error']}")
                total += 1
                continue
            found = 0
            for rule in results["violations"]:
                for node in rule["nodes"]:
                    found += 1
                    element = " ".join(node["html"].split())
                    element = element if len(element) <= 160 else element[:157] + "..."
                    print(f"axe: {page}: {rule['id']} ({node.get('impact') or rule['impact']}): "
                          f"{rule['help']}: {' '.join(map(str, node['target']))}: {element}")
            print(f"axe: {page}: {found} violation{'' if found == 1 else 's'} "
                  f"(axe-core {results['testEngine']['version']})")
            total += found
    finally:
        browser.quit()
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
