#!/usr/bin/env python3
"""A scripted browser that plays the user through glewlwyd's own login.

Authorization code flow (also usable as $BROWSER, the URL comes last):

    idp_browser.py glewlwyd --base http://localhost:PORT --user U --password P
                   [--deny] [--print-redirect] AUTHORIZATION_URL

  1. signs the user in with glewlwyd's login API (POST /api/auth/),
  2. records the user's consent for the client and the requested scopes
     (PUT /api/auth/grant/{client_id}),
  3. opens the authorization URL with `g_continue` appended (the flag the
     glewlwyd login page adds when the user presses "Continue") and follows
     glewlwyd's redirects until one leaves glewlwyd: that is the client's
     redirect URI with `code=`/`error=`,
  4. by default opens that redirect (the app's loopback listener) and exits 0
     if it answers 200; with --print-redirect prints it instead (paste-back).

  --deny withdraws the consent instead of giving it.  glewlwyd has no "refuse"
  button and never redirects with error=access_denied: without consent it
  still issues a code, whose tokens carry only `openid` (the OIDC plugin
  always grants it).  The outcome is reported as is; a test that needs
  error=access_denied sends it to the app's listener itself.

Device flow (RFC 8628 user side):

    idp_browser.py glewlwyd-device --base http://localhost:PORT --user U
                   --password P [--client-id ID] [--scope S] [--deny] USER_CODE

  signs in, gives (or withdraws, with --deny; the device is then still
  approved, for `openid` only) consent for the client, then
  opens /api/{plugin}/device?code=USER_CODE&g_continue.  glewlwyd answers with
  a redirect to its login page carrying `prompt=deviceComplete` on success and
  `prompt=deviceCodeError` for an unknown or expired code.

Exit status: 0 on success, 1 when the flow does not reach the expected end
(the reason goes to stderr).  Only the Python standard library is used.
"""

import argparse
import http.client
import json
import sys
import urllib.parse

MAX_REDIRECTS = 10


class FlowError(Exception):
    pass


class Session:
    """HTTP client for one origin that keeps cookies and never follows redirects.

    Cookies are kept by name and sent back to the same origin, which is what a
    browser does for glewlwyd's host-wide session cookie.  http.cookiejar is
    not used because it drops cookies whose Domain is the dotless `localhost`.
    """

    def __init__(self, base):
        parts = urllib.parse.urlsplit(base)
        self.scheme, self.netloc = parts.scheme, parts.netloc
        self.cookies = {}

    def owns(self, url):
        parts = urllib.parse.urlsplit(url)
        return (parts.scheme, parts.netloc) == (self.scheme, self.netloc)

    def request(self, method, url, body=None):
        parts = urllib.parse.urlsplit(url)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        headers = {"Accept": "application/json, text/html"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn = http.client.HTTPConnection(parts.netloc, timeout=30)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = resp.read()
        finally:
            conn.close()
        for header in resp.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return resp.status, resp.getheader("Location"), payload


def login(session, base, user, password):
    status, _, payload = session.request(
        "POST", base + "/api/auth/", {"username": user, "password": password})
    if status != 200:
        raise FlowError(f"login as {user!r} refused: {status} {payload[:200]!r}")


def set_consent(session, base, client_id, scope):
    quoted = urllib.parse.quote(client_id, safe="")
    status, _, payload = session.request(
        "PUT", f"{base}/api/auth/grant/{quoted}", {"scope": scope})
    if status != 200:
        raise FlowError(f"consent for {client_id!r} refused: {status} {payload[:200]!r}")


def with_continue(url):
    return url + ("&" if "?" in url else "?") + "g_continue"


def run_code_flow(args):
    base = args.base.rstrip("/")
    session = Session(base)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(args.url).query)
    client_id = query.get("client_id", [""])[0]
    scope = query.get("scope", [""])[0]
    if not client_id:
        raise FlowError("authorization URL has no client_id")

    login(session, base, args.user, args.password)
    set_consent(session, base, client_id, "" if args.deny else scope)

    url = with_continue(args.url)
    for _ in range(MAX_REDIRECTS):
        status, location, payload = session.request("GET", url)
        if status not in (301, 302, 303, 307, 308) or not location:
            raise FlowError(f"GET {url} -> {status} {payload[:200]!r}")
        location = urllib.parse.urljoin(url, location)
        if not session.owns(location):
            break
        if "/login.html" in urllib.parse.urlsplit(location).path:
            # glewlwyd still wants an interactive step it cannot get here.
            raise FlowError(f"glewlwyd sent the user back to its login page: {location}")
        url = location
    else:
        raise FlowError("too many redirects inside glewlwyd")

    if args.print_redirect:
        print(location, flush=True)
        return 0

    # The app's loopback listener answers the redirect with a small page.
    parts = urllib.parse.urlsplit(location)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        conn.request("GET", path, headers={"Accept": "text/html"})
        resp = conn.getresponse()
        resp.read()
    finally:
        conn.close()
    if resp.status != 200:
        raise FlowError(f"redirect target {location} answered {resp.status}")
    return 0


def run_device_flow(args):
    base = args.base.rstrip("/")
    session = Session(base)
    login(session, base, args.user, args.password)
    set_consent(session, base, args.client_id, "" if args.deny else args.scope)

    code = urllib.parse.quote(args.user_code, safe="")
    url = f"{base}/api/{args.plugin}/device?code={code}&g_continue"
    status, location, payload = session.request("GET", url)
    if status != 302 or not location:
        raise FlowError(f"GET {url} -> {status} {payload[:200]!r}")
    prompt = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("prompt", [""])[0]
    if args.print_redirect:
        print(location, flush=True)
    if prompt != "deviceComplete":
        raise FlowError(f"device verification did not complete: {location}")
    return 0


def main():
    parser = argparse.ArgumentParser(description="Scripted glewlwyd user.")
    sub = parser.add_subparsers(dest="mode", required=True)

    code = sub.add_parser("glewlwyd", help="authorization code flow")
    device = sub.add_parser("glewlwyd-device", help="device verification")
    for p in (code, device):
        p.add_argument("--base", required=True, help="glewlwyd root, http://localhost:PORT")
        p.add_argument("--user", required=True)
        p.add_argument("--password", required=True)
        p.add_argument("--deny", action="store_true", help="withdraw consent instead")
        p.add_argument("--print-redirect", action="store_true",
                       help="print the final redirect instead of opening it")
    code.add_argument("url", help="authorization URL")
    device.add_argument("--client-id", default="activate-test")
    device.add_argument("--scope", default="openid profile mobile")
    device.add_argument("--plugin", default="oidc", help="OIDC plugin instance name")
    device.add_argument("user_code")

    args = parser.parse_args()
    try:
        if args.mode == "glewlwyd":
            return run_code_flow(args)
        return run_device_flow(args)
    except (FlowError, OSError) as exc:
        print(f"idp_browser: {exc}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
