#!/usr/bin/env python3
"""Independent reference implementation of the compact signed activation code ("AC1:").

Written from the format description (docs/activation-code-format.md) and the details fixed below,
without looking at any Swift implementation, so that the two can be cross-checked.
Dependencies: cbor2, base45, cryptography and the standard library. See README.md.

  AC1:<Base45 (RFC 9285)>   of   18([protected bstr {1: alg, 4: kid}, {}, payload bstr, signature bstr])
  alg -8 EdDSA (Ed25519) | -7 ES256 (P-256, raw r||s); kid = SHA-256(SubjectPublicKeyInfo DER)[:8]
  signed: ["Signature1", protected, h'', payload]; all CBOR deterministic (RFC 8949 section 4.2)
  payload claims: 1 iss, 3 aud (text | [text, ...]), 4 exp (mandatory), 5 nbf, 6 iat, 7 cti (8 bytes),
                  -65537 cfg = raw DEFLATE (RFC 1951) of the compact configuration
  compact configuration: 1 version (1), 2 scheme, 3 host, 4 port (not when default), 5 appID,
      6 appVersion, 7 basePath of serviceURL, 8 [auth items], 9 multiUser, 10 certificate_provider,
      11 {other top-level keys}
  auth item: 1 type, 2 authorizationEndpoint, 3 tokenEndpoint, 9 endUserUI,
      10 xsuaaAuthorizationEndpoint, first client: 4 clientID (lower-case UUID as 16-byte bstr),
      5 redirectURL, 6 grantType (not when authorization_code), 13 passcode; 11 [further clients
      {4, 5, 6, 13}], 8 requireOtp (only when true), 12 {other config keys}; 7 (scopes) reserved
  URLs on the document's origin (scheme://host[:port]) are stored as their path ("" = the origin).

Every refusal raises Refusal; the command line prints its one-line reason and exits 2.
"""
import argparse, hashlib, json, os, re, sys, time, uuid, zlib
from collections.abc import Mapping, Sequence

import base45, cbor2
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

PREFIX = "AC1:"
B45_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"   # = the QR alphanumeric set
MAX_TEXT = 4296                 # largest alphanumeric QR code (version 40-L)
SKEW = 300                      # ±5 minutes for exp / nbf
CFG_CAP = 32 * 1024             # inflated configuration cap
DEFAULT_EXPIRY, MAX_EXPIRY = 14 * 86400, 30 * 86400
EDDSA, ES256 = -8, -7
ALG_NAMES = {EDDSA: "EdDSA", ES256: "ES256"}
ISS, AUD, EXP, NBF, IAT, CTI, CFG = 1, 3, 4, 5, 6, 7, -65537
CLAIM_NAMES = {ISS: "iss", AUD: "aud", EXP: "exp", NBF: "nbf", IAT: "iat", CTI: "cti"}
KNOWN_TYPES = {"oauth2", "saml2.web.post", "basic.default", "apikeyonly", "certificate.sdkprovider"}
DOC_KEYS = {"host", "port", "protocol", "appID", "appVersion", "multiUser", "certificate_provider", "auth"}
OAUTH2_URLS = {2: "oauth2.authorizationEndpoint", 3: "oauth2.tokenEndpoint",
               9: "oauth2.endUserUI", 10: "oauth2.xsuaaAuthorizationEndpoint"}
OAUTH2_KEYS = set(OAUTH2_URLS.values()) | {"oauth2.clients"}
CLIENT_KEYS = {4: "clientID", 5: "redirectURL", 6: "grantType", 13: "passcode"}
DEFAULT_GRANT = "authorization_code"
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HOST_RE = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


class Refusal(Exception):
    """A code, document or key this implementation refuses; the message is the one-line reason."""


def need(condition, reason):
    if not condition:
        raise Refusal(reason)


def is_uint(v):             # bool is an int subclass in Python: CBOR true is not a number here
    return type(v) is int and v >= 0


def is_text(v):
    return type(v) is str


def is_web(url):            # http(s) URLs follow the URL rule; other schemes stay verbatim
    return re.match(r"(?i)https?:", url) is not None


