#!/usr/bin/env python3
"""The pinned cross-node rules (API.md, "Several nodes, one service"), checked one by one by a
client written from Docs/Protocol.md alone, against `chat-server --dev` nodes sharing one
PostgreSQL.

Usage: cluster_rules.py PORT0,PORT1,PORT2 LIMITED0,LIMITED1 [RULE...]
The first nodes run with the default limits; the two "limited" nodes (another database) run
with `--max-devices 2 --messages-per-second 1`. Prints one line per rule, `ok: RULE` or
`FAILED: RULE: why`, then `OK` and exits 0 when every rule held (else exits 1).
"""
import asyncio
import json
import sys
import urllib.request

import websockets

TIMEOUT = 10


class Refused(Exception):
    """A `failure` frame: `kind` is the ChatError's case (`forbidden`, `rateLimited`, ...)."""

    def __init__(self, error):
        super().__init__(json.dumps(error))
        self.kind = next(iter(error))
        self.error = error


class Connection:
    """One device's connection: requests are matched to their answers by id; events are kept
    in arrival order for `event`."""

    def __init__(self, ws, welcome):
        self.ws = ws
        self.welcome = welcome
        self.next_id = 0
        self.pending = {}
        self.events = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, port, user, device, resume_after=None):
        ws = await websockets.connect(
            f"ws://127.0.0.1:{port}/v1/connect?device={device}",
            additional_headers={"Authorization": f"Bearer dev:{user}"})
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "resumeAfter": resume_after}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        assert welcome["type"] == "welcome", welcome
        return cls(ws, welcome["result"])

    async def _read(self):
        try:
            async for text in self.ws:
                frame = json.loads(text)
                if frame["type"] == "event":
                    self.events.append(frame["envelope"])
                    self.arrived.set()
                elif frame["type"] in ("response", "failure"):
                    future = self.pending.pop(frame["id"], None)
                    if future is not None and not future.done():
                        future.set_result(frame)
        except websockets.exceptions.ConnectionClosed:
            pass

    async def request(self, request):
        """Sends a request; returns its answer (`response` of the envelope) or raises Refused."""
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.ws.send(json.dumps({"type": "request", "id": self.next_id, "request": request}))
        frame = await asyncio.wait_for(future, TIMEOUT)
        if frame["type"] == "failure":
            raise Refused(frame["error"])
        return frame["envelope"]["response"]

    async def refused(self, request):
        """The ChatError kind `request` is refused with (fails when it is answered)."""
        try:
            answer = await self.request(request)
        except Refused as refusal:
            return refusal.kind
        raise AssertionError(f"{json.dumps(request)} was answered: {json.dumps(answer)}")

    async def event(self, matches, within=TIMEOUT):
        """The first event kept or to come whose envelope `matches` (it is removed)."""
        deadline = asyncio.get_running_loop().time() + within
        while True:
            for envelope in self.events:
                if matches(envelope):
                    self.events.remove(envelope)
                    return envelope
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"no matching event within {within} s; kept: {self.events}")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def close(self):
        await self.ws.close()
        await self.reader


def new_message(text):
    return lambda envelope: envelope["event"].get("messageNew", {}).get("_0", {}).get("text") == text


def create(channel_id, members, kind="community"):
    return {"createChannel": {"_0": {"type": kind, "channelId": channel_id, "userIds": members}}}


def send(channel_id, text):
    return {"sendMessage": {"_0": {"channelId": channel_id, "text": text}}}


def messages(channel_id):
    return {"queryMessages": {"_0": {"channelId": channel_id, "limit": 100}}}


async def eventually(condition, within=TIMEOUT):
    """Awaits `condition()` (a coroutine function) until it is true; fails after `within` s."""
    deadline = asyncio.get_running_loop().time() + within
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not true within {within} s")
        await asyncio.sleep(0.1)


async def is_online(connection, user):
    return (await connection.request({"getUser": {"userId": user}}))["user"]["_0"]["isOnline"]


