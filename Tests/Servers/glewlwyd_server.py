#!/usr/bin/env python3
"""Runs a real glewlwyd identity provider for the activate tests.

Usage:
    glewlwyd_server.py STATE_DIR [--redirect-uri URI ...] [--device-interval N]
                       [--device-expiration N] [--access-token-duration N]

The script picks a free port on 127.0.0.1, writes a glewlwyd configuration and
an SQLite database into STATE_DIR, starts glewlwyd as a child process, and then
configures it through glewlwyd's admin REST API:

  * scopes `profile` and `mobile` (`openid` is part of the stock schema),
  * a user `alice` holding those scopes, authenticated with her password,
  * a public client `activate-test` (no secret) allowed the `code`,
    `refresh_token` and `device_authorization` grants, with the given
    redirect URIs (glewlwyd compares them exactly, port included),
  * an OpenID Connect plugin instance `oidc` (served under /api/oidc/) with
    PKCE required, device authorization, one-time-use (rotating) refresh tokens
    and the RFC 7009 revocation endpoint.

When everything answers, it prints one line of JSON on stdout describing the
provider, then waits until it is killed.  glewlwyd is started with
PR_SET_PDEATHSIG=SIGKILL, so killing this script (even with SIGKILL) also ends
glewlwyd.  Any setup failure prints one line starting with `error: ` (with the
tail of glewlwyd's log) and exits 1.

Only the Python standard library and the glewlwyd Debian package are needed.
"""

import argparse
import ctypes
import gzip
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time

GLEWLWYD = "/usr/bin/glewlwyd"
SCHEMA = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
MODULE_ROOT = "/usr/lib/glewlwyd"
WEBAPP = "/usr/share/glewlwyd/webapp/"

# The stock schema creates this administrator.
ADMIN_USER = "admin"
ADMIN_PASSWORD = "password"

PLUGIN_NAME = "oidc"
CLIENT_ID = "activate-test"
USER = "alice"
PASSWORD = "alice-password-1"
SCOPES = ["openid", "profile", "mobile"]

PR_SET_PDEATHSIG = 1


