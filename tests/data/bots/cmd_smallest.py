#!/usr/bin/env python3
"""A `cmd:` bot speaking the JSON-lines protocol (docs/arena.md): names the smallest legal number.

Usage: --bot 'cmd:python3 tests/data/bots/cmd_smallest.py [--garbage]'
"""

import json
import sys


def smallest_legal(numbers, bound=5000):
    reach = bytearray(bound + 1)
    reach[0] = 1
    for x in numbers:
        if 0 < x <= bound:
            for i in range(x, bound + 1):
                if reach[i - x]:
                    reach[i] = 1
    return next((n for n in range(2, bound + 1) if not reach[n]), 1)


garbage = "--garbage" in sys.argv
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        print(json.dumps({"type": "ready", "protocol": 1, "name": "cmd-smallest"}), flush=True)
    elif kind == "turn":
        if garbage:
            print("I think I will play 2", flush=True)
        print(json.dumps({"type": "move", "move": smallest_legal(msg["history"])}), flush=True)
    elif kind == "result":
        print(json.dumps({"type": "ok"}), flush=True)
    elif kind == "quit":
        break
