"""What a process keeps between requests: a small map that forgets the least recently used
entry past its size, safe to share between threads. The decoded state rows, what is worked
out of them, stored states and maps, and players' decoded orders are kept in these."""

from __future__ import annotations

import threading
from collections import OrderedDict


class Kept[K, V]:
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
