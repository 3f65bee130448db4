"""The news of the ranking for the page's live updates: every listener (an open `GET /api/events`) gets each event
published after it started listening, in order."""

from __future__ import annotations

import queue
import threading
from typing import Any

#: The longest silence on an event stream: a comment is sent then, so proxies and browsers keep it open.
KEEP_ALIVE_SECONDS = 15.0
#: Events a slow listener may have waiting; past that it misses the oldest (the page reloads the table anyway).
_BACKLOG = 256


class Events:
    """Publish to every listener; `listen()` gives a queue to read, `stop(queue)` forgets it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[queue.Queue[dict[str, Any]]] = []

    def listen(self) -> queue.Queue[dict[str, Any]]:
        listener: queue.Queue[dict[str, Any]] = queue.Queue(_BACKLOG)
        with self._lock:
            self._listeners.append(listener)
        return listener

    def stop(self, listener: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def publish(self, event: dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener.put_nowait(event)
            except queue.Full:  # a listener that does not read: drop its oldest, keep the news
                try:
                    listener.get_nowait()
                    listener.put_nowait(event)
                except (queue.Empty, queue.Full):
                    pass
