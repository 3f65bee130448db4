"""Headless Chromium driven through the DevTools protocol over `--remote-debugging-pipe`, for the browser tests.

Chromium reads commands from its descriptor 3 and writes replies and events to its descriptor 4, one JSON value
each, ended by a NUL byte: no websocket and no port, so the standard library is enough. One page is opened
(Target.createTarget, then Target.attachToTarget with flatten: its commands carry the session id), and every
event of it is kept: the console errors and the requests a test checks come from them.

    with Chromium.start() as browser:
        page = browser.open_page(1024, 768)
        page.navigate("http://127.0.0.1:8048/")
        rows = page.evaluate("document.querySelectorAll('#table tbody tr').length")
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable, Optional

#: Where Debian installs Chromium (the `chromium` package).
CHROMIUM = "/usr/bin/chromium"

#: How long any one command or wait may take, in seconds: a hang is a failure with its reason, never a stuck run.
TIMEOUT = 10.0


class ProtocolError(AssertionError):
    """A command Chromium refused, a reply or event that did not come in time, or a browser that ended."""


def unavailable_reason() -> Optional[str]:
    """Why the browser tests cannot run here (no Chromium at `CHROMIUM`), or None when they can."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install chromium; Tests/run-all.sh does as root)"
    return None


def above_four(descriptor: int) -> int:
    """`descriptor` moved to the lowest free number from 5 on (the original closed)."""
    moved = fcntl.fcntl(descriptor, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(descriptor)
    return moved


class Chromium:
    """One headless Chromium process and its DevTools pipe; killed, with its profile removed, by `close`."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, replies: int, profile: str) -> None:
        self.process = process
        self.profile = profile
        self._commands = commands
        self._replies: dict[int, "queue.Queue[dict[str, Any]]"] = {}
        self._events: "queue.Queue[dict[str, Any]]" = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, args=(replies,), daemon=True)
        self._reader.start()

    @classmethod
    def start(cls) -> "Chromium":
        """Starts Chromium headless, with a profile of its own in a temporary folder."""
        profile = tempfile.mkdtemp(prefix="gym2048-chromium-")
        # Chromium's ends go on its descriptors 3 and 4 (bash's redirections, since ours may have any numbers);
        # moved to 5 or above first, so that putting one on 3 cannot overwrite the other.
        to_browser_read, to_browser_write = (above_four(end) for end in os.pipe())
        from_browser_read, from_browser_write = (above_four(end) for end in os.pipe())
        arguments = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                     f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                     "--disable-extensions", "--disable-background-networking", "--disable-sync",
                     "--disable-component-update", "--disable-default-apps", "--mute-audio",
                     "--password-store=basic", "about:blank"]
        script = f'exec "$@" 3<&{to_browser_read} 4>&{from_browser_write} {to_browser_read}<&- {from_browser_write}>&-'
        process = subprocess.Popen(["/bin/bash", "-c", script, "bash", *arguments], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   pass_fds=(to_browser_read, from_browser_write), start_new_session=True)
        os.close(to_browser_read)
        os.close(from_browser_write)
        return cls(process, to_browser_write, from_browser_read, profile)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kills Chromium and every process it started (its session, which outlives a browser that ended: its
        number is not given to another group while a member lives), and removes its profile."""
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=TIMEOUT)
        os.close(self._commands)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, descriptor: int) -> None:
        """Splits what Chromium writes at its NULs: replies to their waiting command, the rest into the events."""
        pending = b""
        with os.fdopen(descriptor, "rb", buffering=0) as stream:
            while True:
                chunk = stream.read(1 << 16)
                if not chunk:
                    break
                pending += chunk
                *messages, pending = pending.split(b"\0")
                for raw in messages:
                    message = json.loads(raw)
                    if "id" in message:
                        with self._lock:
                            reply = self._replies.pop(message["id"], None)
                        if reply is not None:
                            reply.put(message)
                    else:
                        self._events.put(message)
        self._events.put({"method": "<closed>"})

    def send(self, method: str, params: Optional[dict[str, Any]] = None, session: Optional[str] = None,
             timeout: float = TIMEOUT) -> dict[str, Any]:
        """Sends one command (to the page of `session`, or to the browser) and returns its result."""
        reply: "queue.Queue[dict[str, Any]]" = queue.Queue()
        with self._lock:
            self._next_id += 1
            command_id = self._next_id
            self._replies[command_id] = reply
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._commands, data):]
        except BrokenPipeError:
            raise ProtocolError(f"{method}: Chromium has ended (exit status {self.process.poll()})") from None
        try:
            answer = reply.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(f"{method}: no reply within {timeout} s") from None
        if "error" in answer:
            raise ProtocolError(f"{method}: {answer['error'].get('message')} {answer['error'].get('data', '')}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def next_event(self, deadline: float) -> Optional[dict[str, Any]]:
        """The next event Chromium sent, or None when none came before `deadline` (a `time.monotonic()` value)."""
        try:
            event = self._events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if event["method"] == "<closed>":
            raise ProtocolError(f"Chromium closed its pipe (exit status {self.process.poll()})")
        return event

    def open_page(self, width: int, height: int) -> "Page":
        """A new tab of `width` x `height` CSS pixels at scale 1, attached, with its page, runtime, log and network
        events on."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        for domain in ("Page", "Runtime", "Log", "Network", "DOM"):
            page.send(f"{domain}.enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        return page


class Page:
    """One attached tab: its commands, and the events it sent, kept in order (`events`)."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: Optional[dict[str, Any]] = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Sends one command to this page and returns its result."""
        result = self.browser.send(method, params, session=self.session, timeout=timeout)
        self._drain(time.monotonic())
        return result

    def _drain(self, deadline: float) -> Optional[dict[str, Any]]:
        """Keeps the events that came (waiting for one until `deadline`); returns the last of this page's, if any."""
        last = None
        while (event := self.browser.next_event(deadline)) is not None:
            if event.get("sessionId") == self.session:
                self.events.append(event)
                last = event
            deadline = time.monotonic()  # then only what is there already
        return last

    def wait_for_event(self, method: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first event named `method` this page sends from now on."""
        start = len(self.events)
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[start:]:
                if event["method"] == method:
                    return event
            start = len(self.events)
            if time.monotonic() >= deadline:
                raise ProtocolError(f"no {method} within {timeout} s")
            self._drain(deadline)

    def navigate(self, url: str, timeout: float = TIMEOUT) -> None:
        """Opens `url` and waits for its load event."""
        start = len(self.events)
        result = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if "errorText" in result:
            raise ProtocolError(f"cannot open {url}: {result['errorText']}")
        if not any(event["method"] == "Page.loadEventFired" for event in self.events[start:]):
            self.wait_for_event("Page.loadEventFired", timeout)

    def evaluate(self, expression: str, timeout: float = TIMEOUT) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited); an exception fails."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True, "timeout": int(timeout * 1000)},
                           timeout=timeout + 1)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ProtocolError(f"{expression!r} threw: {text}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float = TIMEOUT, what: Optional[str] = None,
                   context: Optional[str] = None) -> Any:
        """Evaluates `expression` until its value is truthy, and returns that value; fails after `timeout` s, with
        the value of the expression `context` then (what the page says about itself: a status line) when given."""
        try:
            return poll(lambda: self.evaluate(expression), timeout, what or expression)
        except ProtocolError as error:
            if context is None:
                raise
            raise ProtocolError(f"{error}; {context}: {self.evaluate(context)!r}") from None

    def set_file_input(self, selector: str, path: str) -> None:
        """Gives the file input `selector` the file `path`, as if the user had chosen it (it fires `change`)."""
        found = self.send("Runtime.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})"})
        object_id = found["result"].get("objectId")
        if object_id is None:
            raise ProtocolError(f"no element {selector}")
        self.send("DOM.setFileInputFiles", {"files": [path], "objectId": object_id})

    def screenshot(self) -> bytes:
        """A PNG of the page's viewport."""
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def console_errors(self) -> list[str]:
        """The errors the page reported so far: console.error calls, uncaught exceptions, error log entries (a
        failed load among them)."""
        self._drain(time.monotonic())
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(" ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"]))
            elif event["method"] == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                errors.append(details.get("exception", {}).get("description") or details.get("text", ""))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                errors.append(f"{params['entry'].get('text')} ({params['entry'].get('url', '')})")
        return errors

    def requested_urls(self) -> list[str]:
        """Every URL the page requested so far, in order."""
        self._drain(time.monotonic())
        return [event["params"]["request"]["url"] for event in self.events
                if event["method"] == "Network.requestWillBeSent"]


def poll(probe: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Calls `probe` until it returns something truthy, and returns that; fails naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise ProtocolError(f"waited {timeout} s for {what}; last value {value!r}")
        time.sleep(interval)
