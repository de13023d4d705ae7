#!/usr/bin/env python3
"""An operator's push service, as chat-server's webhook reaches it: an HTTP receiver on
127.0.0.1 that checks each POST's signatures and prints one JSON line per request:
{"valid": bool, "timed": bool, "delivery": str, "duplicate": bool, "status": int, "push": body}.

- "timed": X-Chat-Webhook-Signature, "t=<unix seconds>,v1=<hex>", holds the HMAC-SHA256 of
  "<t>.<body>" with the secret, and t is within 300 s of now (an older one is a replay).
- "valid": X-Chat-Signature, "sha256=<hex>", holds the HMAC-SHA256 of the body alone (the
  signature receivers written before the timestamp check).
- "delivery": X-Chat-Delivery, the push's id (the same on each attempt, and the body's
  deliveryId); "duplicate": an earlier request with that id was answered 2xx (a real service
  answers 200 to it and does nothing more).

Usage: push_receiver.py SECRET_FILE
Prints "listening PORT" first. Answers 200, except: a token starting "gone-" gets 410 (the
device is gone), and one starting "flaky-" gets 500 twice, then 200.
"""
import hashlib
import hmac
import http.server
import json
import sys
import threading
import time

secret = open(sys.argv[1], "rb").read().strip()
attempts = {}
delivered = set()
TOLERANCE = 300


def timed_valid(header, body):
    """Whether header ("t=...,v1=...") signs body at a t within TOLERANCE seconds of now."""
    fields = {}
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        fields.setdefault(name, []).append(value)
    try:
        t = int(fields["t"][0])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - t) > TOLERANCE:
        return False
    expected = hmac.new(secret, str(t).encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, v1) for v1 in fields.get("v1", []))

lock = threading.Lock()  # one whole line at a time: requests arrive on several threads


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, self.headers.get("X-Chat-Signature", ""))
        timed = timed_valid(self.headers.get("X-Chat-Webhook-Signature", ""), body)
        delivery = self.headers.get("X-Chat-Delivery", "")
        push = json.loads(body)
        token = push["deviceToken"]
        with lock:
            attempts[token] = attempts.get(token, 0) + 1
            status = 200
            if token.startswith("gone-"):
                status = 410
            elif token.startswith("flaky-") and attempts[token] <= 2:
                status = 500
            duplicate = delivery in delivered
            if status < 300:
                delivered.add(delivery)
            line = {"valid": valid, "timed": timed, "delivery": delivery, "duplicate": duplicate, "status": status,
                    "push": push}
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
