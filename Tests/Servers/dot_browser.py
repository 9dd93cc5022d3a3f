"""A scripted browser that plays the user through django-oauth-toolkit's login and consent pages.

Usage:
  dot_browser.py --base URL --user U --password P [--deny] [--print-redirect] AUTHORIZATION_URL
  dot_browser.py --device --base URL --user U --password P [--deny] USER_CODE_OR_VERIFICATION_URL

Authorization code: signs in at BASE/accounts/login/, opens AUTHORIZATION_URL, submits DOT's
consent form (Authorize, or Cancel with --deny, which DOT answers with error=access_denied) and
takes the 302 to the redirect URI. By default it GETs that address, as a browser would, which reaches
the app's loopback listener: exit 0 when it answers 200. With --print-redirect it prints the address
on stdout instead and does not open it.

Device: signs in, enters the user code at BASE/o/device/ and presses Accept (or Deny with --deny) on
DOT's confirmation page. The argument is the user code or a verification_uri_complete address
(BASE/o/device/?user_code=...); an AUTHORIZATION_URL whose path is /o/device/ is handled the same
way without --device, so the script also serves as $BROWSER for the device flow.

It works as $BROWSER: "python3 dot_browser.py --base ... --user ... --password ... %s".
Python standard library only. Exit status: 0 done, 1 the provider or the redirect target refused,
2 usage.
"""
import argparse
import html.parser
import http.cookiejar
import sys
import urllib.error
import urllib.parse
import urllib.request

TIMEOUT = 30


class FormParser(html.parser.HTMLParser):
    """Collects each form's action and its input and button fields."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "form":
            self.forms.append({"action": attributes.get("action") or "", "fields": []})
        elif tag in ("input", "button", "textarea", "select") and self.forms:
            self.forms[-1]["fields"].append((tag, attributes))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    # Every redirect is taken by hand: the last one leaves the provider for the app's redirect URI.
    def redirect_request(self, *arguments, **keywords):
        return None


class Browser:
    def __init__(self):
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}),
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
            NoRedirect(),
        )

    def request(self, url, form=None, referer=None):
        """Returns (status, final URL, Location header, body text) without following redirects."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(url, data=data)
        if referer:
            request.add_header("Referer", referer)
        try:
            response = self.opener.open(request, timeout=TIMEOUT)
        except urllib.error.HTTPError as error:
            response = error
        with response:
            body = response.read().decode("utf-8", "replace")
            location = response.headers.get("Location")
            if location:
                location = urllib.parse.urljoin(url, location)
            return response.status, url, location, body

    def follow(self, url, form=None, stay_on=None, limit=10):
        """Requests url and follows redirects while they stay on the origin stay_on."""
        status, url, location, body = self.request(url, form)
        while status in (301, 302, 303, 307, 308) and location and limit > 0:
            if stay_on and origin(location) != stay_on:
                break
            status, url, location, body = self.request(location)
            limit -= 1
        return status, url, location, body


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return "%s://%s" % (parts.scheme, parts.netloc)


def fail(message):
    print("dot_browser: %s" % message, file=sys.stderr)
    sys.exit(1)


def parse_forms(body):
    parser = FormParser()
    parser.feed(body)
    return parser.forms


def hidden_fields(form):
    return [(a["name"], a.get("value", "")) for tag, a in form["fields"]
            if tag == "input" and a.get("type") == "hidden" and a.get("name")]


def sign_in(browser, base, user, password):
    login = base + "/accounts/login/"
    status, _, _, body = browser.request(login)
    forms = parse_forms(body)
    if status != 200 or not forms:
        fail("login page %s answered %d without a form" % (login, status))
    fields = dict(hidden_fields(forms[0]))
    fields.update(username=user, password=password)
    status, _, location, body = browser.request(login, fields, referer=login)
    # Django's LoginView answers 302 on success and the form again (200) on wrong credentials.
    if status != 302:
        fail("signing in as %s failed (%d)" % (user, status))


