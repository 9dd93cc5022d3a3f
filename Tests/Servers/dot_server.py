"""A real OAuth 2.0 identity provider for the sign-in tests: django-oauth-toolkit (DOT) 3.x.

Usage: dot_server.py STATE_DIR [--access-token-seconds N] [--device-interval N]
                     [--authorization-response-iss] [--device-expires-seconds N] [--slow-down]
                     [--verbose]

One file is the whole Django project: settings are configured in code, the URLs live here too, and
the database is SQLite in STATE_DIR (created if missing; reused if present). On start it migrates,
creates the user bob and two public applications, binds a free port on 127.0.0.1, prints ONE JSON
line on stdout and serves until killed:

  {"port", "issuer", "metadata_endpoint", "authorization_endpoint", "token_endpoint",
   "device_authorization_endpoint", "device_verification_endpoint", "revocation_endpoint",
   "login_endpoint", "client_id", "device_client_id", "redirect_uri", "user", "password", "scope"}

Two applications, because a DOT application has exactly one authorization_grant_type:
  client_id         authorization code (PKCE required), redirect http://127.0.0.1/callback, which
                    DOT matches on any port (RFC 8252 section 7.3), and refresh_token
  device_client_id  the device grant (RFC 8628), and refresh_token

Endpoints (DOT's own views unless said otherwise):
  /.well-known/oauth-authorization-server  RFC 8414 metadata: DOT's view, plus the
                                           device_authorization_endpoint DOT leaves out
  /o/authorize/  /o/token/  /o/revoke_token/  /o/introspect/
  /o/device-authorization/  /o/device/  /o/device-confirm/<client>/<code>
  /accounts/login/                         Django's LoginView with a minimal form

Options:
  --access-token-seconds N    access token lifetime (ACCESS_TOKEN_EXPIRE_SECONDS; default 3600)
  --device-interval N         polling interval the device authorization answers (default 5)
  --authorization-response-iss  turns on DOT's RFC 9207 gate: the authorization response carries
                              iss, and the metadata says authorization_response_iss_parameter_supported
  --device-expires-seconds N  NOT DOT BEHAVIOUR: device codes live N seconds (oauthlib fixes 1800)
                              and the token endpoint answers expired_token past that (DOT only
                              checks expiry when the user types the code)
  --slow-down                 NOT DOT BEHAVIOUR: a device poll sooner than the interval after the
                              previous one is answered 400 slow_down (DOT never sends slow_down)
  --verbose                   log each request on stderr

On a setup failure it prints "error: REASON" on stdout and exits 1.
"""
import argparse
import json
import os
import secrets
import socketserver
import sys
import threading
import time
import traceback
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

USER = "bob"
PASSWORD = "bob-password-1"
CLIENT_ID = "activate-cli"
DEVICE_CLIENT_ID = "activate-cli-device"
REDIRECT_URI = "http://127.0.0.1/callback"
SCOPE = "read write"

# The login page DOT's views send an anonymous user to. A form with the standard field names is
# all a scripted browser (dot_browser.py) or a person needs.
LOGIN_TEMPLATE = """<!DOCTYPE html>
<html><head><title>Sign in</title></head><body>
<h1>Sign in</h1>
{% if form.errors %}<p class="errornote">Wrong user name or password.</p>{% endif %}
<form method="post" action="{{ request.path }}">
{% csrf_token %}
<p><label>User name <input type="text" name="username" autofocus></label></p>
<p><label>Password <input type="password" name="password"></label></p>
<input type="hidden" name="next" value="{{ next }}">
<input type="submit" value="Sign in">
</form>
</body></html>
"""

# Django resolves ROOT_URLCONF (this module) on the first request; main() fills this in after
# django.setup(), since DOT's views can only be imported once settings are configured.
urlpatterns = []


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    # A browser, the app's poller and the test itself talk to the server at once.
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    verbose = False

    def log_message(self, *arguments):
        # Tests often leave stderr unread; a full pipe would block the server.
        if self.verbose:
            super().log_message(*arguments)


