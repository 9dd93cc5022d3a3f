"""Reads images with zxing-cpp (PyPI `zxing-cpp`) in this one process and prints a JSON line per
image: its texts, the milliseconds to load it (Pillow) and to decode it (zxingcpp.read_barcodes,
defaults). The paths come as arguments, or one a line on stdin when there are none; `--jobs N`
spreads them over N worker processes (the parallel yardstick for `activate scan --jobs N`). A
yardstick for benchmarks/compare-decoders.py and benchmarks/decode-speed.py, never a product
dependency: run it with the venv compare-decoders.py makes (.build/bench-venv).
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


def read(path):
    """One image's JSON line."""
    start = time.perf_counter()
    try:
        image = PIL.Image.open(path)
        image.load()
    except Exception:  # an unreadable image reads as nothing, as for the other decoders
        return json.dumps({"file": path, "texts": [], "load_ms": (time.perf_counter() - start) * 1000, "decode_ms": 0})
    loaded = time.perf_counter()
    results = zxingcpp.read_barcodes(image)
    done = time.perf_counter()
    return json.dumps({"file": path, "texts": [form for r in results for form in texts(r)],
                       "load_ms": (loaded - start) * 1000, "decode_ms": (done - loaded) * 1000})


def main():
    arguments = sys.argv[1:]
    jobs = 1
    if arguments[:1] == ["--jobs"]:
        jobs, arguments = int(arguments[1]), arguments[2:]
    paths = arguments or [line.rstrip("\n") for line in sys.stdin if line.strip()]
    if jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(jobs) as pool:
            lines = pool.imap(read, paths, chunksize=1)
            for line in lines:
                print(line, flush=False)
    else:
        for path in paths:
            print(read(path), flush=False)


if __name__ == "__main__":
    main()