def authorize(browser, options):
    base = origin(options.url)
    status, url, location, body = browser.follow(options.url, stay_on=base)
    if status in (301, 302, 303, 307, 308):
        # DOT redirected straight back to the app, e.g. with an error for a bad scope.
        return location
    forms = [f for f in parse_forms(body) if any(a.get("name") == "client_id" for _, a in f["fields"])]
    if status != 200 or not forms:
        fail("authorization page answered %d without a consent form: %s" % (status, summary(body)))
    form = forms[0]
    fields = hidden_fields(form)
    if not options.deny:
        # DOT's AllowForm reads "allow"; the Cancel button has no name, so leaving it out denies.
        fields.append(("allow", "Authorize"))
    target = urllib.parse.urljoin(url, form["action"]) if form["action"] else url
    status, _, location, body = browser.request(target, fields, referer=url)
    if status not in (301, 302, 303, 307, 308) or not location:
        fail("consent answered %d without a redirect: %s" % (status, summary(body)))
    return location


def approve_device(browser, options, base):
    argument = options.url
    if "://" in argument:
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(argument).query).get("user_code", [""])[0]
    else:
        code = argument
    if not code:
        fail("no user code in %s" % argument)
    page = base + "/o/device/"
    status, _, _, body = browser.request(page)
    forms = parse_forms(body)
    if status != 200 or not forms:
        fail("device page answered %d without a form" % status)
    fields = dict(hidden_fields(forms[0]))
    fields["user_code"] = code
    status, _, location, body = browser.request(page, fields, referer=page)
    # DOT answers a good code with a redirect to its confirmation page, a bad one with the form again.
    if status != 302 or not location:
        fail("user code %s refused (%d): %s" % (code, status, summary(body)))
    confirm = location
    status, _, _, body = browser.request(confirm)
    forms = parse_forms(body)
    if status != 200 or not forms:
        fail("confirmation page answered %d without a form" % status)
    fields = dict(hidden_fields(forms[0]))
    fields["action"] = "deny" if options.deny else "accept"
    status, _, location, body = browser.request(confirm, fields, referer=confirm)
    if status != 302:
        fail("confirmation answered %d: %s" % (status, summary(body)))
    status, _, _, body = browser.request(location)
    print("device %s: %s" % (code, summary(body)), file=sys.stderr)


def summary(body):
    """The page's text in one short line, for error messages."""
    class Text(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.parts = []
            self.skip = False

        def handle_starttag(self, tag, attributes):
            self.skip = tag in ("style", "script", "title")

        def handle_endtag(self, tag):
            self.skip = False

        def handle_data(self, data):
            if not self.skip and data.strip():
                self.parts.append(data.strip())

    parser = Text()
    parser.feed(body)
    return " ".join(parser.parts)[:300]


def main():
    parser = argparse.ArgumentParser(description="Plays the user through django-oauth-toolkit's pages.")
    parser.add_argument("--base", help="the provider's address, e.g. http://127.0.0.1:PORT "
                                       "(defaults to the origin of the URL argument)")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--deny", action="store_true")
    parser.add_argument("--print-redirect", action="store_true")
    parser.add_argument("--device", action="store_true")
    parser.add_argument("url", metavar="AUTHORIZATION_URL_OR_USER_CODE")
    options = parser.parse_args()
    if not options.base and "://" not in options.url:
        parser.error("--base is needed with a bare user code")
    base = (options.base or origin(options.url)).rstrip("/")

    browser = Browser()
    sign_in(browser, base, options.user, options.password)
    device = options.device or (
        "://" in options.url and urllib.parse.urlsplit(options.url).path.rstrip("/").endswith("/o/device"))
    if device:
        approve_device(browser, options, base)
        return
    redirect = authorize(browser, options)
    if options.print_redirect:
        print(redirect, flush=True)
        return
    # The app's loopback listener is a different origin: open it without the provider's cookies.
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(redirect, timeout=TIMEOUT) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError as error:
        fail("redirect to %s failed: %s" % (redirect, error))
    if status != 200:
        fail("redirect target answered %d" % status)


if __name__ == "__main__":
    main()
