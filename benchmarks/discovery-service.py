#!/usr/bin/env python3
"""The figures of the production discovery service (issue 12), each from real processes on loopback.

    benchmarks/discovery-service.py [exactly-once|kill|sqlite|guessing|speed|slow-clients|all]

  exactly-once  two `activate serve` instances on one PostgreSQL, 10,000 one-use codes, four clients
                each trying every code against both instances at once (40,000 requests): how many
                answers were 200, 410 and anything else, and how many codes got more than one 200.
  kill          the same, with one instance killed (kill -9) in the middle and restarted: no code
                answered 200 twice, and every code answered 200 is used up in the database.
  sqlite        the same on SQLite with one instance.
  guessing      a client guessing random 8-digit codes against two instances for 60 s: the answers it
                got before 429s against the allowance (burst + rate x time, for the pair), while
                another client's e-mail lookups keep answering 200.
  speed         wrk: e-mail lookups on SQLite against today's static-folder server (--database none),
                same documents; then code consumption on PostgreSQL with two instances.
  slow-clients  500 idle connections and a slowloris client: lookups go on, and each is closed after
                the header timeout.

Needs: `scripts/release-build.sh activate`, PostgreSQL's server (Debian's postgresql), wrk. The four clients of
the exactly-once runs share one loopback address, so those runs turn the guessing limits off
(`--client-limit off --app-limit off`); `guessing` runs with the defaults.
"""
import concurrent.futures
import http.client
import json
import os
import pwd
import random
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACTIVATE = os.path.join(ROOT, ".build/shipped/release/activate")
APP = "com.example.fieldservice"
TOKEN = "bench-token-0123456789abcdef0123"
DOCUMENTS = os.path.join(ROOT, "Tests/ActivationConfigurationTests/Fixtures/documents")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throw-away cluster: initdb as the postgres account when run as root, a free port, password auth."""

    def __init__(self, work):
        versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit())
        self.bin = "/usr/lib/postgresql/%d/bin" % versions[-1]
        self.folder = os.path.join(work, "pg")
        os.makedirs(self.folder, mode=0o700)
        with open(os.path.join(self.folder, "pwfile"), "w") as f:
            f.write("bench\n")
        self.port = free_port()
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            for path in [work, self.folder, os.path.join(self.folder, "pwfile")]:
                os.chown(path, account.pw_uid, account.pw_gid)
        self.run("initdb", "-D", self.folder + "/data", "-U", "activate", "--auth=scram-sha-256",
                 "--pwfile=" + self.folder + "/pwfile", "--no-sync")
        self.run("pg_ctl", "-D", self.folder + "/data", "-l", self.folder + "/log", "-w", "start", "-o",
                 "-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB %s" % (self.port, self.folder, os.environ.get("BENCH_PG_OPTIONS", "")))
        self.url = "postgres://activate:bench@127.0.0.1:%d/postgres" % self.port

    def run(self, tool, *arguments):
        command = [self.bin + "/" + tool, *arguments]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def psql(self, query):
        env = dict(os.environ, PGPASSWORD="bench")
        return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "activate", "-d", "postgres", "-Atc", query],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.folder + "/data", "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass


class Service:
    """One `activate serve` process."""

    def __init__(self, work, database, extra=(), port=0, name="serve"):
        self.work, self.database, self.extra, self.name = work, database, list(extra), name
        self.start(port)

    def start(self, port=0):
        arguments = [ACTIVATE, "serve", "--configs", self.work + "/configs", "--database", self.database,
                     "--secret-file", self.work + "/secret", "--admin-token-file", self.work + "/tokens",
                     "--port", str(port), "--log-level", "warning", "--max-connections", "2048"] + self.extra
        self.log = open(os.path.join(self.work, self.name + ".log"), "ab")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on "):
            raise SystemExit("%s did not start: %r (see %s.log)" % (self.name, line, self.name))
        self.url = line.split("listening on ", 1)[1].strip()
        self.port = int(self.url.rsplit(":", 1)[1])

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)


def prepare(work):
    configs = os.path.join(work, "configs")
    os.makedirs(configs)
    for name in ["oauth-authorization-code.json", "android-basic.json"]:
        shutil.copy(os.path.join(DOCUMENTS, name), configs)
    with open(os.path.join(configs, "discovery.json"), "w") as f:
        json.dump({"applications": {APP: {"domains": {"example.com": "oauth-authorization-code.json", "basic.example.com": "android-basic.json"}}}}, f)
    with open(os.path.join(work, "tokens"), "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(os.path.join(work, "tokens"), 0o600)
    if os.geteuid() == 0:
        os.chmod(work, 0o755)


def admin(service, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=120)
    headers = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}
    connection.request(method, "/admin/v1/" + path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    if response.status >= 300:
        raise SystemExit("admin %s %s: %s %r" % (method, path, response.status, answer))
    return answer


def issue(service, count, uses=1):
    codes = []
    while len(codes) < count:
        batch = min(1000, count - len(codes))
        answer = admin(service, "POST", "applications/%s/codes" % APP,
                       {"document": "android-basic.json", "count": batch, "uses": uses, "expiresIn": 86400})
        codes += [(c["id"], c["code"]) for c in answer["codes"]]
    return codes


def code_path(code):
    return "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='%s:1.0',OnboardingCode='%s')" % (APP, code)


def email_path(address="someone@example.com"):
    return "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='%s:1.0',EmailAddress='%s')" % (APP, address)


class Client:
    """Keep-alive HTTP/1.1 connections to each instance, one per thread."""

    def __init__(self, services):
        self.services = services
        self.local = threading.local()

    def get(self, index, path, headers=None):
        connections = getattr(self.local, "connections", None)
        if connections is None:
            connections = self.local.connections = {}
        service = self.services[index % len(self.services)]
        for _ in range(2):
            connection = connections.get(service.port)
            if connection is None:
                connection = connections[service.port] = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
            try:
                connection.request("GET", path, headers=headers or {})
                response = connection.getresponse()
                body = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    connections.pop(service.port, None)
                return response.status, body
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                connection.close()
                connections.pop(service.port, None)
                last = error
        return "error:" + type(last).__name__, b""


def race(services, codes, clients=4, threads_per_client=8, during=None):
    """Every client tries every code, code i of client c going to instance (i + c) mod n."""
    client = Client(services)
    tries = [(c, i, code) for c in range(clients) for i, (_, code) in enumerate(codes)]
    random.Random(7).shuffle(tries)
    results = {}
    lock = threading.Lock()
    done = [0]

    def attempt(item):
        c, i, code = item
        status, _ = client.get(i + c, code_path(code))
        with lock:
            results.setdefault(code, []).append(status)
            done[0] += 1
            if during and done[0] == len(tries) // 2:
                during()

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients * threads_per_client) as pool:
        list(pool.map(attempt, tries))
    return results, time.monotonic() - start


def exactly_once(backend, kill=False):
    work = tempfile.mkdtemp(prefix="activate-bench-")
    prepare(work)
    postgres = Postgres(work) if backend == "postgres" else None
    database = postgres.url if postgres else "sqlite:%s/discovery.sqlite" % work
    limits = ["--client-limit", "off", "--app-limit", "off"]
    services = [Service(work, database, limits, name="serve-a")]
    if postgres:
        services.append(Service(work, database, limits, name="serve-b"))
    try:
        codes = issue(services[0], 10_000)
        killed = {}

        def kill_and_restart():
            victim = services[-1]
            port = victim.port
            killed["at"] = time.monotonic()
            victim.kill()
            time.sleep(0.5)
            victim.start(port)
            killed["restarted"] = time.monotonic() - killed["at"]

        results, seconds = race(services, codes, during=kill_and_restart if kill else None)
        statuses = [s for answers in results.values() for s in answers]
        count = lambda value: sum(1 for s in statuses if s == value)
        twice = sum(1 for answers in results.values() if answers.count(200) > 1)
        others = sorted(set(str(s) for s in statuses if s not in (200, 410)))
        won = {code for code, answers in results.items() if 200 in answers}
        used = {c["id"] for c in admin(services[0], "GET", "applications/%s/codes?status=used" % APP)["codes"]}
        not_marked = sum(1 for id, code in codes if code in won and id not in used)
        name = {"postgres": "PostgreSQL, 2 instances", "sqlite": "SQLite, 1 instance"}[backend] + (", one killed (kill -9) and restarted" if kill else "")
        print("exactly once (%s): %d requests in %.1f s (%.0f/s): 200: %d, 410: %d, other: %d %s; codes answered 200 twice: %d; "
              "answered 200 but not used up in the database: %d; codes used up in the database: %d"
              % (name, len(statuses), seconds, len(statuses) / seconds, count(200), count(410), len(statuses) - count(200) - count(410),
                 others, twice, not_marked, len(used)))
        if kill:
            print("  instance killed after half the requests, listening again %.2f s later; requests to it meanwhile failed and were not answered"
                  % killed.get("restarted", 0))
        ok = twice == 0 and not_marked == 0 and (kill or (count(200) == 10_000 and count(410) == 30_000 and not others))
        print("  " + ("PASS" if ok else "FAIL"))
        return ok
    finally:
        for service in services:
            service.stop()
        if postgres:
            postgres.stop()
        shutil.rmtree(work, ignore_errors=True)


def guessing(seconds=60):
    work = tempfile.mkdtemp(prefix="activate-bench-")
    prepare(work)
    postgres = Postgres(work)
    services = [Service(work, postgres.url, name="serve-a"), Service(work, postgres.url, name="serve-b")]
    try:
        stop = threading.Event()
        guesses, lookups = {}, {}

        def guesser():
            client = Client(services)
            i = 0
            while not stop.is_set():
                code = "%08d" % random.randrange(100_000_000)
                status, _ = client.get(i, code_path(code))
                guesses[status] = guesses.get(status, 0) + 1
                i += 1

        def looker():
            client = Client(services)
            i = 0
            while not stop.is_set():
                status, _ = client.get(i, email_path())
                lookups[status] = lookups.get(status, 0) + 1
                i += 1
                time.sleep(0.01)

        threads = [threading.Thread(target=guesser), threading.Thread(target=looker)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
        answered = sum(n for s, n in guesses.items() if s != 429)
        allowance = 20 + 10 / 60 * elapsed
        print("guessing (2 instances on PostgreSQL, defaults 10/min burst 20 per client): %d guesses in %.0f s; answered (not 429): %d, "
              "allowance for the pair (burst + rate x time): %.1f; statuses %s" % (sum(guesses.values()), elapsed, answered, allowance, guesses))
        print("  e-mail lookups of another client meanwhile: %s" % lookups)
        ok = answered <= allowance + 1 and set(lookups) == {200}
        print("  " + ("PASS" if ok else "FAIL"))
        return ok
    finally:
        for service in services:
            service.stop()
        postgres.stop()
        shutil.rmtree(work, ignore_errors=True)


def wrk(url, seconds=20, connections=32, script=None):
    command = ["wrk", "-t2", "-c%d" % connections, "-d%ds" % seconds, "--latency"] + (["-s", script] if script else []) + [url]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, p99_ms, int(non2xx.group(1)) if non2xx else 0, output


WRK_CODES = """
-- Each request uses the next code of the file given in CODES_FILE; counts answers by status.
local codes = {}
for line in io.lines(os.getenv("CODES_FILE")) do codes[#codes + 1] = line end
local threads = {}
local next_index = 1
function setup(thread)
  thread:set("first", next_index)
  next_index = next_index + math.floor(#codes / 2)
  table.insert(threads, thread)
end
function init(args)
  index = first
  ok = 0
  gone = 0
end
function request()
  local code = codes[index] or "0000000000000"
  index = index + 1
  -- Each request from its own device behind the proxy the service trusts.
  local device = string.format("10.%%d.%%d.%%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='%s:1.0',OnboardingCode='" .. code .. "')",
                    {["X-Forwarded-For"] = device})
end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 410 then gone = gone + 1 end
end
function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("ok") end
  io.write(string.format("consumed: %%d\\n", total))
end
""" % APP


def email_speed(work, seconds):
    """E-mail lookups: the static folder, then SQLite, one after the other."""
    static = Service(work, "none", name="serve-static")
    rate_static, p99_static, errors_static, _ = wrk(static.url + email_path(), seconds)
    static.stop()
    stored = Service(work, "sqlite:%s/discovery.sqlite" % work, name="serve-sqlite")
    rate_sqlite, p99_sqlite, errors_sqlite, _ = wrk(stored.url + email_path(), seconds)
    stored.stop()
    ratio = rate_sqlite / rate_static
    print("e-mail lookups (wrk, 2 threads, 32 connections, %d s each, one after the other):" % seconds)
    print("  static folder (--database none): %.0f/s, p99 %.2f ms, non-200: %d" % (rate_static, p99_static, errors_static))
    print("  SQLite (--database sqlite:):     %.0f/s, p99 %.2f ms, non-200: %d  -> %.0f %% of the static server"
          % (rate_sqlite, p99_sqlite, errors_sqlite, ratio * 100))
    return ratio >= 0.7 and p99_sqlite < 20 and errors_sqlite == 0


def consume_speed(work, seconds=10):
    """Code consumption: two instances on PostgreSQL, one wrk each, every request a new code."""
    postgres = Postgres(work)
    limits_off = os.environ.get("BENCH_LIMITS") == "off"
    # Each request comes from its own device behind the proxy the service trusts, as a fleet's do.
    extra = ["--trust-proxy", "127.0.0.1"] + (["--client-limit", "off", "--app-limit", "off"] if limits_off else [])
    services = [Service(work, postgres.url, extra, name="serve-a"), Service(work, postgres.url, extra, name="serve-b")]
    try:
        codes = issue(services[0], 40_000)
        script = os.path.join(work, "codes.lua")
        with open(script, "w") as f:
            f.write(WRK_CODES)
        processes = []
        for index, service in enumerate(services):
            part = os.path.join(work, "codes-%d.txt" % index)
            with open(part, "w") as f:
                f.write("\n".join(code for _, code in codes[index::2]) + "\n")
            env = dict(os.environ, CODES_FILE=part)
            processes.append(subprocess.Popen(["wrk", "-t2", "-c16", "-d%ds" % seconds, "--latency", "-s", script, service.url],
                                              stdout=subprocess.PIPE, text=True, env=env))
        consumed, p99s = 0, []
        for process in processes:
            output = process.communicate()[0]
            consumed += int(re.search(r"consumed: (\d+)", output).group(1))
            p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
            p99s.append(float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)])
        used = int(postgres.psql("SELECT count(*) FROM codes WHERE uses_left = 0"))
        print("code consumption (PostgreSQL, 2 instances, guessing limits %s, one wrk (2 threads x 16 connections) per instance, %d s):"
              % ("off" if limits_off else "at their defaults", seconds))
        print("  %d codes used (200) = %.0f/s; p99 %s ms; used up in the database: %d (a request cut off at the end uses its code unanswered)"
              % (consumed, consumed / seconds, "/".join("%.1f" % p for p in p99s), used))
        return consumed / seconds >= 2000 and consumed <= used <= consumed + 64
    finally:
        for service in services:
            service.stop()
        postgres.stop()


def speed(seconds=20):
    work = tempfile.mkdtemp(prefix="activate-bench-")
    prepare(work)
    try:
        results = [] if os.environ.get("BENCH_ONLY") == "consume" else [email_speed(work, seconds)]
        results.append(consume_speed(work))
        print("  " + ("PASS" if all(results) else "FAIL"))
        return all(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def slow_clients(idle=500, timeout=3):
    work = tempfile.mkdtemp(prefix="activate-bench-")
    prepare(work)
    service = Service(work, "sqlite:%s/discovery.sqlite" % work, ["--header-timeout", str(timeout)], name="serve-slow")
    try:
        base_rate, base_p99, _, _ = wrk(service.url + email_path(), 5, 16)
        # Every idle connection and the slowloris client, watched from one thread: when the server
        # closes one, how long after it was opened.
        selector = selectors.DefaultSelector()
        opened, closed = {}, {}
        for index in range(idle):
            s = socket.create_connection(("127.0.0.1", service.port))
            s.setblocking(False)
            opened[s] = time.monotonic()
            selector.register(s, selectors.EVENT_READ, index)
        loris = socket.create_connection(("127.0.0.1", service.port))
        opened[loris] = time.monotonic()
        selector.register(loris, selectors.EVENT_READ, "loris")
        stop = threading.Event()

        def watch():
            while len(closed) < idle + 1 and not stop.is_set():
                for key, _ in selector.select(timeout=0.1):
                    try:
                        data = key.fileobj.recv(4096)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        closed[key.data] = time.monotonic() - opened[key.fileobj]
                        selector.unregister(key.fileobj)

        def slowloris():
            for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                if "loris" in closed or stop.is_set():
                    return
                try:
                    loris.send(bytes([byte]))
                except OSError:
                    return
                time.sleep(0.2)

        threads = [threading.Thread(target=watch), threading.Thread(target=slowloris)]
        for thread in threads:
            thread.start()
        rate, p99, errors, _ = wrk(service.url + email_path(), timeout, 16)
        deadline = time.monotonic() + timeout + 10
        while len(closed) < idle + 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        stop.set()
        for thread in threads:
            thread.join()
        times = [t for key, t in closed.items() if key != "loris"]
        print("slow clients (header timeout %d s): %d idle connections and a slowloris client (a byte every 0.2 s)" % (timeout, idle))
        print("  lookups before: %.0f/s (p99 %.1f ms); during: %.0f/s (p99 %.1f ms), non-200: %d" % (base_rate, base_p99, rate, p99, errors))
        print("  idle connections closed: %d of %d, %.2f-%.2f s after opening; slowloris cut off after %s s"
              % (len(times), idle, min(times or [0]), max(times or [0]), "%.2f" % closed["loris"] if "loris" in closed else "never"))
        ok = errors == 0 and rate > 0 and len(times) == idle and max(times) < timeout + 1 and closed.get("loris", 99) < timeout + 1
        print("  " + ("PASS" if ok else "FAIL"))
        return ok
    finally:
        service.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if not os.access(ACTIVATE, os.X_OK):
        raise SystemExit("build first: scripts/release-build.sh activate")
    runs = {
        "exactly-once": lambda: exactly_once("postgres"),
        "kill": lambda: exactly_once("postgres", kill=True),
        "sqlite": lambda: exactly_once("sqlite"),
        "guessing": guessing,
        "speed": speed,
        "slow-clients": slow_clients,
    }
    chosen = list(runs) if which == "all" else [which]
    results = [runs[name]() for name in chosen]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
