#!/usr/bin/env python3
"""Doc-comment coverage of the library products' public API, from the compiler's symbol graphs.

    scripts/doc-coverage.py [--list] [SYMBOL_GRAPH_DIR]    (`make docs` runs it after DocC)

Counts every public declaration written in Sources/ of ActivationConfiguration, ActivationImaging,
ActivationSecureStore, ActivationOnboarding, ActivationDiscoveryProtocol, ActivationDiscovery and ActivationDiscoveryServer, and how many have a doc comment. Members the
compiler synthesizes (Equatable's ==, Codable's init(from:), …) and members inherited from
protocols are not ours to document and are left out. Exits 1 below 100 %; --list names each
undocumented declaration with its file and line.
"""
import glob
import json
import os
import subprocess
import sys

MODULES = ["ActivationConfiguration", "ActivationImaging", "ActivationSecureStore", "ActivationOnboarding", "ActivationDiscoveryProtocol", "ActivationDiscovery", "ActivationDiscoveryServer"]


def symbol_graph_dir(argument):
    if argument:
        return argument
    # `swift package dump-symbol-graph` writes one folder per module under the build folder.
    output = subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                            capture_output=True, text=True)
    if output.returncode != 0:
        sys.exit(f"doc-coverage: swift package dump-symbol-graph failed:\n{output.stderr[-2000:]}")
    for line in output.stdout.splitlines():
        if "Files written to" in line:
            return line.split("Files written to", 1)[1].strip()
    sys.exit("doc-coverage: cannot tell where the symbol graphs were written")


def main():
    arguments = [a for a in sys.argv[1:] if a != "--list"]
    listing = "--list" in sys.argv
    folder = symbol_graph_dir(arguments[0] if arguments else None)
    root = os.getcwd() + "/Sources/"
    rows = []
    for module in MODULES:
        files = glob.glob(f"{folder}/{module}.symbols.json") + glob.glob(f"{folder}/{module}@*.symbols.json")
        if not files:
            sys.exit(f"doc-coverage: no symbol graph for {module} in {folder}")
        total = documented = 0
        missing = []
        for path in files:
            for symbol in json.load(open(path))["symbols"]:
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                    continue
                uri = symbol.get("location", {}).get("uri", "")
                if root not in uri:  # inherited from a protocol of another module, or generated
                    continue
                total += 1
                if symbol.get("docComment"):
                    documented += 1
                else:
                    line = symbol["location"]["position"]["line"] + 1
                    missing.append(f"  {uri.split(root, 1)[1]}:{line}: {symbol['kind']['displayName']} {'.'.join(symbol['pathComponents'])}")
        rows.append((module, documented, total, missing))
    all_documented = sum(r[1] for r in rows)
    all_total = sum(r[2] for r in rows)
    for module, documented, total, missing in rows:
        print(f"{module:28s} {documented:4d} of {total:4d} public declarations documented ({100.0 * documented / max(total, 1):5.1f} %)")
        if listing:
            print("\n".join(sorted(missing)))
    print(f"{'all libraries':28s} {all_documented:4d} of {all_total:4d} ({100.0 * all_documented / max(all_total, 1):5.1f} %)")
    sys.exit(0 if all_documented == all_total else 1)


if __name__ == "__main__":
    main()
