"""Reads every image named on stdin (one path a line) with zxing-cpp (PyPI `zxing-cpp`), in this one
process, and prints a JSON line per image: its texts, the milliseconds to load it (Pillow) and to
decode it (zxingcpp.read_barcodes, defaults). A yardstick for benchmarks/compare-decoders.py, never a product
dependency: run it with the venv that script makes (.build/bench-venv).
"""
import json
import sys
import time

import PIL.Image
import zxingcpp


def upce(gtin13):
    """The 8-digit UPC-E form of a 13-digit GTIN that zxing-cpp 3 reports for UPC-E (None if none)."""
    upca = gtin13[1:]
    system, maker, product, check = upca[0], upca[1:6], upca[6:11], upca[11]
    if maker[2:] in ("000", "100", "200") and product[:2] == "00":
        six = maker[:2] + product[2:] + maker[2]
    elif maker[3:] == "00" and product[:3] == "000":
        six = maker[:3] + product[3:] + "3"
    elif maker[4] == "0" and product[:4] == "0000":
        six = maker[:4] + product[4] + "4"
    elif product[:4] == "0000" and product[4] in "56789":
        six = maker + product[4]
    else:
        return None
    return system + six + check


def texts(result):
    """The text, and the same symbol in the form the corpus expects where zxing-cpp 3 writes it
    another way: UPC-A and UPC-E as 13-digit GTINs, Codabar with its start and stop characters."""
    text, kind = result.text, result.format
    forms = [text]
    if kind in (zxingcpp.BarcodeFormat.UPCA, zxingcpp.BarcodeFormat.EAN13) and len(text) == 13 and text.startswith("0"):
        forms.append(text[1:])
    if kind == zxingcpp.BarcodeFormat.UPCE and len(text) == 13:
        forms += [form for form in [upce(text)] if form]
    if kind == zxingcpp.BarcodeFormat.Codabar and len(text) >= 2 and text[0] in "ABCD" and text[-1] in "ABCD":
        forms.append(text[1:-1])
    return forms


for line in sys.stdin:
    path = line.rstrip("\n")
    start = time.perf_counter()
    try:
        image = PIL.Image.open(path)
        image.load()
    except Exception:  # an unreadable image reads as nothing, as for the other decoders
        print(json.dumps({"file": path, "texts": [], "load_ms": (time.perf_counter() - start) * 1000, "decode_ms": 0}))
        continue
    loaded = time.perf_counter()
    results = zxingcpp.read_barcodes(image)
    done = time.perf_counter()
    print(json.dumps({"file": path, "texts": [form for r in results for form in texts(r)],
                      "load_ms": (loaded - start) * 1000, "decode_ms": (done - loaded) * 1000}), flush=False)
