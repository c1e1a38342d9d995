"""An open-loop load generator for `make bench-serve`: requests sent at a fixed rate whatever the
server's answers, as wrk2 does (wrk, closed-loop, sends the next request only once the last is
answered, so a slow server is asked less and its queueing never shows).

Each request has a scheduled time (one every 1/RATE s); its latency is measured from that time,
not from when a connection was free to send it, so a request that waited behind a slow one
counts its wait (what wrk2 calls correcting for coordinated omission). Requests go over
keep-alive connections, opened as needed up to `connections`.

usage (as a module): run(port, paths, rate, seconds) -> Result
"""
import asyncio
import collections
import dataclasses
import threading
import time


@dataclasses.dataclass
class Result:
    asked_rate: float
    achieved_rate: float
    latencies_ms: list
    statuses: collections.Counter
    errors: int

    def percentile(self, share):
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def _request(pool, opened, limit, port, path):
    """One GET over a pooled connection: the status, or None when the connection failed. A
    kept-alive connection the server has closed meanwhile (after its idle timeout) is dropped
    from the pool unused once its end has been read; one the server closed just as the request
    went out is replaced by a new connection and the request sent again, as HTTP clients do for
    a request nothing was answered to."""
    status, stale = await _attempt(pool, opened, limit, port, path, reuse=True)
    if stale:
        status, _ = await _attempt(pool, opened, limit, port, path, reuse=False)
    return status


async def _attempt(pool, opened, limit, port, path, reuse):
    """(status, False), or (None, True) when a reused connection closed before answering. With
    `reuse` false, a new connection (when there is room for one)."""
    reused = False
    while True:
        if reuse and pool:
            reader, writer = pool.pop()
            if reader.at_eof():
                writer.close()
                opened[0] -= 1
                continue
            reused = True
        elif not reuse and pool and opened[0] >= limit:
            # Room for the new connection: the longest idle one goes.
            pool.pop(0)[1].close()
            opened[0] -= 1
            continue
        elif opened[0] < limit:
            opened[0] += 1
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                opened[0] -= 1
                return None, False
        else:
            await asyncio.sleep(0.001)
            continue
        break
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        await reader.readexactly(length)
        closing = b"connection: close" in head.lower()
        if closing:
            writer.close()
            opened[0] -= 1
        else:
            pool.append((reader, writer))
        return status, False
    except asyncio.IncompleteReadError as error:
        writer.close()
        opened[0] -= 1
        return None, reused and not error.partial
    except (OSError, asyncio.LimitOverrunError, ValueError):
        writer.close()
        opened[0] -= 1
        return None, reused


async def _run(port, paths, rate, seconds, connections):
    pool, opened = [], [0]
    latencies, statuses, errors = [], collections.Counter(), [0]
    loop = asyncio.get_running_loop()
    start = loop.time()
    count = int(rate * seconds)
    tasks = []

    async def one(index):
        scheduled = start + index / rate
        status = await _request(pool, opened, connections, port, paths[index % len(paths)])
        # From the scheduled time, not from when the request could be sent.
        latencies.append((loop.time() - scheduled) * 1000)
        if status is None:
            errors[0] += 1
        else:
            statuses[status] += 1

    for index in range(count):
        delay = start + index / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(index)))
    await asyncio.gather(*tasks)
    elapsed = loop.time() - start
    for _, writer in pool:
        writer.close()
    return Result(rate, len(latencies) / elapsed, latencies, statuses, errors[0])


def run(port, paths, rate, seconds, connections=64):
    """Requests for `paths` in turn at `rate` a second for `seconds`."""
    return asyncio.run(_run(port, paths, rate, seconds, connections))


class MemorySampler:
    """The resident memory (MiB) of process `pid`, sampled every `every` seconds in a thread."""

    def __init__(self, pid, every=1.0):
        self.pid, self.every, self.samples = pid, every, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            self.samples.append((time.monotonic(), rss(self.pid)))
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._stop.set()
        self._thread.join()
        self.samples.append((time.monotonic(), rss(self.pid)))

    def after(self, seconds):
        """The first sample at least `seconds` after the first one."""
        first = self.samples[0][0]
        return next((value for moment, value in self.samples if moment - first >= seconds), self.samples[-1][1])

    def median(self, start, end):
        """The median of the samples from `start` to `end` seconds after the first one (negative:
        before the last one); the last sample alone when none falls there."""
        first, last = self.samples[0][0], self.samples[-1][0]
        low, high = (first + start if start >= 0 else last + start), (first + end if end >= 0 else last + end)
        values = sorted(value for moment, value in self.samples if low <= moment <= high)
        return values[len(values) // 2] if values else self.samples[-1][1]


def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