class Rules:
    """Each method is one rule; `ports` are the default nodes, `limited` the limited ones."""

    def __init__(self, ports, limited):
        self.ports = ports
        self.limited = limited

    async def every_node_tells_the_same_epoch(self):
        connections = [await Connection.open(port, "ann", f"d{i}") for i, port in enumerate(self.ports)]
        epochs = {c.welcome["epoch"] for c in connections}
        assert len(epochs) == 1, epochs
        for c in connections:
            await c.close()

    async def events_cross_nodes_in_channel_order(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[1], "bob", "phone")
        carol = await Connection.open(self.ports[2], "carol", "phone")
        await alice.request(create("order", ["bob", "carol"]))
        texts = [f"m{i}" for i in range(12)]
        # Two senders on two nodes, each waiting for its answer: the channel's order is the
        # order of the answers.
        for i, text in enumerate(texts):
            await (alice if i % 2 == 0 else carol).request(send("order", text))
        heard = [await bob.event(lambda e: "messageNew" in e["event"]) for _ in texts]
        assert [e["event"]["messageNew"]["_0"]["text"] for e in heard] == texts, heard
        assert [e["event"]["messageNew"]["_0"]["sequence"] for e in heard] == list(range(1, 13)), heard
        numbers = [e["sequence"] for e in heard]
        assert numbers == sorted(set(numbers)), f"event numbers not increasing: {numbers}"
        for c in (alice, bob, carol):
            await c.close()

    async def a_node_that_delivered_an_event_shows_its_change(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[1], "bob", "phone")
        await alice.request(create("visible", ["bob"]))
        for i in range(5):
            await alice.request(send("visible", f"v{i}"))
            await bob.event(new_message(f"v{i}"))
            page = await bob.request(messages("visible"))
            assert f"v{i}" in [m["text"] for m in page["messages"]["_0"]["messages"]], page
        await alice.close()
        await bob.close()

    async def a_change_answered_on_one_node_is_in_force_on_the_next_request_anywhere(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        carol = await Connection.open(self.ports[2], "carol", "tablet")
        await alice.request(create("seen", ["carol"]))
        for i in range(5):
            await alice.request(send("seen", f"s{i}"))
            page = await carol.request(messages("seen"))
            assert page["messages"]["_0"]["messages"][-1]["text"] == f"s{i}", page
        await alice.close()
        await carol.close()

    async def a_ban_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        carol = await Connection.open(self.ports[2], "carol", "phone")
        await alice.request(create("bans", ["carol"]))
        await carol.request(send("bans", "before"))
        await alice.request({"banMembers": {"channelId": "bans", "userIds": ["carol"]}})
        assert await carol.refused(send("bans", "banned")) == "forbidden"
        assert await carol.refused({"joinChannel": {"channelId": "bans"}}) == "forbidden"
        await alice.request({"unbanMembers": {"channelId": "bans", "userIds": ["carol"]}})
        await carol.request({"joinChannel": {"channelId": "bans"}})
        await carol.request(send("bans", "back"))
        await alice.close()
        await carol.close()

    async def a_mute_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[1], "bob", "phone")
        await alice.request(create("mutes", ["bob"]))
        await alice.request({"muteMembers": {"channelId": "mutes", "userIds": ["bob"], "period": 600}})
        assert await bob.refused(send("mutes", "muted")) == "forbidden"
        await alice.request({"unmuteMembers": {"channelId": "mutes", "userIds": ["bob"]}})
        await bob.request(send("mutes", "unmuted"))
        await alice.request({"muteChannel": {"channelId": "mutes", "period": 600}})
        assert await bob.refused(send("mutes", "channel muted")) == "forbidden"
        await alice.close()
        await bob.close()

    async def a_role_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        dave = await Connection.open(self.ports[2], "dave", "phone")
        erin = await Connection.open(self.ports[1], "erin", "phone")  # a user from her first connect
        await alice.request(create("roles", ["dave", "erin"]))
        assert await dave.refused({"banMembers": {"channelId": "roles", "userIds": ["erin"]}}) == "forbidden"
        await alice.request({"addRole": {"_0": "moderator", "channelId": "roles", "userIds": ["dave"]}})
        await dave.request({"banMembers": {"channelId": "roles", "userIds": ["erin"]}})
        await alice.request({"removeRole": {"_0": "moderator", "channelId": "roles", "userIds": ["dave"]}})
        assert await dave.refused({"unbanMembers": {"channelId": "roles", "userIds": ["erin"]}}) == "forbidden"
        for c in (alice, dave, erin):
            await c.close()

    async def a_leave_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        erin = await Connection.open(self.ports[1], "erin", "phone")
        await alice.request(create("leaves", ["erin"]))
        await erin.request({"leaveChannel": {"channelId": "leaves"}})
        members = await alice.request(
            {"queryMembers": {"_0": {"channelId": "leaves", "pageSize": 20, "filter": "all"}}})
        ids = [m["userId"] for m in members["memberPage"]["_0"]["items"]]
        assert "erin" not in ids, members
        assert await erin.refused(send("leaves", "gone")) == "forbidden"
        await alice.close()
        await erin.close()

    async def a_deletion_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[2], "bob", "tablet")
        await alice.request(create("deletes", ["bob"]))
        sent = await alice.request(send("deletes", "soon gone"))
        message_id = sent["message"]["_0"]["messageId"]
        await alice.request({"deleteMessage": {"channelId": "deletes", "messageId": message_id}})
        page = await bob.request(messages("deletes"))
        shown = [m for m in page["messages"]["_0"]["messages"] if m["messageId"] == message_id]
        assert all(m["isDeleted"] for m in shown), page
        await alice.close()
        await bob.close()

    async def a_moderation_setting_is_in_force_on_every_node(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[1], "bob", "phone")
        await alice.request(create("words", ["bob"]))
        await alice.request({"setModerationSettings": {
            "channelId": "words", "_1": {"blockedWords": ["spam"], "blockedWordAction": "refuse"}}})
        assert await bob.refused(send("words", "buy spam now")) == "invalidArgument"
        tablet = await Connection.open(self.ports[2], "alice", "tablet")
        settings = await tablet.request({"getModerationSettings": {"channelId": "words"}})
        assert settings["moderationSettings"]["_0"]["blockedWords"] == ["spam"], settings
        for c in (alice, bob, tablet):
            await c.close()

    async def two_nodes_creating_one_conversation_make_one_channel(self):
        for attempt in range(5):
            a, b = f"conv{attempt}a", f"conv{attempt}b"
            first = await Connection.open(self.ports[0], a, "phone")
            second = await Connection.open(self.ports[1], b, "phone")
            answers = await asyncio.gather(
                first.request(create(None, [b], "conversation")),
                second.request(create(None, [a], "conversation")))
            ids = {answer["channel"]["_0"]["channelId"] for answer in answers}
            assert len(ids) == 1, f"two conversations: {ids}"
            await first.close()
            await second.close()

    async def ids_and_sequences_are_never_reused(self):
        senders = [await Connection.open(port, user, "phone")
                   for port, user in zip(self.ports, ["alice", "bob", "carol"])]
        await senders[0].request(create("ids", ["bob", "carol"]))
        answers = await asyncio.gather(*[
            sender.request(send("ids", f"{i}-{j}")) for i, sender in enumerate(senders) for j in range(6)])
        sent = [answer["message"]["_0"] for answer in answers]
        assert sorted(m["sequence"] for m in sent) == list(range(1, 19)), sent
        assert len({m["messageId"] for m in sent}) == 18, sent
        page = await senders[2].request(messages("ids"))
        assert [m["sequence"] for m in page["messages"]["_0"]["messages"]] == list(range(1, 19)), page
        for sender in senders:
            await sender.close()

    async def a_device_resumes_on_another_node_exactly_after_its_last_event(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[1], "bob", "roaming")
        await alice.request(create("roam", ["bob"]))
        await alice.request(send("roam", "before"))
        last = (await bob.event(new_message("before")))["sequence"]
        await bob.close()
        # A new device's events are numbered 1, 2, 3, … on a cluster too.
        given = sorted([last] + [e["sequence"] for e in bob.events])
        assert given == list(range(1, len(given) + 1)), given
        missed = ["while away 1", "while away 2", "while away 3"]
        for text in missed:
            await alice.request(send("roam", text))
        moved = await Connection.open(self.ports[2], "bob", "roaming", resume_after=last)
        assert moved.welcome["status"] == "resumed", moved.welcome
        replayed = [await moved.event(lambda e: "messageNew" in e["event"]) for _ in missed]
        assert [e["event"]["messageNew"]["_0"]["text"] for e in replayed] == missed, replayed
        # Exactly after its last: what the resume replays is numbered last + 1, last + 2, … with
        # no gap, though another node numbered it.
        numbers = sorted([e["sequence"] for e in replayed] + [e["sequence"] for e in moved.events])
        assert numbers == list(range(last + 1, last + 1 + len(numbers))), (last, numbers)
        await moved.close()
        # Beyond any number issued: resyncRequired, never a silent gap.
        back = await Connection.open(self.ports[0], "bob", "roaming", resume_after=2 ** 53 + 1)
        assert back.welcome["status"] == "resyncRequired", back.welcome
        await back.close()
        await alice.close()

    async def presence_counts_every_node(self):
        watcher = await Connection.open(self.ports[0], "alice", "watcher")
        first = await Connection.open(self.ports[1], "frank", "phone")
        assert await is_online(watcher, "frank")
        second = await Connection.open(self.ports[2], "frank", "laptop")
        await first.close()
        await asyncio.sleep(0.5)
        assert await is_online(watcher, "frank"), "offline while a device is on another node"
        await second.close()

        async def offline():
            return not await is_online(watcher, "frank")
        await eventually(offline)
        await watcher.close()

    async def typing_crosses_nodes(self):
        alice = await Connection.open(self.ports[0], "alice", "laptop")
        bob = await Connection.open(self.ports[2], "bob", "typing")
        await alice.request(create("typing", ["bob"]))
        await alice.request({"startTyping": {"channelId": "typing"}})
        started = await bob.event(lambda e: "typingStarted" in e["event"])
        assert started["event"]["typingStarted"] == {"channelId": "typing", "userId": "alice"}, started
        await alice.request({"stopTyping": {"channelId": "typing"}})
        await bob.event(lambda e: "typingStopped" in e["event"])
        await alice.close()
        await bob.close()

    async def metrics_show_lag_and_commits(self):
        commits = 0
        for port in self.ports:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=TIMEOUT) as answer:
                text = answer.read().decode()
            samples = {line.split(" ")[0]: float(line.split(" ")[-1])
                       for line in text.splitlines() if line and not line.startswith("#")}
            assert "chat_cluster_lag_seconds" in samples, text
            assert "chat_db_commits_total" in samples, text
            commits += samples["chat_db_commits_total"]
        assert commits > 0, "no node counted a commit"

    async def the_device_cap_counts_every_node(self):
        one = await Connection.open(self.limited[0], "gina", "one")
        two = await Connection.open(self.limited[1], "gina", "two")
        try:
            third = await Connection.open(self.limited[0], "gina", "three")
            await third.close()
            raise AssertionError("a third device was accepted with --max-devices 2")
        except websockets.exceptions.InvalidStatus as refusal:
            assert refusal.response.status_code == 429, refusal.response.status_code
            assert "limitExceeded" in json.loads(refusal.response.body)["error"], refusal.response.body
        await two.close()

        async def accepted():
            try:
                third = await Connection.open(self.limited[0], "gina", "three")
            except websockets.exceptions.InvalidStatus:
                return False
            await third.close()
            return True
        await eventually(accepted)
        await one.close()

    async def the_message_budget_is_one_per_user_across_nodes(self):
        # One message per second, bursts of 2: two on one node spend the burst; the third, on
        # the other node once it has applied the two (its device heard them), is over the
        # user's budget. Should a second pass meanwhile (a slow machine), the budget has
        # refilled and the attempt proves nothing: it is made again by another user.
        for attempt in range(3):
            user = f"hal{attempt}"
            first = await Connection.open(self.limited[0], user, "one")
            second = await Connection.open(self.limited[1], user, "two")
            channel = f"budget{attempt}"
            await first.request(create(channel, []))
            started = asyncio.get_running_loop().time()
            await first.request(send(channel, "1"))
            await first.request(send(channel, "2"))
            for text in ("1", "2"):
                await second.event(new_message(text))
            try:
                await second.request(send(channel, "3"))
                accepted = True
            except Refused as refusal:
                assert refusal.kind == "rateLimited", refusal.error
                accepted = False
            took = asyncio.get_running_loop().time() - started
            await first.close()
            await second.close()
            if not accepted:
                return
            assert took >= 0.9, f"a third message {took:.2f} s after the first was accepted on the other node"
        raise AssertionError("every attempt took a second or more: the budget could not be checked")


async def main(ports, limited, only):
    rules = Rules(ports, limited)
    names = [name for name in vars(Rules) if not name.startswith("_") and (not only or name in only)]
    failed = 0
    for name in names:
        try:
            await asyncio.wait_for(getattr(rules, name)(), 60)
            print(f"ok: {name}", flush=True)
        except Exception as failure:  # noqa: BLE001 - every failure is reported, then the next rule runs
            failed += 1
            print(f"FAILED: {name}: {type(failure).__name__}: {failure}", flush=True)
    print("OK" if failed == 0 else f"{failed} of {len(names)} rules failed", flush=True)
    return failed == 0


if __name__ == "__main__":
    nodes = [int(port) for port in sys.argv[1].split(",")]
    capped = [int(port) for port in sys.argv[2].split(",")]
    sys.exit(0 if asyncio.run(main(nodes, capped, sys.argv[3:])) else 1)
