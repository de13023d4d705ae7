#!/usr/bin/env python3
"""The operator's console driven in Debian's headless Chromium (Selenium with chromedriver),
against a running `chat-server --dev --admin boss`, as an operator uses it.

Usage: console_browser.py PORT SCREENSHOT_DIR [cluster NODES]
With `cluster NODES`, PORT is one node of a cluster of NODES nodes: the overview must list them
all. Prints a line per step and OK at the end; exits 1 naming the first step that failed. Any
script error, Content-Security-Policy violation or dialog in the page fails the run: the texts
the users write below are made to run script if they were ever put in the page as HTML.
"""
import http.server
import json
import os
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (NoAlertPresentException, NoSuchElementException,
                                        StaleElementReferenceException, TimeoutException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

PORT = int(sys.argv[1])
SHOTS = sys.argv[2]
BASE = f"http://127.0.0.1:{PORT}"
EVIL_NAME = '<script>alert("name")</script>'
EVIL_CHANNEL = '"><img src=x onerror=alert(1)>'
EVIL_TEXT = '<img src=x onerror=alert(2)> <a href="javascript:alert(3)">javascript:alert(3)</a>'
# Ids an app may choose: an e-mail address, reserved characters and non-ASCII, the longest.
MAIL_ID = "lena.k@example.com"
ODD_ID = "zoë ü:?#&%/+"
LONG_ID = "u" * 128
LONG_NAME = "N" * 256
TEAM = "team:design"
LONG_TEXT = "x" * 10_000


def step(text):
    print(text, flush=True)


def shoot(driver, name):
    """A picture of the whole page, from its top, into SHOTS."""
    driver.execute_script("window.scrollTo(0, 0)")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, max(800, min(height + 120, 2000)))
    driver.save_screenshot(os.path.join(SHOTS, name))
    driver.set_window_size(1280, 900)


def admin(method, path, body=None, token="dev:boss"):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, (json.loads(text) if text else None)


class Device:
    """A client of the wire protocol (Docs/Protocol.md), as an SDK is."""

    def __init__(self, user, device):
        self.ws = ws_connect(f"ws://127.0.0.1:{PORT}/v1/connect?device={device}",
                             additional_headers={"Authorization": f"Bearer dev:{user}"}).__enter__()
        self.ws.send(json.dumps({"type": "hello", "protocol": 1, "resumeAfter": None}))
        assert json.loads(self.ws.recv(timeout=10))["type"] == "welcome"
        self.next_id = 0
        self.frames = []

    def request(self, request):
        """Sends `request` and returns its response; a `rateLimited` failure (a burst of sends)
        is sent again after the wait it names."""
        while True:
            self.next_id += 1
            self.ws.send(json.dumps({"type": "request", "id": self.next_id, "request": request}))
            while True:
                frame = json.loads(self.ws.recv(timeout=10))
                if frame.get("id") == self.next_id:
                    break
                self.frames.append(frame)
            limited = frame["type"] == "failure" and "rateLimited" in frame.get("error", {})
            if not limited:
                assert frame["type"] == "response", frame
                return frame["envelope"]["response"]
            time.sleep(frame["error"]["rateLimited"]["retryAfter"] + 0.01)

    def saw(self, predicate, seconds=10):
        """Whether a frame received (before or within `seconds`) satisfies `predicate`."""
        deadline = time.time() + seconds
        while True:
            if any(predicate(frame) for frame in self.frames):
                return True
            left = deadline - time.time()
            if left <= 0:
                return False
            try:
                self.frames.append(json.loads(self.ws.recv(timeout=left)))
            except TimeoutError:
                return False


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def overview_of_a_cluster(nodes):
    driver = browser()
    try:
        driver.get(BASE + "/console")
        WebDriverWait(driver, 30).until(EC.visibility_of_element_located((By.ID, "token"))).send_keys("dev:boss\n")
        # The page refreshes every 5 s; a node is live once its first beat is written.
        WebDriverWait(driver, 60).until(
            EC.text_to_be_present_in_element((By.CSS_SELECTOR, "table.nodes caption"), f"{nodes} nodes"))
        # The page's own connection, made through the cluster's log, is counted by the node.
        waiting(driver, 60).until(
            lambda d: d.execute_script("return document.documentElement.dataset.live") == "true"
            and text_of(d, "#figure-devices") == "1")
        listed = driver.execute_script(
            "return [...document.querySelectorAll('table.nodes tbody td:first-child')].map(c => c.innerText)")
        shoot(driver, "overview-cluster.png")
        step(f"the overview lists {listed}")
    except Exception as error:  # noqa: BLE001 - reported with what the page showed
        shown = driver.find_element(By.TAG_NAME, "main").text[:500]
        print(f"FAILED: {type(error).__name__}: {error}; the page showed: {shown!r}", flush=True)
        sys.exit(1)
    finally:
        driver.quit()
    print("OK", flush=True)


