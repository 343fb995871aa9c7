"""Free workers handed to waiting queries first come, first served (kg.query.lanes)."""

from __future__ import annotations

import threading
import time

from kg.query.lanes import Lane, Waiter, take_first


def test_a_freed_worker_goes_to_the_longest_waiting_query() -> None:
    lane: Lane[str] = Lane()
    first, second, third = Waiter[str](), Waiter[str](), Waiter[str]()
    for waiter in (first, second, third):
        lane.join(waiter)
    lane.put("w1")
    lane.put("w2")
    assert (first.worker, second.worker, third.worker) == ("w1", "w2", None)
    assert first.ready.is_set() and not third.ready.is_set()


def test_a_newcomer_cannot_take_a_worker_someone_waits_for() -> None:
    lane: Lane[str] = Lane()
    waiting = Waiter[str]()
    lane.join(waiting)
    assert lane.take_nowait() is None
    lane.put("w")
    assert waiting.worker == "w" and lane.take_nowait() is None and lane.qsize() == 0


def test_free_workers_are_taken_last_freed_first_when_nobody_waits() -> None:
    lane: Lane[str] = Lane()
    lane.put("cold")
    lane.put("warm")
    assert lane.take_nowait() == "warm" and lane.take_nowait() == "cold" and lane.take_nowait() is None


def test_a_query_waiting_on_two_lanes_takes_one_worker_and_leaves_the_other() -> None:
    normal: Lane[str] = Lane()
    reserve: Lane[str] = Lane()
    both, later = Waiter[str](), Waiter[str]()
    for waiter in (both, later):
        normal.join(waiter)
        reserve.join(waiter)
    reserve.put("r")
    normal.put("n")
    assert both.worker == "r" and later.worker == "n"
    reserve.put("r2")
    assert reserve.take_nowait() == "r2"


def test_a_query_that_gave_up_does_not_keep_a_worker() -> None:
    lane: Lane[str] = Lane()
    assert take_first([lane], 0.05) is None
    lane.put("w")
    assert lane.qsize() == 1 and lane.take_nowait() == "w"


def test_take_first_gets_a_worker_freed_while_it_waits() -> None:
    lane: Lane[str] = Lane()
    threading.Timer(0.1, lane.put, args=("w",)).start()
    started = time.monotonic()
    assert take_first([lane], 5) == "w" and time.monotonic() - started < 4


def test_waiters_are_served_in_arrival_order_under_threads() -> None:
    lane: Lane[int] = Lane()
    served: list[int] = []
    lock = threading.Lock()

    def wait(number: int) -> None:
        worker = take_first([lane], 10)
        with lock:
            served.append(number)
        assert worker is not None

    threads = []
    for number in range(5):
        thread = threading.Thread(target=wait, args=(number,))
        thread.start()
        threads.append(thread)
        deadline = time.monotonic() + 5
        while lane.waiting() < number + 1 and time.monotonic() < deadline:  # joined before the next
            time.sleep(0.005)
    for number in range(5):
        lane.put(number)
        time.sleep(0.02)
    for thread in threads:
        thread.join(10)
    assert served == [0, 1, 2, 3, 4]
