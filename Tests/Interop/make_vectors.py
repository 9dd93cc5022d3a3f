#!/usr/bin/env python3
"""Writes vectors/rfc8949-appendix-a.json and vectors/rfc9285-base45.json, checking every entry.

RFC 8949 Appendix A, Table 6 ("Examples of Encoded CBOR Data Items"), transcribed row by row
(wrapped rows joined with one space). RFC 8949 no longer lists simple(24) = 0xf818, which RFC 7049
had: a two-byte simple value below 32 is not well-formed (RFC 8949 §3.3).

Each CBOR entry: hex, diagnostic (as printed in the RFC), kind (from the major type of the first
byte; the bignums 0xc2/0xc3 are tags on the wire, half/single/double floats are "float", the rest
of major type 7 is "simple"), roundtrip (does cbor2 re-encode the decoded item, tags kept as tags,
in deterministic form to the same bytes; false for indefinite lengths and non-shortest floats).
"""
import json, os, sys

import base45, cbor2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ac1_reference import Refusal, b45decode_strict   # noqa: E402  (the strict decoder under test)

TABLE_6 = [
    ("0", "00"), ("1", "01"), ("10", "0a"), ("23", "17"), ("24", "1818"), ("25", "1819"),
    ("100", "1864"), ("1000", "1903e8"), ("1000000", "1a000f4240"),
    ("1000000000000", "1b000000e8d4a51000"), ("18446744073709551615", "1bffffffffffffffff"),
    ("18446744073709551616", "c249010000000000000000"), ("-18446744073709551616", "3bffffffffffffffff"),
    ("-18446744073709551617", "c349010000000000000000"), ("-1", "20"), ("-10", "29"), ("-100", "3863"),
    ("-1000", "3903e7"), ("0.0", "f90000"), ("-0.0", "f98000"), ("1.0", "f93c00"),
    ("1.1", "fb3ff199999999999a"), ("1.5", "f93e00"), ("65504.0", "f97bff"), ("100000.0", "fa47c35000"),
    ("3.4028234663852886e+38", "fa7f7fffff"), ("1.0e+300", "fb7e37e43c8800759c"),
    ("5.960464477539063e-8", "f90001"), ("0.00006103515625", "f90400"), ("-4.0", "f9c400"),
    ("-4.1", "fbc010666666666666"), ("Infinity", "f97c00"), ("NaN", "f97e00"), ("-Infinity", "f9fc00"),
    ("Infinity", "fa7f800000"), ("NaN", "fa7fc00000"), ("-Infinity", "faff800000"),
    ("Infinity", "fb7ff0000000000000"), ("NaN", "fb7ff8000000000000"), ("-Infinity", "fbfff0000000000000"),
    ("false", "f4"), ("true", "f5"), ("null", "f6"), ("undefined", "f7"), ("simple(16)", "f0"),
    ("simple(255)", "f8ff"),
    ('0("2013-03-21T20:04:00Z")', "c074323031332d30332d32315432303a30343a30305a"),
    ("1(1363896240)", "c11a514b67b0"), ("1(1363896240.5)", "c1fb41d452d9ec200000"),
    ("23(h'01020304')", "d74401020304"), ("24(h'6449455446')", "d818456449455446"),
    ('32("http://www.example.com")', "d82076687474703a2f2f7777772e6578616d706c652e636f6d"),
    ("h''", "40"), ("h'01020304'", "4401020304"), ('""', "60"), ('"a"', "6161"), ('"IETF"', "6449455446"),
    ('"\\"\\\\"', "62225c"), ('"\\u00fc"', "62c3bc"), ('"\\u6c34"', "63e6b0b4"),
    ('"\\ud800\\udd51"', "64f0908591"), ("[]", "80"), ("[1, 2, 3]", "83010203"),
    ("[1, [2, 3], [4, 5]]", "8301820203820405"),
    ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
     "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
    ("{}", "a0"), ("{1: 2, 3: 4}", "a201020304"), ('{"a": 1, "b": [2, 3]}', "a26161016162820203"),
    ('["a", {"b": "c"}]', "826161a161626163"),
    ('{"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}', "a56161614161626142616361436164614461656145"),
    ("(_ h'0102', h'030405')", "5f42010243030405ff"), ('(_ "strea", "ming")', "7f657374726561646d696e67ff"),
    ("[_ ]", "9fff"), ("[_ 1, [2, 3], [_ 4, 5]]", "9f018202039f0405ffff"),
    ("[_ 1, [2, 3], [4, 5]]", "9f01820203820405ff"), ("[1, [2, 3], [_ 4, 5]]", "83018202039f0405ff"),
    ("[1, [_ 2, 3], [4, 5]]", "83019f0203ff820405"),
    ("[_ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
     "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff"),
    ('{_ "a": 1, "b": [_ 2, 3]}', "bf61610161629f0203ffff"), ('["a", {_ "b": "c"}]', "826161bf61626163ff"),
    ('{_ "Fun": true, "Amt": -2}', "bf6346756ef563416d7421ff"),
]

KINDS = ["uint", "nint", "bytes", "text", "array", "map", "tag"]
# Keep every tag as a CBORTag (no datetime/bignum interpretation) so re-encoding is judged fairly.
RAW_TAGS = {tag: (lambda t: lambda value, immutable: cbor2.CBORTag(t, value))(tag) for tag in (0, 1, 2, 3, 23, 24, 32)}


def kind(data):
    major = data[0] >> 5
    if major < 7:
        return KINDS[major]
    return "float" if data[0] in (0xF9, 0xFA, 0xFB) else "simple"


def cbor_vectors():
    vectors = []
    for diagnostic, hexa in TABLE_6:
        data = bytes.fromhex(hexa)
        value = cbor2.loads(data, semantic_decoders=RAW_TAGS)       # every example must decode
        vectors.append({"hex": hexa, "diagnostic": diagnostic, "kind": kind(data),
                        "roundtrip": cbor2.dumps(value, canonical=True) == data})
    assert len(vectors) == 81, len(vectors)    # 82 rows in RFC 7049, minus simple(24)
    return vectors


def base45_vectors():
    pairs = [("AB", "BB8"), ("Hello!!", "%69 VD92EX0"), ("base-45", "UJCLQE7W581"), ("ietf!", "QED8WEX0")]
    for decoded, encoded in pairs:
        assert base45.b45encode(decoded.encode()).decode() == encoded, decoded
        assert base45.b45decode(encoded) == decoded.encode() == b45decode_strict(encoded), encoded
    invalid = ["GGW"]                       # RFC 9285 §6: 16 + 16*45 + 32*45*45 = 65536 > 65535
    for text in invalid:
        for decoder in (base45.b45decode, b45decode_strict):
            try:
                decoder(text)
                raise AssertionError(f"{text} decoded")
            except (ValueError, Refusal):
                pass
    return [{"decoded": d, "encoded": e} for d, e in pairs] + [{"invalid": invalid}]


def main():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
    os.makedirs(folder, exist_ok=True)
    for name, content in (("rfc8949-appendix-a.json", cbor_vectors()), ("rfc9285-base45.json", base45_vectors())):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            json.dump(content, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote vectors/{name}: {len(content)} entries")


if __name__ == "__main__":
    main()