def main():
    if len(sys.argv) > 4 and sys.argv[3] == "cluster":
        return overview_of_a_cluster(int(sys.argv[4]))
    # The scene, made through the admin API by an app's backend.
    assert admin("POST", "/admin/v1/users", {"userId": "ann", "displayName": "Ann"})[0] == 201
    assert admin("POST", "/admin/v1/users", {"userId": "eve", "displayName": EVIL_NAME})[0] == 201
    status, _ = admin("POST", "/admin/v1/channels", {"type": "community", "channelId": "news", "displayName": EVIL_CHANNEL,
                                                     "userIds": ["ann", "eve"], "tags": ["press"],
                                                     "metadata": {"note": EVIL_TEXT}})
    assert status == 201, status
    assert admin("POST", "/admin/v1/channels/news/messages", {"userId": "ann", "text": EVIL_TEXT})[0] == 201
    status, spam = admin("POST", "/admin/v1/channels/news/messages", {"userId": "eve", "text": "buy cheap pills"})
    assert status == 201
    for user, name in [(MAIL_ID, "Lena"), (ODD_ID, "Zoë"), (LONG_ID, LONG_NAME)]:
        assert admin("POST", "/admin/v1/users", {"userId": user, "displayName": name})[0] == 201
    status, _ = admin("POST", "/admin/v1/channels", {"type": "community", "channelId": TEAM, "displayName": LONG_NAME,
                                                     "userIds": ["ann", "eve", MAIL_ID, ODD_ID, LONG_ID]})
    assert status == 201, status
    ann = Device("ann", "laptop")
    eve = Device("eve", "phone")
    ann.request({"flagMessage": {"channelId": "news", "messageId": spam["messageId"]}})
    # Messages sent by clients, with ids they chose (as the SDK's outbox does).
    for index in range(3):
        sent = ann.request({"sendMessage": {"_0": {"channelId": "news", "text": f"from the SDK {index}",
                                                   "messageId": f"ann-laptop-{index}"}}})
        assert "sendMessage" in json.dumps(sent) or "message" in json.dumps(sent), sent
    long = eve.request({"sendMessage": {"_0": {"channelId": TEAM, "text": LONG_TEXT, "messageId": "eve-long"}}})
    ann.request({"flagMessage": {"channelId": TEAM, "messageId": "eve-long"}})
    step(f"scene ready: ann and eve connected, eve's messages flagged ({json.dumps(long)[:60]}…)")

    driver = browser()
    wait = waiting(driver, 15)
    failures = []
    try:
        run(driver, wait, ann, eve, spam)
    except Exception as error:  # noqa: BLE001 - reported with the step's name
        failures.append(f"{type(error).__name__}: {error} at {traceback.format_exc().strip().splitlines()[-3]}")
        shoot(driver, "failure.png")
    finally:
        try:
            alert = driver.switch_to.alert
            failures.append(f"a dialog opened: {alert.text}")
        except NoAlertPresentException:
            pass
        bad = [entry["message"] for entry in driver.get_log("browser")
               if "Content Security Policy" in entry["message"] or "Uncaught" in entry["message"]
               or entry.get("source") == "javascript"]
        if bad:
            failures.append(f"the page ran into script errors or CSP violations: {bad}")
        driver.quit()
    if failures:
        print("FAILED: " + "; ".join(failures), flush=True)
        sys.exit(1)
    print("OK", flush=True)