# ---------------------------------------------------------------- CBOR and Base45

def enc(value):
    """Deterministic CBOR. cbor2's canonical mode sorts map keys length-first (RFC 7049); for the
    maps of this format (all-small-int keys, -65537 after 1..7, or all-text keys) that is the same
    order as RFC 8949's bytewise order."""
    return cbor2.dumps(value, canonical=True)


def check_structure(data, what, max_depth, max_items, top_tag=None):
    """Walks the raw heads before anything is decoded: exactly one data item, no trailing bytes,
    definite lengths only, no tag (except top_tag around the top item), only false/true/null as
    simple values, no floats, depth and item-count limits."""
    state = {"items": 0}

    def walk(pos, depth, tag_allowed):
        need(depth <= max_depth, f"{what}: nested deeper than {max_depth}")
        state["items"] += 1
        need(state["items"] <= max_items, f"{what}: more than {max_items} data items")
        need(pos < len(data), f"{what}: truncated CBOR")
        major, info = data[pos] >> 5, data[pos] & 31
        pos += 1
        if major == 7:
            need(info in (20, 21, 22), f"{what}: simple value or float 0x{data[pos - 1]:02x} not allowed")
            return pos
        need(info != 31, f"{what}: indefinite-length item")
        need(info < 28, f"{what}: reserved additional information {info}")
        arg = info
        if info >= 24:
            size = 1 << (info - 24)
            need(pos + size <= len(data), f"{what}: truncated CBOR")
            arg, pos = int.from_bytes(data[pos:pos + size], "big"), pos + size
        if major in (2, 3):
            need(pos + arg <= len(data), f"{what}: truncated CBOR string")
            return pos + arg
        if major in (4, 5):
            for _ in range(arg * (2 if major == 5 else 1)):
                pos = walk(pos, depth + 1, False)
            return pos
        if major == 6:
            need(tag_allowed and arg == top_tag, f"{what}: tag {arg} not allowed")
            return walk(pos, depth + 1, False)
        return pos                                  # major 0 and 1: integers

    end = walk(0, 1, top_tag is not None)
    need(end == len(data), f"{what}: {len(data) - end} trailing bytes after the CBOR item")


def decode_cbor(data, what, max_depth=16, max_items=4096, top_tag=None):
    """Structure check, decode (no duplicate keys), then insist on deterministic encoding."""
    need(len(data) > 0, f"{what}: empty")
    check_structure(data, what, max_depth, max_items, top_tag)
    try:
        value = cbor2.loads(data, allow_duplicate_keys=False, allow_indefinite=False, max_depth=64)
    except Exception as error:                      # cbor2 raises several types (bad UTF-8, duplicates...)
        raise Refusal(f"{what}: invalid CBOR ({error})")
    need(enc(value) == data, f"{what}: not deterministic CBOR (RFC 8949 §4.2)")
    return value


def b45decode_strict(text):
    """RFC 9285 decoding that refuses a dangling character and triplets/pairs out of range."""
    values = [B45_ALPHABET.index(c) for c in text]  # the alphabet was checked before
    need(len(values) % 3 != 1, "base45: dangling single character")
    out = bytearray()
    for i in range(0, len(values), 3):
        chunk = values[i:i + 3]
        if len(chunk) == 3:
            n = chunk[0] + chunk[1] * 45 + chunk[2] * 45 * 45
            need(n <= 0xFFFF, f"base45: triplet at {i} is {n} > 65535")
            out += n.to_bytes(2, "big")
        else:
            n = chunk[0] + chunk[1] * 45
            need(n <= 0xFF, f"base45: final pair is {n} > 255")
            out.append(n)
    return bytes(out)


# ---------------------------------------------------------------- keys

def key_id(public_key):
    spki = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(spki).digest()[:8]


def algorithm_of(key):
    """EdDSA for Ed25519, ES256 for P-256; anything else is refused."""
    if isinstance(key, (ed25519.Ed25519PrivateKey, ed25519.Ed25519PublicKey)):
        return EDDSA
    if isinstance(key, (ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey)) and isinstance(key.curve, ec.SECP256R1):
        return ES256
    raise Refusal(f"unsupported key type {type(key).__name__} (Ed25519 or P-256 only)")