def parse_arguments():
    parser = argparse.ArgumentParser(description="django-oauth-toolkit identity provider for the sign-in tests")
    parser.add_argument("state_dir")
    parser.add_argument("--access-token-seconds", type=int, default=3600)
    parser.add_argument("--device-interval", type=int, default=5)
    parser.add_argument("--authorization-response-iss", action="store_true")
    parser.add_argument("--device-expires-seconds", type=int, default=None)
    parser.add_argument("--slow-down", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    return parser.parse_args()


def configure(options, base):
    from django.conf import settings

    settings.configure(
        DEBUG=False,
        SECRET_KEY=secrets.token_hex(32),
        ALLOWED_HOSTS=["127.0.0.1", "localhost", "[::1]"],
        ROOT_URLCONF=__name__,
        USE_TZ=True,
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[
            "django.middleware.common.CommonMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ],
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": os.path.join(options.state_dir, "db.sqlite3"),
                # Several request threads write (tokens, grants, sessions); wait rather than fail.
                "OPTIONS": {"timeout": 30},
            }
        },
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "OPTIONS": {
                    "loaders": [
                        ("django.template.loaders.locmem.Loader", {"registration/login.html": LOGIN_TEMPLATE}),
                        "django.template.loaders.app_directories.Loader",
                    ],
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                    ],
                },
            }
        ],
        STATIC_URL="/static/",
        LOGIN_URL="/accounts/login/",
        LOGIN_REDIRECT_URL="/accounts/signed-in/",
        # Fast hashing: the user is created on every start.
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        # A server error's traceback goes to stderr, where a failing test can show it.
        LOGGING={
            "version": 1,
            "disable_existing_loggers": False,
            "handlers": {"stderr": {"class": "logging.StreamHandler"}},
            "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}},
        },
        OAUTH2_PROVIDER={
            "ACCESS_TOKEN_EXPIRE_SECONDS": options.access_token_seconds,
            "SCOPES": {"read": "Reading scope", "write": "Writing scope"},
            "PKCE_REQUIRED": True,
            # S256 only: a client that falls back to plain fails here as it would at a strict provider.
            "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
            "ROTATE_REFRESH_TOKEN": True,
            # Replaying a rotated refresh token is refused and revokes its whole family.
            "REFRESH_TOKEN_REUSE_PROTECTION": True,
            "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
            # http is needed for the loopback redirect (RFC 8252 section 7.3).
            "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
            # Every authorization shows the consent page, so the scripted browser always meets it.
            "REQUEST_APPROVAL_PROMPT": "force",
            "DEVICE_FLOW_INTERVAL": options.device_interval,
            "OAUTH_DEVICE_VERIFICATION_URI": base + "/o/device/",
            "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": base + "/o/device/?user_code={user_code}",
            # The issuer the metadata, and with the gate on the iss parameter, carry.
            "OIDC_ISS_ENDPOINT": base,
            "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": options.authorization_response_iss,
            # Advertise what this server's applications actually allow.
            "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
            "OAUTH2_GRANT_TYPES_SUPPORTED": [
                "authorization_code",
                "refresh_token",
                "urn:ietf:params:oauth:grant-type:device_code",
            ],
            "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_post", "client_secret_basic"],
        },
    )


