#!/usr/bin/env python3
"""Interleaved timing: each command once per round, for ROUNDS rounds, after three warm-up runs
each; prints each command's median, first quartile and mean wall time (ms).

On a machine that shares its host, a hyperfine group can catch a busy spell that the next group
misses; alternating the commands run by run spreads such spells over all of them.

    benchmarks/interleave.py ROUNDS 'COMMAND A' 'COMMAND B' ...
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds, commands = int(sys.argv[1]), sys.argv[2:]
    times = {command: [] for command in commands}
    for command in commands:
        for _ in range(3):
            subprocess.run(shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(rounds):
        for command in commands:
            start = time.perf_counter()
            subprocess.run(shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[command].append((time.perf_counter() - start) * 1000)
    for command in commands:
        values = sorted(times[command])
        print(f"median {statistics.median(values):9.2f}  p25 {values[len(values) // 4]:9.2f}  "
              f"mean {statistics.mean(values):9.2f}  {command[:100]}")


if __name__ == "__main__":
    main()