def load_private(path):
    with open(path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    algorithm_of(key)
    return key


def load_public(path):
    """A SubjectPublicKeyInfo PEM (a private key PEM is accepted too, for convenience)."""
    with open(path, "rb") as f:
        pem = f.read()
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError:
        key = serialization.load_pem_private_key(pem, password=None).public_key()
    algorithm_of(key)
    return key


def sig_structure(protected, payload):
    return enc(["Signature1", protected, b"", payload])     # RFC 9052 §4.4, empty external_aad


# ---------------------------------------------------------------- document <-> compact configuration

def to_bool(v, where):
    """true/false, 0/1 and "true"/"false"/"1"/"0"/"yes"/"no" as documents write them."""
    if type(v) is bool:
        return v
    if type(v) is int and v in (0, 1):
        return v == 1
    if is_text(v) and v.lower() in ("true", "1", "yes", "false", "0", "no"):
        return v.lower() in ("true", "1", "yes")
    raise Refusal(f"{where}: expected true or false")


def check_json(v, where, depth=0):
    """JSON values as carried in keys 11 and 12: text, integer, bool, null, array, text-keyed map."""
    need(depth <= 12, f"{where}: nested too deeply")
    if v is None or type(v) in (str, bool):
        return
    if type(v) is int:
        need(-2**64 <= v < 2**64, f"{where}: integer out of CBOR range")
    elif isinstance(v, Mapping):
        for k, item in v.items():
            need(is_text(k), f"{where}: map key {k!r} is not text")
            check_json(item, f"{where}.{k}", depth + 1)
    elif isinstance(v, Sequence) and not isinstance(v, (bytes, bytearray)):
        for i, item in enumerate(v):
            check_json(item, f"{where}[{i}]", depth + 1)
    else:
        raise Refusal(f"{where}: {type(v).__name__} is not a JSON value this format carries (no floats)")


def plain(v):
    """cbor2 frozendict/tuple -> dict/list, for JSON output."""
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def split_web_url(url, where):
    """(scheme, host, port, rest) of an absolute http(s) URL; rest = everything after the authority."""
    match = re.fullmatch(r"(?i)(https?)://([^/?#]*)(.*)", url) if is_text(url) else None
    need(match, f"{where}: {url!r} is not an absolute http(s) URL")
    scheme, authority, rest = match.group(1).lower(), match.group(2), match.group(3)
    need("@" not in authority, f"{where}: user info in a URL is not allowed")
    host, _, port_text = authority.partition(":")
    host = host.lower()
    need(HOST_RE.fullmatch(host), f"{where}: host {host!r} is not a plain DNS name or IPv4 address")
    port = default_port(scheme)
    if port_text:
        need(port_text.isdigit() and 1 <= int(port_text) <= 65535, f"{where}: bad port {port_text!r}")
        port = int(port_text)
    return scheme, host, port, rest


def default_port(scheme):
    return 80 if scheme == "http" else 443


def origin_of(scheme, host, port):
    return f"{scheme}://{host}" + ("" if port == default_port(scheme) else f":{port}")


def compress_url(url, origin, where):
    """The URL rule: same origin -> its path ("" for the bare origin), otherwise absolute."""
    scheme, host, port, rest = split_web_url(url, where)
    if origin_of(scheme, host, port) == origin and (rest == "" or rest.startswith("/")):
        return rest
    return origin_of(scheme, host, port) + rest


def expand_url(stored, origin, where):
    need(is_text(stored), f"{where}: expected text")
    if stored == "" or stored.startswith("/"):
        return origin + stored
    scheme, host, port, rest = split_web_url(stored, where)     # absolute: an http(s) URL, canonical
    need(origin_of(scheme, host, port) + rest == stored, f"{where}: {stored!r} is not in canonical form")
    need(origin_of(scheme, host, port) != origin or not (rest == "" or rest.startswith("/")),
         f"{where}: a same-origin URL must be stored as its path")
    return stored


def encode_client(client, origin, where):
    need(isinstance(client, Mapping), f"{where}: expected a client object")
    unknown = set(client) - set(CLIENT_KEYS.values())
    need(not unknown, f"{where}: client keys {sorted(unknown)} cannot be carried in an AC1 code")
    out = {}
    client_id = client.get("clientID")
    need(is_text(client_id) and client_id, f"{where}.clientID: missing or not text")
    out[4] = uuid.UUID(client_id).bytes if UUID_RE.fullmatch(client_id) else client_id
    redirect = client.get("redirectURL")
    need(is_text(redirect) and redirect, f"{where}.redirectURL: missing or not text")
    if is_web(redirect):
        out[5] = compress_url(redirect, origin, f"{where}.redirectURL")
    else:                                   # custom scheme such as com.example.App://host, verbatim
        need(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", redirect), f"{where}.redirectURL: {redirect!r} is not a URL")
        out[5] = redirect
    grant = client.get("grantType", DEFAULT_GRANT)
    need(is_text(grant), f"{where}.grantType: expected text")
    if grant != DEFAULT_GRANT:
        out[6] = grant
    if "passcode" in client:
        need(is_text(client["passcode"]), f"{where}.passcode: expected text")
        out[13] = client["passcode"]
    return out


def encode_auth_item(item, origin, where):
    need(isinstance(item, Mapping), f"{where}: expected an auth item object")
    unknown = set(item) - {"type", "requireOtp", "config"}
    need(not unknown, f"{where}: keys {sorted(unknown)} cannot be carried in an AC1 code")
    need(is_text(item.get("type")), f"{where}.type: missing or not text")
    lowered = item["type"].lower()
    lowered = "basic.default" if lowered == "basic" else lowered      # Android spelling
    kind = lowered if lowered in KNOWN_TYPES else item["type"]
    out = {1: kind}
    if to_bool(item.get("requireOtp", False), f"{where}.requireOtp"):
        out[8] = True
    config = item.get("config") or {}
    need(isinstance(config, Mapping), f"{where}.config: expected an object")
    rest = dict(config)
    if kind == "oauth2":
        need("oauth2.clientID" not in config, f"{where}.config: the legacy flat oauth2 form is not supported")
        for number, name in OAUTH2_URLS.items():
            if name in config:
                out[number] = compress_url(config[name], origin, f"{where}.config.{name}")
        need(2 in out and 3 in out, f"{where}.config: oauth2 needs authorizationEndpoint and tokenEndpoint")
        clients = config.get("oauth2.clients")
        need(isinstance(clients, list) and clients, f"{where}.config.oauth2.clients: missing or empty")
        out.update(encode_client(clients[0], origin, f"{where}.config.oauth2.clients[0]"))
        if len(clients) > 1:
            out[11] = [encode_client(c, origin, f"{where}.config.oauth2.clients[{i}]")
                       for i, c in enumerate(clients) if i > 0]
        rest = {k: v for k, v in config.items() if k not in OAUTH2_KEYS}
    check_json(rest, f"{where}.config")
    if rest:
        out[12] = rest
    return out


def document_to_compact(doc):
    """The plain configuration document (JSON object) -> the compact configuration map."""
    need(isinstance(doc, Mapping), "document: expected a JSON object")
    need(not any("/" in k for k in doc), "document: the MDM-flattened form (keys with /) is not supported")
    service_keys = [k for k in doc if k.lower() == "serviceurl"]
    need(len(service_keys) <= 1, f"document: several serviceURL keys {service_keys}")
    base_path = ""
    if service_keys:                        # serviceURL (any casing) wins over host/port/protocol
        scheme, host, port, rest = split_web_url(doc[service_keys[0]], service_keys[0])
        need(not re.search(r"[?#]", rest), f"{service_keys[0]}: query or fragment not allowed")
        base_path = rest.rstrip("/")
    else:
        host = doc.get("host")
        need(is_text(host), "host: missing or not text (a document needs host or serviceURL)")
        host = host.lower()
        need(HOST_RE.fullmatch(host), f"host: {host!r} must be a plain host name")
        scheme = doc.get("protocol", "https")
        need(is_text(scheme) and scheme.lower() in ("https", "http"), "protocol: must be https or http")
        scheme = scheme.lower()
        port = doc.get("port", default_port(scheme))
        if is_text(port) and port.strip().isdigit():
            port = int(port.strip())        # "8443" as some documents write it
        need(type(port) is int and 1 <= port <= 65535, "port: expected a port number 1-65535")
    origin = origin_of(scheme, host, port)
    compact = {1: 1, 2: scheme, 3: host}
    if port != default_port(scheme):
        compact[4] = port
    for number, name in ((5, "appID"), (6, "appVersion"), (10, "certificate_provider")):
        if name in doc:
            need(is_text(doc[name]), f"{name}: expected text")
            compact[number] = doc[name]
    if base_path:
        compact[7] = base_path
    if "auth" in doc:
        need(isinstance(doc["auth"], list) and doc["auth"], "auth: expected a non-empty array")
        compact[8] = [encode_auth_item(item, origin, f"auth[{i}]") for i, item in enumerate(doc["auth"])]
    if "multiUser" in doc:
        compact[9] = to_bool(doc["multiUser"], "multiUser")
    others = {k: v for k, v in doc.items() if k not in DOC_KEYS and k not in service_keys}
    check_json(others, "document")
    if others:
        compact[11] = others
    return compact


def decode_client(m, origin, where):
    need(isinstance(m, Mapping), f"{where}: expected a map")
    need(set(m) <= set(CLIENT_KEYS), f"{where}: unexpected keys {sorted(set(m) - set(CLIENT_KEYS), key=str)}")
    need(4 in m and 5 in m, f"{where}: clientID (4) and redirectURL (5) are required")
    cid = m[4]
    if type(cid) is bytes:
        need(len(cid) == 16, f"{where}: a binary clientID must be a 16-byte UUID")
        cid = str(uuid.UUID(bytes=cid))
    else:
        need(is_text(cid) and cid, f"{where}: clientID must be text or a UUID bstr")
        need(not UUID_RE.fullmatch(cid), f"{where}: a lower-case UUID clientID must be written as a bstr")
    redirect = m[5]
    need(is_text(redirect), f"{where}: redirectURL must be text")
    if not (redirect == "" or redirect.startswith("/") or is_web(redirect)):
        need(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", redirect), f"{where}: {redirect!r} is not a URL")
    else:
        redirect = expand_url(redirect, origin, f"{where}.redirectURL")
    client = {"clientID": cid, "redirectURL": redirect, "grantType": m.get(6, DEFAULT_GRANT)}
    need(is_text(client["grantType"]), f"{where}: grantType must be text")
    need(6 not in m or m[6] != DEFAULT_GRANT, f"{where}: the default grantType must be omitted")
    if 13 in m:
        need(is_text(m[13]), f"{where}: passcode must be text")
        client["passcode"] = m[13]
    return client


def decode_auth_item(m, origin, where):
    need(isinstance(m, Mapping), f"{where}: expected a map")
    need(7 not in m, f"{where}: key 7 (scopes) is reserved")
    need(set(m) <= {1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13}, f"{where}: unexpected keys")
    kind = m.get(1)
    need(is_text(kind) and kind, f"{where}: type (1) missing or not text")
    need(8 not in m or m[8] is True, f"{where}: requireOtp (8) must be true when present")
    config = {}
    if kind == "oauth2":
        need(2 in m and 3 in m and 4 in m and 5 in m, f"{where}: oauth2 needs keys 2, 3, 4 and 5")
        for number, name in OAUTH2_URLS.items():
            if number in m:
                config[name] = expand_url(m[number], origin, f"{where}.{name}")
        clients = [decode_client({k: m[k] for k in CLIENT_KEYS if k in m}, origin, f"{where}.client[0]")]
        if 11 in m:
            need(isinstance(m[11], Sequence) and not is_text(m[11]) and len(m[11]) > 0,
                 f"{where}: further clients (11) must be a non-empty array")
            clients += [decode_client(c, origin, f"{where}.client[{i + 1}]") for i, c in enumerate(m[11])]
        config["oauth2.clients"] = clients
    else:
        need(not set(m) & {2, 3, 4, 5, 6, 9, 10, 11, 13}, f"{where}: oauth2 keys on a {kind!r} item")
    if 12 in m:
        need(isinstance(m[12], Mapping) and m[12], f"{where}: config (12) must be a non-empty map")
        check_json(m[12], f"{where}.config")
        need(kind != "oauth2" or not set(m[12]) & OAUTH2_KEYS, f"{where}: config (12) repeats an oauth2 key")
        config.update(plain(m[12]))
    return {"type": kind, "requireOtp": m.get(8, False), "config": config}


def compact_to_document(c):
    """The compact configuration map -> the configuration document (JSON object)."""
    need(isinstance(c, Mapping), "configuration: expected a map")
    need(set(c) <= set(range(1, 12)), f"configuration: unexpected keys {sorted(set(c) - set(range(1, 12)), key=str)}")
    need(c.get(1) == 1 and type(c.get(1)) is int, "configuration: format version (1) must be 1")
    scheme, host = c.get(2), c.get(3)
    need(scheme in ("https", "http"), "configuration: scheme (2) must be https or http")
    need(is_text(host) and HOST_RE.fullmatch(host), "configuration: host (3) must be a lower-case host name")
    port = c.get(4, default_port(scheme))
    need(type(port) is int and 1 <= port <= 65535, "configuration: port (4) out of range")
    need(4 not in c or port != default_port(scheme), "configuration: the default port must be omitted")
    origin = origin_of(scheme, host, port)
    doc = {"protocol": scheme, "host": host, "port": port}
    for number, name in ((5, "appID"), (6, "appVersion"), (10, "certificate_provider")):
        if number in c:
            need(is_text(c[number]), f"configuration: {name} ({number}) must be text")
            doc[name] = c[number]
    if 7 in c:
        base = c[7]
        need(is_text(base) and base.startswith("/") and not base.endswith("/") and not re.search(r"[?#]", base),
             "configuration: basePath (7) must be a path like /mobile/v1")
        doc["serviceURL"] = origin + base
    if 9 in c:
        need(type(c[9]) is bool, "configuration: multiUser (9) must be a bool")
        doc["multiUser"] = c[9]
    if 11 in c:
        need(isinstance(c[11], Mapping) and c[11], "configuration: other keys (11) must be a non-empty map")
        check_json(c[11], "configuration.other")
        taken = [k for k in c[11] if k in DOC_KEYS or k.lower() == "serviceurl" or "/" in k]
        need(not taken, f"configuration: other keys (11) must not be document or MDM keys: {taken}")
        doc.update(plain(c[11]))
    if 8 in c:
        need(isinstance(c[8], Sequence) and not is_text(c[8]) and len(c[8]) > 0,
             "configuration: auth (8) must be a non-empty array")
        doc["auth"] = [decode_auth_item(m, origin, f"auth[{i}]") for i, m in enumerate(c[8])]
    return doc


# ---------------------------------------------------------------- sign and verify

def sign(key, doc, issuer=None, audience=(), expires_in=DEFAULT_EXPIRY, not_before=None, now=None):
    now = int(time.time()) if now is None else now
    need(0 < expires_in <= MAX_EXPIRY, f"--expires-in must be 1..{MAX_EXPIRY} seconds (policy cap 30 days)")
    alg = algorithm_of(key)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)            # raw DEFLATE, RFC 1951
    cfg = packer.compress(enc(document_to_compact(doc))) + packer.flush()
    claims = {EXP: now + expires_in, IAT: now, CTI: os.urandom(8), CFG: cfg}
    if issuer is not None:
        claims[ISS] = issuer
    if audience:
        claims[AUD] = audience[0] if len(audience) == 1 else list(audience)
    if not_before is not None:
        need(not_before <= now + expires_in, "--not-before is after the expiry")
        claims[NBF] = not_before
    protected, payload = enc({1: alg, 4: key_id(key.public_key())}), enc(claims)
    to_be_signed = sig_structure(protected, payload)
    if alg == EDDSA:
        signature = key.sign(to_be_signed)
    else:                                   # ES256: DER from cryptography -> raw r || s
        r, s = decode_dss_signature(key.sign(to_be_signed, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    text = PREFIX + base45.b45encode(enc(cbor2.CBORTag(18, [protected, {}, payload, signature]))).decode("ascii")
    need(len(text) <= MAX_TEXT, f"the code is {len(text)} characters, more than a QR code holds ({MAX_TEXT})")
    return text


def verify(text, public_keys, now=None, audience=None):
    """Checks in the scanner's order; nothing past the COSE frame is parsed before the signature holds."""
    now = int(time.time()) if now is None else now
    # 1. length and alphabet
    need(len(text) <= MAX_TEXT, f"length {len(text)} exceeds {MAX_TEXT}")
    bad = sorted({c for c in text if c not in B45_ALPHABET})
    need(not bad, f"characters outside the QR alphanumeric set: {bad[:5]}")
    # 2. prefix
    need(text.startswith(PREFIX), "not an AC1 code (prefix)")
    # 3. strict Base45
    raw = b45decode_strict(text[len(PREFIX):])
    # 4. the COSE frame only
    frame = decode_cbor(raw, "COSE frame", max_depth=8, max_items=256, top_tag=18)
    need(isinstance(frame, cbor2.CBORTag) and frame.tag == 18, "COSE frame: not a COSE_Sign1 (tag 18)")
    parts = frame.value
    need(isinstance(parts, Sequence) and len(parts) == 4, "COSE frame: not a 4-element array")
    protected, unprotected, payload, signature = parts
    need(type(protected) is bytes and type(payload) is bytes and type(signature) is bytes,
         "COSE frame: protected, payload and signature must be byte strings")
    need(isinstance(unprotected, Mapping) and len(unprotected) == 0, "COSE frame: unprotected header must be {}")
    header = decode_cbor(protected, "protected header", max_depth=8, max_items=256)
    need(isinstance(header, Mapping) and set(header) == {1, 4}, "protected header: must hold exactly alg (1) and kid (4)")
    alg, kid = header[1], header[4]
    # 5. alg allowed, kid trusted
    need(type(alg) is int and alg in ALG_NAMES, f"algorithm {alg!r} not allowed (EdDSA -8, ES256 -7)")
    need(type(kid) is bytes and len(kid) == 8, "kid: must be 8 bytes")
    trusted = {key_id(k): k for k in public_keys}
    need(kid in trusted, f"kid {kid.hex()} is not among the given public keys")
    public_key = trusted[kid]
    need(algorithm_of(public_key) == alg, f"kid {kid.hex()} belongs to an {ALG_NAMES[algorithm_of(public_key)]} key, the header says {ALG_NAMES[alg]}")
    # 6. signature
    need(len(signature) == 64, f"signature: {len(signature)} bytes, expected 64")
    try:
        if alg == EDDSA:
            public_key.verify(signature, sig_structure(protected, payload))
        else:
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            public_key.verify(der, sig_structure(protected, payload), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Refusal("signature does not verify")
    # 7. claims
    claims = decode_cbor(payload, "claims", max_depth=4, max_items=64)
    need(isinstance(claims, Mapping), "claims: expected a map")
    unknown = set(claims) - set(CLAIM_NAMES) - {CFG}
    need(not unknown, f"claims: unexpected keys {sorted(unknown, key=str)}")
    need(EXP in claims and is_uint(claims[EXP]), "claims: exp (4) is mandatory and must be an unsigned integer")
    for number in (NBF, IAT):
        need(number not in claims or is_uint(claims[number]), f"claims: {CLAIM_NAMES[number]} must be an unsigned integer")
    need(ISS not in claims or is_text(claims[ISS]), "claims: iss must be text")
    aud = claims.get(AUD)
    need(aud is None or is_text(aud) or (isinstance(aud, Sequence) and len(aud) > 1 and all(map(is_text, aud))),
         "claims: aud must be text or an array of several texts")
    need(CTI not in claims or (type(claims[CTI]) is bytes and len(claims[CTI]) == 8), "claims: cti must be 8 bytes")
    need(type(claims.get(CFG)) is bytes, "claims: cfg (-65537) missing or not a byte string")
    need(now <= claims[EXP] + SKEW, f"expired at {claims[EXP]} (now {now})")
    need(NBF not in claims or now >= claims[NBF] - SKEW, f"not valid before {claims.get(NBF)} (now {now})")
    if aud is not None and audience is not None:
        need(audience in ([aud] if is_text(aud) else aud), f"audience {audience!r} is not among {plain(aud)!r}")
    # 8. inflate with a cap
    inflater = zlib.decompressobj(-15)
    try:
        compact = inflater.decompress(claims[CFG], CFG_CAP + 1)
    except zlib.error as error:
        raise Refusal(f"cfg: invalid DEFLATE data ({error})")
    need(len(compact) <= CFG_CAP and not inflater.unconsumed_tail, f"cfg: inflates to more than {CFG_CAP} bytes")
    need(inflater.eof and not inflater.unused_data, "cfg: DEFLATE stream truncated or followed by extra bytes")
    # 9. compact configuration -> document
    document = compact_to_document(decode_cbor(compact, "configuration", max_depth=16, max_items=4096))
    shown = {name: plain(claims.get(number)) for number, name in CLAIM_NAMES.items()}
    shown["cti"] = claims[CTI].hex() if CTI in claims else None
    return {"kid": kid.hex(), "alg": ALG_NAMES[alg], "claims": shown, "document": document}


# ---------------------------------------------------------------- command line

def main(argv=None):
    parser = argparse.ArgumentParser(description="AC1 compact signed activation code: reference implementation")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("keygen", help="create a PKCS#8 PEM private key and print its key id")
    p.add_argument("--algorithm", choices=["ed25519", "p256"], default="ed25519")
    p.add_argument("--out", required=True)
    p = commands.add_parser("public", help="print the SubjectPublicKeyInfo PEM of a private key")
    p.add_argument("--key", required=True)
    p = commands.add_parser("sign", help="print the AC1 text for a configuration document")
    p.add_argument("--key", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--issuer")
    p.add_argument("--audience", action="append", default=[])
    p.add_argument("--expires-in", type=int, default=DEFAULT_EXPIRY)
    p.add_argument("--not-before", type=int)
    p.add_argument("--now", type=int)
    p = commands.add_parser("verify", help="verify an AC1 code and print its content as JSON")
    p.add_argument("--public-key", action="append", required=True)
    p.add_argument("--now", type=int)
    p.add_argument("--audience")
    p.add_argument("code", help="a file holding the AC1 text, or - for stdin")
    args = parser.parse_args(argv)
    try:
        if args.command == "keygen":
            key = ed25519.Ed25519PrivateKey.generate() if args.algorithm == "ed25519" else ec.generate_private_key(ec.SECP256R1())
            pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            with os.fdopen(os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
                f.write(pem)
            print(key_id(key.public_key()).hex())
        elif args.command == "public":
            pem = load_private(args.key).public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            sys.stdout.write(pem.decode("ascii"))
        elif args.command == "sign":
            with open(args.config, encoding="utf-8") as f:
                doc = json.load(f)
            print(sign(load_private(args.key), doc, args.issuer, args.audience, args.expires_in, args.not_before, args.now))
        else:
            if args.code == "-":
                data = sys.stdin.buffer.read()
            else:
                with open(args.code, "rb") as f:
                    data = f.read()
            if data.endswith(b"\n"):                    # one line terminator; spaces are Base45 characters
                data = data[:-2] if data.endswith(b"\r\n") else data[:-1]
            text = data.decode("latin-1")               # non-ASCII bytes fail the alphabet check
            result = verify(text, [load_public(p) for p in args.public_key], args.now, args.audience)
            print(json.dumps(result, sort_keys=True, ensure_ascii=False))
    except Refusal as refusal:
        print(f"refused: {refusal}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as error:   # unreadable file, bad PEM or JSON
        print(f"error: {error}".replace("\n", " "), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
