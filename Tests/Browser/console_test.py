"""Drives the discovery console (/admin/) in a real headless Chromium.

Usage: console_test.py BASE_URL TOKEN APP_ID DOCUMENT

Signs in with a wrong token (refused), then the right one; issues a code labelled
<script>alert(1)</script> and checks it is shown once, with its QR, and the label as text; reloads
(the code is gone from the page); revokes it; checks the lookup then answers 410 revoked. Then sets
the application's client policies: a contradictory policy is refused with its key path, a valid one
(with a hostile unknown value) is stored and served at SAP's settingsExchange path. Last, checks that
the page asked nothing of another origin and broke no Content-Security-Policy rule.
Prints a JSON summary on stdout; exits 1 with the reason on the first failed check.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

LABEL = "<script>alert(1)</script>"


def fail(reason):
    print("console test: " + reason, file=sys.stderr)
    sys.exit(1)


def check(condition, reason):
    if not condition:
        fail(reason)


def main():
    base, token, app_id, document = sys.argv[1:5]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--window-size=1280,1000"]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 20)
    summary = {}
    try:
        driver.get(base + "/admin/")
        check(len(driver.find_elements(By.CSS_SELECTOR, "script")) == 1, "the page has one script, from a file")

        # A wrong token is refused, and the console stays closed.
        driver.find_element(By.ID, "token").send_keys("wrong-token-wrong-token-wrong")
        driver.find_element(By.ID, "sign-in").click()
        wait.until(conditions.visibility_of_element_located((By.ID, "error")))
        check("refused" in driver.find_element(By.ID, "error").text, "a wrong token says it was refused")
        check(not driver.find_element(By.ID, "console").is_displayed(), "a wrong token opens nothing")

        # The right token opens the applications.
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "sign-in").click()
        app = wait.until(conditions.element_to_be_clickable((By.CSS_SELECTOR, "button.app[data-app='%s']" % app_id)))
        app.click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#documents tbody tr")) > 0)
        hosts = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#documents tbody tr")]
        check(any(document in row for row in hosts), "the documents table lists %s" % document)

        # Issue one code with a hostile label: shown once, with its QR, the label as text.
        wait.until(lambda d: document in [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#issue-document option")])
        driver.find_element(By.CSS_SELECTOR, "#issue-document option[value='%s']" % document).click()
        driver.find_element(By.ID, "issue-label").send_keys(LABEL)
        driver.find_element(By.ID, "issue").click()
        shown = wait.until(conditions.visibility_of_element_located((By.CSS_SELECTOR, ".issued-code")))
        code = shown.text.strip()
        check(len(code) == 14 and code.count("-") == 2, "an issued code looks like ABCD-EFGH-JKMN: %r" % code)
        qr = driver.find_element(By.CSS_SELECTOR, "#issued-list img.qr")
        check(qr.get_attribute("src").startswith("data:image/svg+xml;base64,"), "the code's QR is an SVG image")
        check(driver.execute_script("return arguments[0].naturalWidth", qr) > 0, "the QR image loads")
        details = driver.find_element(By.CSS_SELECTOR, ".issued-label").text
        check(details.startswith(LABEL), "the label is shown as text: %r" % details)
        code_id = details.split("(id ")[1].split(",")[0]
        wait.until(lambda d: any(cell.text == LABEL for cell in d.find_elements(By.CSS_SELECTOR, "#codes td")))
        try:
            driver.switch_to.alert
            fail("the label ran as script")
        except NoAlertPresentException:
            pass
        check(len(driver.find_elements(By.CSS_SELECTOR, "script")) == 1, "no script element was added by a label")

        # Shown once: after a reload the code is nowhere on the page.
        driver.refresh()
        wait.until(conditions.element_to_be_clickable((By.CSS_SELECTOR, "button.app[data-app='%s']" % app_id))).click()
        revoke = wait.until(conditions.element_to_be_clickable((By.CSS_SELECTOR, "button.revoke[data-id='%s']" % code_id)))
        check(code not in driver.page_source and code.replace("-", "") not in driver.page_source, "the code is shown only once")

        # Revoke: the row says so, and the lookup answers 410 revoked.
        revoke.click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "button.revoke[data-id='%s']" % code_id))
        rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#codes tbody tr")]
        check(any(row.startswith(code_id + " revoked") for row in rows), "the code is listed as revoked: %r" % rows)
        lookup = "%s/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='%s:1.0',OnboardingCode='%s')" % (
            base, urllib.parse.quote(app_id), code)
        try:
            urllib.request.urlopen(lookup, timeout=10)
            fail("the revoked code was still served")
        except urllib.error.HTTPError as error:
            answer = json.loads(error.read())
            check(error.code == 410 and answer["error"]["code"] == "revoked", "the lookup answers 410 revoked: %s %r" % (error.code, answer))
            summary["lookupStatus"] = error.code

        # Client policies: none yet; a contradictory policy names its key; a valid one is served.
        status = wait.until(lambda d: d.find_element(By.ID, "settings-status").text or None)
        check("No client policies" in status, "the console says there are no client policies yet: %r" % status)
        editor = driver.find_element(By.ID, "settings-json")
        editor.clear()
        editor.send_keys('{"passwordPolicy": {"passwordPolicyIsDigitsOnly": "true", "passwordPolicyUpperRequired": "true"}}')
        driver.find_element(By.ID, "settings-save").click()
        wait.until(lambda d: "passwordPolicyUpperRequired" in d.find_element(By.ID, "error").text)
        check(driver.find_element(By.ID, "error").text.startswith("passwordPolicy.passwordPolicyUpperRequired: "),
              "a refused policy names its key path: %r" % driver.find_element(By.ID, "error").text)
        policies = {"passwordPolicy": {"passwordPolicyMinLength": "12", "passwordPolicyRetryLimit": "5"},
                    "appNotes": {"label": LABEL}}
        editor.clear()
        editor.send_keys(json.dumps(policies))
        driver.find_element(By.ID, "settings-save").click()
        wait.until(lambda d: d.find_element(By.ID, "settings-status").text.startswith("Stored "))
        check(not driver.find_element(By.ID, "error").is_displayed(), "a valid policy clears the error")
        check(LABEL in driver.find_element(By.ID, "settings-json").get_attribute("value"), "the stored policies are shown as text")
        check(len(driver.find_elements(By.CSS_SELECTOR, "script")) == 1, "no script element was added by a policy value")
        served_url = "%s/mobileservices/application/%s/storage/v1/runtime/application/%s/global/mobileservices/settingsExchange" % (
            base, urllib.parse.quote(app_id), urllib.parse.quote(app_id))
        with urllib.request.urlopen(served_url, timeout=10) as response:
            served = json.loads(response.read())
        check(served == policies, "the policies are served as stored: %r" % served)
        summary["settingsServed"] = True

        # Nothing was asked of another origin, and no policy rule was broken.
        urls = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        foreign = [url for url in urls if not (url.startswith(base + "/") or url.startswith("data:"))]
        check(urls and not foreign, "requests only to %s: %r" % (base, foreign))
        violations = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
        check(not violations, "no Content-Security-Policy violation: %r" % violations)
        summary.update({"code": code, "id": int(code_id), "requests": len(urls), "foreignRequests": len(foreign)})
    finally:
        driver.quit()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
