#!/usr/bin/env python3
"""A client of the LiveChannels wire protocol written from Docs/Protocol.md alone.

Usage: protocol_client.py PORT TOKEN_ALICE TOKEN_BOB
Alice creates a channel with Bob and sends a message; Bob, connected on his own, receives it
as an event, pages the channel's messages and marks it read. Prints OK and exits 0 when every
step behaved as the document says.
"""
import asyncio
import json
import sys

import websockets


class Connection:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    @classmethod
    async def open(cls, port, token, device):
        ws = await websockets.connect(
            f"ws://127.0.0.1:{port}/v1/connect?device={device}",
            additional_headers={"Authorization": f"Bearer {token}"})
        conn = cls(ws)
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "resumeAfter": None}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        assert welcome["result"]["status"] == "new", welcome
        conn.user = welcome["result"]["currentUser"]["userId"]
        return conn

    async def request(self, request):
        """Sends a request; returns its response's `response`, or raises with the failure."""
        self.next_id += 1
        my_id = self.next_id
        await self.ws.send(json.dumps({"type": "request", "id": my_id, "request": request}))
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if frame["type"] == "event":
                self.events.append(frame["envelope"])
            elif frame.get("id") == my_id and frame["type"] == "response":
                return frame["envelope"]["response"]
            elif frame.get("id") == my_id and frame["type"] == "failure":
                raise RuntimeError(frame["error"])

    async def event(self, kind):
        """The next event of `kind` (one already received, or one to come)."""
        for envelope in self.events:
            if kind in envelope["event"]:
                self.events.remove(envelope)
                return envelope
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if frame["type"] == "event" and kind in frame["envelope"]["event"]:
                return frame["envelope"]
            if frame["type"] == "event":
                self.events.append(frame["envelope"])


async def refused(port):
    """A forged token: the upgrade is refused with HTTP 401 and {"error": {"unauthorized": ...}}."""
    try:
        await websockets.connect(f"ws://127.0.0.1:{port}/v1/connect",
                                 additional_headers={"Authorization": "Bearer forged.token.here"})
    except websockets.exceptions.InvalidStatus as refusal:
        assert refusal.response.status_code == 401, refusal.response.status_code
        assert "unauthorized" in json.loads(refusal.response.body)["error"], refusal.response.body
        return
    raise AssertionError("a forged token was accepted")


async def main(port, token_alice, token_bob):
    await refused(port)
    alice = await Connection.open(port, token_alice, "laptop")
    bob = await Connection.open(port, token_bob, "phone")
    assert (alice.user, bob.user) == ("alice", "bob")

    created = await alice.request({"createChannel": {"_0": {"type": "community", "channelId": "py", "userIds": ["bob"]}}})
    assert created["channel"]["_0"]["memberCount"] == 2, created
    sent = await alice.request({"sendMessage": {"_0": {"channelId": "py", "text": "hello from Python", "mentionedUserIds": ["bob"]}}})
    message = sent["message"]["_0"]
    assert message["userId"] == "alice" and message["sequence"] == 1, message

    new = await bob.event("messageNew")
    assert new["event"]["messageNew"]["_0"]["text"] == "hello from Python", new
    channel = new["event"]["messageNew"]["channel"]
    assert channel["hasMention"] is True and channel["lastSequence"] - channel["readSequence"] == 1, channel

    page = await bob.request({"queryMessages": {"_0": {"channelId": "py"}}})
    assert [m["text"] for m in page["messages"]["_0"]["messages"]] == ["hello from Python"], page
    read = await bob.request({"startReading": {"channelId": "py"}})
    assert read["channel"]["_0"]["readSequence"] == 1, read

    # A chosen messageId makes a send idempotent: the repeat answers the stored message, adds
    # nothing; the id taken by another user is alreadyExists; a bad id names the field.
    once = {"sendMessage": {"_0": {"channelId": "py", "text": "sent once", "messageId": "py-once-1"}}}
    first = (await alice.request(once))["message"]["_0"]
    again = (await alice.request(once))["message"]["_0"]
    assert first == again and first["messageId"] == "py-once-1" and first["sequence"] == 2, (first, again)
    page = await bob.request({"queryMessages": {"_0": {"channelId": "py"}}})
    assert [m["messageId"] for m in page["messages"]["_0"]["messages"]].count("py-once-1") == 1, page
    for request, expected in [
        ({"sendMessage": {"_0": {"channelId": "py", "text": "mine", "messageId": "py-once-1"}}}, "alreadyExists"),
        ({"sendMessage": {"_0": {"channelId": "py", "text": "bad", "messageId": "no spaces"}}}, "messageId"),
    ]:
        try:
            await bob.request(request)
            raise AssertionError(f"accepted: {request}")
        except RuntimeError as failure:
            assert expected in json.dumps(failure.args[0]), failure

    try:
        await bob.request({"getChannel": {"channelId": "nowhere"}})
        raise AssertionError("a missing channel was found")
    except RuntimeError as failure:
        assert "notFound" in failure.args[0], failure

    await alice.ws.close()
    await bob.ws.close()
    print("OK")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3]))
