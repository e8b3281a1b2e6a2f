#!/usr/bin/env python3
"""A `cmd:` bot that sends log messages (allowed) and, with --twice, a second unasked move (a loss)."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "protocol": 1}), flush=True)
    elif msg["type"] == "turn":
        print(json.dumps({"type": "log", "message": "thinking"}), flush=True)
        print(json.dumps({"type": "move", "move": 2 if len(msg["history"]) == 2 else 3}), flush=True)
        if "--twice" in sys.argv:
            print(json.dumps({"type": "move", "move": 5}), flush=True)
        print(json.dumps({"type": "log", "message": "done"}), flush=True)
    elif msg["type"] == "result":
        print(json.dumps({"type": "ok"}), flush=True)
    elif msg["type"] == "quit":
        break
