"""Events of a run's (or a fleet run's) log, and the SSE framing they come in."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, Iterator, Optional

from dateutil.parser import isoparse

#: The statuses after which a run changes no more.
TERMINAL_STATUSES = frozenset({"succeeded", "failed", "cancelled", "interrupted"})


@dataclass(frozen=True)
class Event:
    """One event of a log.

    `seq`, `type` and `at` are in every event; `run_id` names the run (in a
    fleet run's log, a `result` names its task's run) and `fleet_run_id` the
    fleet run. Every field of the event, those of its type included, is in
    `data`, and `event["text"]` or `event.get("status")` reads them.
    """

    seq: int
    type: str
    at: datetime
    run_id: Optional[str] = None
    fleet_run_id: Optional[str] = None
    data: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Event:
        return cls(
            seq=int(data["seq"]),
            type=str(data["type"]),
            at=isoparse(data["at"]),
            run_id=data.get("run_id"),
            fleet_run_id=data.get("fleet_run_id"),
            data=data,
        )

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def is_terminal(self) -> bool:
        """True for `done`, always the last event of a log."""
        return self.type == "done"

    def model(self) -> Any:
        """The event as the generated `Event` model."""
        from .api_gen.models.event import Event as GeneratedEvent

        return GeneratedEvent.from_dict(self.data)


@dataclass
class Frame:
    """One SSE frame: its `id`, `event` and `data` lines, and a `retry` hint."""

    id: Optional[str] = None
    event: Optional[str] = None
    data: Optional[str] = None
    retry: Optional[int] = None


class SSEDecoder:
    """Reads SSE lines (without their line ends) and gives each whole frame.

    A frame is dispatched only at the blank line that ends it, so a frame cut
    by a dropped connection is never given, as the SSE standard says.
    Comments (`:` lines, the server's keep-alives) are skipped.
    """

    def __init__(self) -> None:
        self._frame = Frame()
        self._data: list = []
        self._touched = False

    def feed(self, line: str) -> Optional[Frame]:
        if line == "":
            if not self._touched:
                return None
            frame = self._frame
            frame.data = "\n".join(self._data) if self._data else None
            self._frame, self._data, self._touched = Frame(), [], False
            return frame
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "id":
            self._frame.id = value
        elif name == "event":
            self._frame.event = value
        elif name == "retry":
            if value.isdigit():
                self._frame.retry = int(value)
        else:
            return None
        self._touched = True
        return None


def frame_event(frame: Frame) -> Optional[Event]:
    """The event a frame carries, or None for a frame without data (a hint)."""
    if frame.data is None:
        return None
    return Event.from_dict(json.loads(frame.data))


def iter_frames(lines: Iterator[str]) -> Iterator[Frame]:
    decoder = SSEDecoder()
    for line in lines:
        frame = decoder.feed(line)
        if frame is not None:
            yield frame