def text_of(driver, css):
    """The text shown in the element `css` names, read in one step in the page: the overview
    rebuilds its figures every 5 s, so an element found first and read after may be gone."""
    text = driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", css)
    if text is None:
        raise NoSuchElementException(f"nothing on the page matches {css}")
    return text


def waiting(driver, seconds):
    """A wait that tries again when the element it read was replaced while it read it."""
    return WebDriverWait(driver, seconds, ignored_exceptions=[NoSuchElementException, StaleElementReferenceException])


def run(driver, wait, ann, eve, spam):
    # Sign in: a user who is not an admin is refused, and told why.
    driver.get(BASE + "/console")
    token = wait.until(EC.visibility_of_element_located((By.ID, "token")))
    label = driver.find_element(By.CSS_SELECTOR, "label[for=token]").text
    assert label == "Token", label
    token.send_keys("dev:eve\n")
    wait.until(EC.text_to_be_present_in_element((By.ID, "sign-in-error"), "not an admin"))
    assert not driver.find_element(By.ID, "nav").is_displayed(), "the sections are shown before signing in"
    shoot(driver, "sign-in.png")
    step("sign-in: a non-admin's token refused, saying why")
    token.clear()
    token.send_keys("dev:boss\n")
    wait.until(EC.visibility_of_element_located((By.ID, "figure-connections")))
    # The page is connected over the protocol, as a device of the admin (its session admits it).
    wait.until(lambda d: d.execute_script("return document.documentElement.dataset.live") == "true")
    cookie = driver.get_cookie("chat_console")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
    assert driver.execute_script("return document.cookie") == "", "the session is readable by scripts"

    # Overview: its numbers are /metrics' and the engine's (the page's own connection among
    # them: the figures are read again every 5 s).
    def metric(name):
        with urllib.request.urlopen(BASE + "/metrics", timeout=10) as response:
            text = response.read().decode()
        return next(line.split()[-1] for line in text.splitlines() if line.startswith(name + " "))

    wait.until(lambda d: d.execute_script("return document.documentElement.dataset.live") == "true")
    waiting(driver, 15).until(
        lambda d: float(text_of(d, "#figure-connections")) == float(metric("chat_connections")) == 3
        and text_of(d, "#figure-devices") == str(admin("GET", "/admin/v1/service")[1]["connectedDevices"]) == "3")
    shown = text_of(driver, "#figure-connections")
    assert text_of(driver, "#figure-users") == str(admin("GET", "/admin/v1/service")[1]["users"])
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart polyline")) == 2
    # Messages sent: the two sent through the admin API, three ann's client sent with ids it
    # chose, eve's long one.
    waiting(driver, 15).until(lambda d: text_of(d, "#figure-messages") == "6")
    assert admin("GET", "/admin/v1/service")[1]["messagesSent"] == 6
    # The charts fill their cards: the axis spans nearly the chart's whole width.
    spans = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(c => "
        "c.querySelector('line').getBoundingClientRect().width / c.getBoundingClientRect().width)")
    assert spans and all(span > 0.85 for span in spans), spans
    shoot(driver, "overview.png")
    fits(driver, "the overview")
    # On a phone, the nodes table's headers are words, not a letter a line.
    driver.set_window_size(390, 844)
    tallest = driver.execute_script(
        "return Math.max(...[...document.querySelectorAll('table.nodes th')].map(h => h.getBoundingClientRect().height))")
    line = driver.execute_script("return parseFloat(getComputedStyle(document.body).lineHeight)")
    assert tallest < 2.5 * line, f"a header of the nodes table is {tallest} px high (a line: {line} px)"
    driver.set_window_size(1280, 900)
    step(f"overview: {shown} connections, as /metrics says; 6 messages sent, as clients sent them")

    # Users: found by name; eve's name is text; banned, her connection ends and she is refused.
    driver.find_element(By.LINK_TEXT, "Users").click()
    query = wait.until(EC.visibility_of_element_located((By.ID, "user-query")))
    query.send_keys("eve\n")
    wait.until(EC.text_to_be_present_in_element((By.ID, "user-results"), EVIL_NAME))
    driver.find_element(By.LINK_TEXT, "eve").click()
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "main"), EVIL_NAME))
    assert driver.current_url == BASE + "/console/users/eve", driver.current_url
    shoot(driver, "user.png")
    driver.find_element(By.ID, "ban-user").click()
    wait.until(EC.visibility_of_element_located((By.ID, "unban-user")))
    try:
        while True:
            eve.ws.recv(timeout=10)
    except ConnectionClosed:
        pass
    try:
        Device("eve", "tablet")
        raise AssertionError("a banned user connected")
    except InvalidStatus as refusal:
        assert refusal.response.status_code == 403, refusal.response.status_code
    step("users: eve banned from the service: disconnected, and refused with 403")

    # Moderation: the flagged message is in the queue, deleted from it; ann sees the deletion.
    driver.get(BASE + "/console/moderation")
    wait.until(EC.text_to_be_present_in_element((By.ID, "flag-queue"), "buy cheap pills"))
    shoot(driver, "moderation.png")
    fits(driver, "the moderation queue with a 10,000-character message")
    spam_report = "//li[contains(@class, 'report')][.//blockquote[text()='buy cheap pills']]"
    driver.find_element(By.XPATH, spam_report + "//button[text()='Delete the message']").click()
    # Asked first: nothing is deleted until the second click.
    confirm = wait.until(EC.element_to_be_clickable((By.XPATH, spam_report + "//button[text()='Delete it for everyone']")))
    assert not any(m["messageId"] == spam["messageId"] and m.get("isDeleted")
                   for m in admin("GET", "/admin/v1/channels/news")[1]["messages"]), "deleted before it was confirmed"
    confirm.click()
    wait.until(lambda d: "buy cheap pills" not in d.find_element(By.ID, "flag-queue").text)
    assert ann.saw(lambda f: f.get("type") == "event" and spam["messageId"] in json.dumps(f)
                   and '"isDeleted": true' in json.dumps(f)), "ann was not told of the deletion"
    step("moderation: the flagged message deleted from the queue, once confirmed; ann's client saw it deleted")
    moderation_at_its_edges(driver, wait, ann)

    # A channel: its evil name and texts are text; a message ann sends appears while it is open.
    driver.get(BASE + "/console/channels/news")
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "h1"), EVIL_CHANNEL))
    wait.until(EC.text_to_be_present_in_element((By.ID, "channel-messages"), EVIL_TEXT))
    ann.request({"sendMessage": {"_0": {"channelId": "news", "text": "sent from the SDK just now"}}})
    # Pushed over the page's connection: well before the 10 s it asks again when not connected.
    WebDriverWait(driver, 4).until(
        EC.text_to_be_present_in_element((By.ID, "channel-messages"), "sent from the SDK just now"))
    assert not driver.find_elements(By.CSS_SELECTOR, "main img, main script, main iframe")
    # Read in one step in the page: a live update may replace the links between a find and a read.
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a'), a => a.href)")
    assert all(h.startswith(BASE + "/console") for h in hrefs if h), hrefs
    shoot(driver, "channel.png")
    step("channel: user texts shown as text; a message sent by a client appeared live")

    # On a phone's screen: nothing wider than the screen.
    driver.set_window_size(390, 844)
    width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the channel page is {width[0]} px wide on a {width[1]} px screen"
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(os.path.join(SHOTS, "channel-phone.png"))
    driver.set_window_size(1280, 900)
    step("channel: fits a phone's screen")

    # Its moderation settings changed through the form: a blocked word is masked from then on.
    driver.find_element(By.ID, "blocked-words").send_keys("pills")
    driver.find_element(By.CSS_SELECTOR, "#blocked-word-action option[value=mask]").click()
    driver.find_element(By.XPATH, "//button[text()='Save the settings']").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Moderation settings saved."))
    assert admin("GET", "/admin/v1/channels/news/moderation")[1] == {"blockedWords": ["pills"], "blockedWordAction": "mask"}
    status, masked = admin("POST", "/admin/v1/channels/news/messages", {"userId": "ann", "text": "cheap pills"})
    assert status == 201 and masked["text"] == "cheap *****", masked
    step("channel: moderation settings saved from the page, in force")

    # Channels found by tag.
    driver.find_element(By.LINK_TEXT, "Channels").click()
    tag = wait.until(EC.visibility_of_element_located((By.ID, "channel-tag")))
    tag.send_keys("press\n")
    wait.until(EC.text_to_be_present_in_element((By.ID, "channel-results"), "1 found"))
    step("channels: found by tag")

    # A page of another origin opening a WebSocket with the session cookie: refused.
    other = cross_site_page(f"{BASE}/admin/v1/users/ann/ban")
    driver.get(other + "socket")
    WebDriverWait(driver, 10).until(lambda d: d.title in ("refused", "opened"))
    assert driver.title == "refused", driver.title
    step("a WebSocket from another origin with the session cookie: refused")

    # A cross-site form post, with the session cookie: refused, nothing changed.
    driver.get(other)
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(BASE))
    assert "forbidden" in driver.page_source, driver.page_source[:300]
    assert admin("GET", "/admin/v1/users/ann")[1]["bannedAt"] is None, "the cross-site post banned ann"
    step("a cross-site POST with the session cookie: refused with 403, ann not banned")

    # Sign out: the session is gone.
    driver.get(BASE + "/console")
    session = driver.get_cookie("chat_console")["value"]
    wait.until(EC.element_to_be_clickable((By.ID, "sign-out"))).click()
    wait.until(EC.visibility_of_element_located((By.ID, "token")))
    assert driver.get_cookie("chat_console") is None
    replayed = urllib.request.Request(BASE + "/admin/v1/service", headers={"Cookie": f"chat_console={session}"})
    try:
        urllib.request.urlopen(replayed, timeout=10)
        raise AssertionError("the session signed out still opens the admin API")
    except urllib.error.HTTPError as refusal:
        assert refusal.code == 401, refusal.code
    step("signed out: the session's cookie, replayed, is refused by the server")

    # Sign-in attempts are bounded per address: five refused a minute (the browser's first
    # attempt, eve's token, was one of them), then 429 whatever the token.
    codes = [sign_in_status("dev:eve") for _ in range(5)] + [sign_in_status("dev:boss")]
    assert codes == [403] * 4 + [429] * 2, codes
    step(f"sign-in attempts bounded: {codes}")