class SetupError(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """preexec_fn: the kernel sends SIGKILL to glewlwyd when this script dies."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def write_config(path, port, db_path, log_path):
    # `use_secure_connection` is deliberately absent: glewlwyd 2.7.5 treats the
    # key's mere presence (even `=false`) as "TLS on" and exits with "secure
    # connection is active but certificate is not valid".  Without it, plain
    # http is used.
    # cookie_secure=0 lets the session cookie travel over http.
    # external_url has no trailing slash: glewlwyd appends "/api/..." to it, so
    # a trailing slash would put "//" into every endpoint in the metadata.
    config = f"""
port={port}
bind_address="127.0.0.1"
external_url="http://localhost:{port}"
login_url="login.html"
api_prefix="api"
static_files_path="{WEBAPP}"
allow_origin="*"
log_mode="file"
log_level="DEBUG"
log_file="{log_path}"
cookie_domain="localhost"
cookie_secure=0
cookie_same_site="empty"
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
add_x_frame_option_header_deny=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="{MODULE_ROOT}/user"
user_middleware_module_path="{MODULE_ROOT}/user_middleware"
client_module_path="{MODULE_ROOT}/client"
user_auth_scheme_module_path="{MODULE_ROOT}/scheme"
plugin_module_path="{MODULE_ROOT}/plugin"
hash_algorithm="SHA512"
database =
{{
  type = "sqlite3"
  path = "{db_path}"
}};
static_files_mime_types =
(
  {{ extension = ".html" mime_type = "text/html" compress = 1 }},
  {{ extension = ".css" mime_type = "text/css" compress = 1 }},
  {{ extension = ".js" mime_type = "application/javascript" compress = 1 }},
  {{ extension = ".json" mime_type = "application/json" compress = 1 }}
)
"""
    with open(path, "w") as f:
        f.write(config)


def init_database(db_path):
    if os.path.exists(db_path):
        os.unlink(db_path)
    with gzip.open(SCHEMA, "rt") as f:
        script = f.read()
    con = sqlite3.connect(db_path)
    try:
        con.executescript(script)
        con.commit()
    finally:
        con.close()


def make_signing_key(state_dir):
    """An RSA key pair for the ID tokens and access tokens (RS256)."""
    key = os.path.join(state_dir, "signing-key.pem")
    pub = os.path.join(state_dir, "signing-pub.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["openssl", "rsa", "-in", key, "-pubout", "-out", pub], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(key) as f:
        key_pem = f.read()
    with open(pub) as f:
        pub_pem = f.read()
    return key_pem, pub_pem


class Admin:
    """Calls glewlwyd's REST API with an admin session cookie."""

    def __init__(self, port):
        self.port = port
        self.cookie = None

    def request(self, method, path, body=None, expect=(200,)):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Host": f"localhost:{self.port}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.cookie:
            headers["Cookie"] = self.cookie
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = resp.read()
            set_cookie = resp.getheader("Set-Cookie")
        finally:
            conn.close()
        if resp.status not in expect:
            raise SetupError(f"{method} {path} -> {resp.status} {payload[:500]!r}")
        return resp, payload, set_cookie

    def login(self):
        _, _, set_cookie = self.request(
            "POST", "/api/auth/", {"username": ADMIN_USER, "password": ADMIN_PASSWORD})
        if not set_cookie:
            raise SetupError("admin login returned no session cookie")
        self.cookie = set_cookie.split(";", 1)[0]


def wait_until_listening(port, proc, deadline):
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SetupError(f"glewlwyd exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SetupError("glewlwyd did not start listening")


def plugin_parameters(args, issuer, key_pem, pub_pem):
    """The OIDC plugin's final parameters.

    They must be complete at creation: glewlwyd applies changed plugin
    parameters only after the instance is disabled and enabled again.
    """
    return {
        "iss": issuer,
        "jwt-type": "rsa",
        "jwt-key-size": "256",
        "key": key_pem,
        "cert": pub_pem,
        "access-token-duration": args.access_token_duration,
        "refresh-token-duration": 1209600,
        "code-duration": 600,
        "refresh-token-rolling": True,
        # Each refresh returns a new refresh token and disables the one used;
        # replaying a used one also disables the newest one of the chain.
        "refresh-token-one-use": "always",
        "client-refresh-token-one-use-parameter": "refresh-token-one-use",
        "allow-non-oidc": True,
        "auth-type-code-enabled": True,
        "auth-type-code-revoke-replayed": False,
        "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": True,
        "auth-type-none-enabled": False,
        "auth-type-password-enabled": False,
        "auth-type-client-enabled": False,
        "auth-type-device-enabled": True,
        "auth-type-refresh-enabled": True,
        "device-authorization-expiration": args.device_expiration,
        "device-authorization-interval": args.device_interval,
        "secret-type": "public",
        "allowed-scope": SCOPES,
        "scope": [],
        "additional-parameters": [],
        "claims": [],
        "name-claim": "on-demand",
        "email-claim": "no",
        "scope-claim": "no",
        "address-claim": {"type": "no"},
        "jwks-show": True,
        "request-parameter-allow": False,
        "pkce-allowed": True,
        "pkce-method-plain-allowed": False,
        "pkce-required": True,
        "pkce-required-public-client": True,
        "pkce-scopes": [],
        "introspection-revocation-allowed": True,
        # /revoke and /introspect accept `Authorization: Bearer <access token>`
        # when that (unexpired, unrevoked) access token carries every scope
        # listed here; `openid` is in every token this setup issues.  A public
        # client has no other way in: client authentication there needs a
        # confidential client with the client_credentials grant.
        "introspection-revocation-auth-scope": ["openid"],
        "introspection-revocation-allow-target-client": True,
        "register-client-allowed": False,
        "session-management-allowed": False,
        "oauth-dpop-allowed": False,
        "resource-allowed": False,
        "oauth-rar-allowed": False,
        "oauth-par-allowed": False,
        "oauth-ciba-allowed": False,
        "encrypt-out-token-allow": False,
        "restrict-scope-client-property": "",
        "prompt-continue-client-property": "",
    }


def configure(admin, args, issuer, key_pem, pub_pem):
    admin.login()
    for name, description in (("profile", "Profile claims"), ("mobile", "Mobile API")):
        admin.request("POST", "/api/scope/", {
            "name": name,
            "display_name": name,
            "description": description,
            "password_required": True,
            "password_max_age": 0,
            "scheme": {},
        })
    admin.request("POST", "/api/user/", {
        "username": USER,
        "name": "Alice Test",
        "email": "alice@example.test",
        "password": PASSWORD,
        "enabled": True,
        "scope": SCOPES,
    })
    admin.request("POST", "/api/client/", {
        "client_id": CLIENT_ID,
        "name": "activate tests",
        "description": "public native client",
        "confidential": False,
        "enabled": True,
        "redirect_uri": args.redirect_uri,
        "authorization_type": ["code", "refresh_token", "device_authorization"],
        "token_endpoint_auth_method": ["none"],
        "scope": [],
    })
    admin.request("POST", "/api/mod/plugin/", {
        "module": "oidc",
        "name": PLUGIN_NAME,
        "display_name": "OpenID Connect",
        "enabled": True,
        "parameters": plugin_parameters(args, issuer, key_pem, pub_pem),
    })


def fetch_metadata(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", f"/api/{PLUGIN_NAME}/.well-known/openid-configuration",
                     headers={"Host": f"localhost:{port}"})
        resp = conn.getresponse()
        payload = resp.read()
    finally:
        conn.close()
    if resp.status != 200:
        raise SetupError(f"metadata -> {resp.status} {payload[:300]!r}")
    return json.loads(payload)


def log_tail(log_path, lines=15):
    try:
        with open(log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state_dir")
    parser.add_argument("--redirect-uri", action="append", default=[],
                        help="redirect URI registered for the client (repeatable)")
    parser.add_argument("--device-interval", type=int, default=1,
                        help="device grant polling interval in seconds")
    parser.add_argument("--device-expiration", type=int, default=120,
                        help="device code lifetime in seconds")
    parser.add_argument("--access-token-duration", type=int, default=3600,
                        help="access token lifetime in seconds")
    args = parser.parse_args()
    if not args.redirect_uri:
        # glewlwyd refuses a client without any redirect URI for the code grant.
        args.redirect_uri = ["http://127.0.0.1/callback"]

    state_dir = os.path.abspath(args.state_dir)
    config_path = os.path.join(state_dir, "glewlwyd.conf")
    db_path = os.path.join(state_dir, "glewlwyd.db")
    log_path = os.path.join(state_dir, "glewlwyd.log")
    proc = None
    try:
        os.makedirs(state_dir, exist_ok=True)
        init_database(db_path)
        key_pem, pub_pem = make_signing_key(state_dir)
        # The port was free when picked, but another process (a test running beside this one)
        # can take it before glewlwyd binds it; glewlwyd then logs the failure and stops, while
        # the other process answers the connection. A new port is tried then, twice at most.
        for attempt in range(3):
            port = free_port()
            write_config(config_path, port, db_path, log_path)
            open(log_path, "w").close()
            with open(os.path.join(state_dir, "glewlwyd.stdout"), "wb") as out:
                proc = subprocess.Popen(
                    [GLEWLWYD, f"--config-file={config_path}"],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    preexec_fn=die_with_parent, cwd=state_dir)
            try:
                wait_until_listening(port, proc, time.time() + 20)
                time.sleep(0.3)
            except SetupError:
                if "Address already in use" not in log_tail(log_path):
                    raise
            if proc.poll() is None and "Address already in use" not in log_tail(log_path):
                break
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if attempt == 2:
                raise SetupError(f"glewlwyd could not bind a port three times (last {port})")
        issuer = f"http://localhost:{port}/api/{PLUGIN_NAME}"
        configure(Admin(port), args, issuer, key_pem, pub_pem)
        meta = fetch_metadata(port)
    except (SetupError, OSError, subprocess.CalledProcessError, sqlite3.Error,
            ValueError) as exc:
        # One line, so a reader of the first stdout line gets the whole story.
        tail = " | ".join(log_tail(log_path).splitlines())
        print(f"error: {exc} -- glewlwyd log tail: {tail}", flush=True)
        if proc is not None and proc.poll() is None:
            proc.kill()
        sys.exit(1)

    print(json.dumps({
        "port": port,
        "issuer": meta.get("issuer"),
        "authorization_endpoint": meta.get("authorization_endpoint"),
        "token_endpoint": meta.get("token_endpoint"),
        "device_authorization_endpoint": meta.get("device_authorization_endpoint"),
        "revocation_endpoint": meta.get("revocation_endpoint"),
        "client_id": CLIENT_ID,
        "user": USER,
        "password": PASSWORD,
        "scope": " ".join(SCOPES),
    }), flush=True)

    # Stay alive as long as glewlwyd does; SIGKILL on this script ends both.
    sys.exit(proc.wait())


if __name__ == "__main__":
    main()