def build_urls(options):
    """Returns the URL patterns: DOT's under o/, its metadata at the root, and the login view."""
    from django.contrib.auth import views as auth_views
    from django.http import HttpResponse, JsonResponse
    from django.urls import include, path, reverse
    from oauth2_provider import urls as dot_urls
    from oauth2_provider import views as dot_views
    from oauth2_provider.models import get_device_grant_model
    from oauth2_provider.views.device import DeviceAuthorizationView
    from oauthlib.oauth2 import DeviceApplicationServer

    class MetadataView(dot_views.OAuthServerMetadataView):
        # DOT's RFC 8414 document leaves out the RFC 8628 device_authorization_endpoint.
        def get(self, request, *args, **kwargs):
            response = super().get(request, *args, **kwargs)
            document = json.loads(response.content)
            document["device_authorization_endpoint"] = request.build_absolute_uri(
                reverse("oauth2_provider:device-authorization"))
            rebuilt = JsonResponse(document)
            rebuilt["Access-Control-Allow-Origin"] = "*"
            return rebuilt

    device_authorization_view = DeviceAuthorizationView
    token_view = dot_views.TokenView
    if options.device_expires_seconds is not None:
        lifetime = options.device_expires_seconds

        class ShortLivedDeviceServer(DeviceApplicationServer):
            # oauthlib's DeviceApplicationServer drops expires_in; its endpoint takes it.
            def __init__(self, request_validator, **kwargs):
                super().__init__(request_validator, **kwargs)
                self._expires_in = lifetime

        class ShortLivedDeviceAuthorizationView(DeviceAuthorizationView):
            server_class = ShortLivedDeviceServer

        device_authorization_view = ShortLivedDeviceAuthorizationView

    polls = {}
    polls_lock = threading.Lock()

    class DeviceAwareTokenView(token_view):
        # Extensions for the device poll that DOT lacks, each on only when its option is given.
        def device_flow_token_response(self, request, device_code, *args, **kwargs):
            if options.slow_down:
                now = time.monotonic()
                with polls_lock:
                    previous = polls.get(device_code)
                    polls[device_code] = now
                if previous is not None and now - previous < options.device_interval:
                    return HttpResponse('{"error": "slow_down"}', status=400, content_type="application/json")
            if options.device_expires_seconds is not None:
                model = get_device_grant_model()
                device = model.objects.filter(device_code=device_code).first()
                # is_expired() marks the grant expired, which DOT's own view answers expired_token.
                if device is not None and device.status == model.AUTHORIZATION_PENDING:
                    device.is_expired()
            return super().device_flow_token_response(request, device_code, *args, **kwargs)

    if options.slow_down or options.device_expires_seconds is not None:
        token_view = DeviceAwareTokenView

    dot_patterns = []
    for pattern in dot_urls.base_urlpatterns:
        if pattern.name == "token":
            pattern = path("token/", token_view.as_view(), name="token")
        elif pattern.name == "device-authorization":
            pattern = path("device-authorization/", device_authorization_view.as_view(), name="device-authorization")
        dot_patterns.append(pattern)

    def signed_in(request):
        return HttpResponse("signed in as %s\n" % request.user.get_username(), content_type="text/plain")

    return [
        path(".well-known/oauth-authorization-server", MetadataView.as_view(), name="oauth-server-metadata"),
        path("o/", include((dot_patterns, "oauth2_provider"))),
        path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
        path("accounts/signed-in/", signed_in),
    ]


def provision():
    """Creates (or resets) the user and the two applications; safe on a reused STATE_DIR."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import get_application_model

    call_command("migrate", verbosity=0, interactive=False)
    user, _ = get_user_model().objects.get_or_create(username=USER)
    user.set_password(PASSWORD)
    user.save()
    Application = get_application_model()
    for client_id, grant_type, redirect_uris in [
        (CLIENT_ID, Application.GRANT_AUTHORIZATION_CODE, REDIRECT_URI),
        (DEVICE_CLIENT_ID, Application.GRANT_DEVICE_CODE, ""),
    ]:
        Application.objects.update_or_create(
            client_id=client_id,
            defaults={
                "name": client_id,
                "client_type": Application.CLIENT_PUBLIC,
                "authorization_grant_type": grant_type,
                "redirect_uris": redirect_uris,
                "skip_authorization": False,
                "user": user,
            },
        )


def main():
    options = parse_arguments()
    try:
        os.makedirs(options.state_dir, exist_ok=True)
        QuietHandler.verbose = options.verbose
        # Bind first: the issuer and every advertised URL carry the port.
        server = ThreadingWSGIServer(("127.0.0.1", 0), QuietHandler)
        port = server.server_address[1]
        base = "http://127.0.0.1:%d" % port
        configure(options, base)
        import django

        django.setup()
        global urlpatterns
        urlpatterns = build_urls(options)
        provision()
        from django.core.wsgi import get_wsgi_application

        server.set_app(get_wsgi_application())
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        print("error: %s" % (str(error).splitlines()[0] if str(error) else type(error).__name__), flush=True)
        sys.exit(1)
    print(json.dumps({
        "port": port,
        "issuer": base,
        "metadata_endpoint": base + "/.well-known/oauth-authorization-server",
        "authorization_endpoint": base + "/o/authorize/",
        "token_endpoint": base + "/o/token/",
        "device_authorization_endpoint": base + "/o/device-authorization/",
        "device_verification_endpoint": base + "/o/device/",
        "revocation_endpoint": base + "/o/revoke_token/",
        "login_endpoint": base + "/accounts/login/",
        "client_id": CLIENT_ID,
        "device_client_id": DEVICE_CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "user": USER,
        "password": PASSWORD,
        "scope": SCOPE,
    }), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
