"""A mobile services server's settingsExchange endpoint, for the onboarding tests.

Usage: settings_server.py APP_ID POLICIES_FILE AUTH LOG_FILE
  AUTH: none, basic:USER:PASSWORD, apikey:KEY (SAP's X-API-Key header), bearer:TOKEN, or
        redirect:URL (every request is answered 302 to URL)

Serves POLICIES_FILE (read again on every request) at
/mobileservices/application/APP_ID/storage/v1/runtime/application/APP_ID/global/mobileservices/settingsExchange
to requests that carry the credentials AUTH asks for (401 otherwise), answers the application
endpoint /APP_ID (where sign-in checks credentials) 200 with an empty JSON object to the same
requests, and 404 elsewhere. Each request is
appended to LOG_FILE as a JSON line: path, which credentials it carried (never their values), status.
Prints "listening on PORT" when ready; runs until killed.
"""
import base64
import http.server
import json
import sys
import urllib.parse


def main():
    app_id, policies_file, auth, log_file = sys.argv[1:5]
    encoded = urllib.parse.quote(app_id, safe="")
    path = "/mobileservices/application/%s/storage/v1/runtime/application/%s/global/mobileservices/settingsExchange" % (encoded, encoded)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            authorization = self.headers.get("Authorization")
            api_key = self.headers.get("X-API-Key")
            if auth == "none":
                allowed = True
            elif auth.startswith("basic:"):
                expected = "Basic " + base64.b64encode(auth[len("basic:"):].encode()).decode()
                allowed = authorization == expected
            elif auth.startswith("bearer:"):
                allowed = authorization == "Bearer " + auth[len("bearer:"):]
            else:
                allowed = api_key == auth[len("apikey:"):]
            if auth.startswith("redirect:"):
                self.record(authorization, api_key, 302)
                self.send_response(302)
                self.send_header("Location", auth[len("redirect:"):])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            application = "/" + encoded
            if self.path not in (path, application):
                status, body = 404, b'{"error":{"code":"not-found"}}'
            elif not allowed:
                status, body = 401, b'{"error":{"code":"unauthorized"}}'
            elif self.path == application:
                status, body = 200, b"{}"
            else:
                with open(policies_file, "rb") as f:
                    status, body = 200, f.read()
            self.record(authorization, api_key, status)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def record(self, authorization, api_key, status):
            # Before the answer is sent: once the client has it, its next request (another thread
            # of this threading server) may be logged, and the log must keep the requests' order.
            with open(log_file, "a") as log:
                log.write(json.dumps({"path": self.path, "authorization": authorization is not None,
                                      "apiKey": api_key is not None, "status": status}) + "\n")

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("listening on %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