def fits(driver, what):
    """Nothing on the page is wider than the screen, at 1280 and at 390 px."""
    for width, height in [(1280, 900), (390, 844)]:
        driver.set_window_size(width, height)
        time.sleep(0.3)
        wide = driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide[0] <= wide[1], f"{what} is {wide[0]} px wide on a {wide[1]} px screen"
    driver.set_window_size(1280, 900)


def api_calls(driver):
    """How many calls of the admin API the page made since it loaded."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/admin/v1/')).length")


def moderation_at_its_edges(driver, wait, ann):
    """The queue with an id full of reserved characters, a 10,000-character message older than
    the channel's 50 newest, and a burst of events; a deep link that is not an address; user
    and channel pages of long and odd ids and names."""
    driver.get(BASE + "/console/moderation")
    driver.execute_script("performance.setResourceTimingBufferSize(100000)")
    long_report = "//li[contains(@class, 'report')][.//blockquote[starts-with(text(), 'xxxx')]]"
    wait.until(EC.presence_of_element_located((By.XPATH, long_report)))
    before = api_calls(driver)
    # 60 messages in the channel (48 of them by a client) while the queue is open: the page asks
    # again a few times, not once per event.
    for index in range(48):
        ann.request({"sendMessage": {"_0": {"channelId": TEAM, "text": f"burst {index}"}}})
    for index in range(12):
        assert admin("POST", f"/admin/v1/channels/{quote(TEAM)}/messages", {"userId": MAIL_ID, "text": f"more {index}"})[0] == 201
    time.sleep(3)
    calls = api_calls(driver) - before
    assert calls <= 8, f"the moderation page made {calls} API calls for 60 messages"
    # The flagged message is now older than the channel's 50 newest: still shown whole, with
    # its sender and a ban button.
    report = driver.find_element(By.XPATH, long_report)
    assert "from eve" in report.text, report.text[:200]
    assert report.find_element(By.XPATH, ".//blockquote").text == LONG_TEXT
    assert report.find_elements(By.XPATH, ".//button[text()='Ban the sender']")
    fits(driver, "the moderation queue")
    report.find_element(By.XPATH, ".//button[text()='Delete the message']").click()
    wait.until(EC.element_to_be_clickable((By.XPATH, long_report + "//button[text()='Delete it for everyone']"))).click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "flag-queue"), "Nothing is flagged."))
    assert admin("GET", f"/admin/v1/channels/{quote(TEAM)}")[1]["isDeleted"] is False
    step(f"moderation: 60 messages cost {calls} API calls; a flag older than the 50 newest shown whole and "
         f"deleted in '{TEAM}'")

    # A deep link that is not percent-encoded UTF-8: a page saying so, still signed in.
    driver.get(BASE + "/console/users/%E0%A4%A")
    wait.until(EC.visibility_of_element_located((By.ID, "no-such-page")))
    assert driver.find_element(By.ID, "nav").is_displayed() and not driver.find_elements(By.ID, "token")
    step("a malformed deep link: 'No such page', still signed in")

    # Users with an e-mail address, reserved characters and non-ASCII, the longest id and name:
    # opened by deep link and by the links of the pages.
    driver.get(BASE + "/console/users/" + quote(MAIL_ID))
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "h1"), f"User {MAIL_ID}"))
    driver.get(BASE + "/console/channels/" + quote(TEAM))
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "h1"), LONG_NAME))
    fits(driver, "a channel named with 256 characters, 128-character member ids")
    driver.find_element(By.LINK_TEXT, ODD_ID).click()
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "h1"), f"User {ODD_ID}"))
    assert driver.current_url == BASE + "/console/users/" + quote(ODD_ID), driver.current_url
    driver.get(BASE + "/console/users/" + LONG_ID)
    wait.until(EC.text_to_be_present_in_element((By.TAG_NAME, "main"), LONG_NAME))
    fits(driver, "a user with a 128-character id and a 256-character name")
    step("ids with '@', ':', spaces, reserved characters and non-ASCII open; long ids and names fit")

    # A channel's messages are deleted one at a time, each asked first.
    driver.get(BASE + "/console/channels/" + quote(TEAM))
    wait.until(EC.text_to_be_present_in_element((By.ID, "channel-messages"), "more 11"))
    assert not driver.find_elements(By.CSS_SELECTOR, "#channel-messages button.danger"), "red one-click buttons"
    newest = driver.find_element(By.XPATH, "//tr[.//span[text()='more 11']]")
    newest.find_element(By.XPATH, ".//button[text()='Delete']").click()
    newest.find_element(By.XPATH, ".//button[text()='Cancel']").click()
    time.sleep(0.3)
    assert not admin("GET", f"/admin/v1/channels/{quote(TEAM)}")[1]["messages"][-1]["isDeleted"], "deleted on Cancel"
    newest = driver.find_element(By.XPATH, "//tr[.//span[text()='more 11']]")
    newest.find_element(By.XPATH, ".//button[text()='Delete']").click()
    wait.until(EC.element_to_be_clickable((By.XPATH, "//tr[.//span[text()='more 11']]//button[text()='Delete for everyone']"))).click()
    WebDriverWait(driver, 10).until(lambda d: admin("GET", f"/admin/v1/channels/{quote(TEAM)}")[1]["messages"][-1]["isDeleted"])
    step("channel: a message deleted after a confirmation; Cancel deletes nothing")


def quote(text):
    """`text` as one path segment, as the console's pages encode it (encodeURIComponent)."""
    return urllib.parse.quote(text, safe="!'()*-._~")


def sign_in_status(token):
    request = urllib.request.Request(BASE + "/console/session", data=json.dumps({"token": token}).encode(),
                                     method="POST", headers={"Origin": BASE, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def cross_site_page(target):
    """Serves, from another origin, a page whose form posts to `target` by itself."""
    form = (f'<!doctype html><form id=f method=post action="{target}"><input name=x value=1></form>'
            '<script>document.getElementById("f").submit()</script>').encode()
    socket = (f'<!doctype html><title>trying</title><script>const s = new WebSocket("ws://127.0.0.1:{PORT}/v1/connect");'
              's.onopen = () => document.title = "opened"; s.onerror = () => document.title = "refused";'
              '</script>').encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(socket if self.path == "/socket" else form)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


if __name__ == "__main__":
    main()
