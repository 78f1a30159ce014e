#!/usr/bin/env python3
"""ci/run.py - build and test steps for the CI job."""
import subprocess as sp
import sys

STEPS = [
    ["make", "deps"],
    ["make", "build"],
    ["make", "test"],
]


def main():
    for step in STEPS:
        print("+", " ".join(step), flush=True)
        try:
            sp.run(step, check=True)
        except sp.CalledProcessError as exc:
            print(f"step failed with {exc.returncode}", file=sys.stderr)
            return exc.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
