#!/usr/bin/env python3
"""An operator's push service, as chat-server's webhook reaches it: an HTTP receiver on
127.0.0.1 that checks each POST's X-Chat-Signature (sha256=HMAC-SHA256 of the body with the
secret) and prints one JSON line per request: {"valid": bool, "status": int, "push": body}.

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

secret = open(sys.argv[1], "rb").read().strip()
attempts = {}
lock = threading.Lock()  # one whole line at a time: requests arrive on several threads


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, self.headers.get("X-Chat-Signature", ""))
        push = json.loads(body)
        token = push["deviceToken"]
        with lock:
            attempts[token] = attempts.get(token, 0) + 1
            status = 200
            if token.startswith("gone-"):
                status = 410
            elif token.startswith("flaky-") and attempts[token] <= 2:
                status = 500
            sys.stdout.write(json.dumps({"valid": valid, "status": status, "push": push}) + "\n")
            sys.stdout.flush()
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
