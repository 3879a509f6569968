"""Fuzzes a running `timbre live --http` with malformed and random protocol messages.

Usage: web_fuzz.py HOST PORT COUNT SEED. Sends COUNT messages over 10 connections at once
(each below the per-connection rate limit part of the time and above it the rest), mixing
random bytes, broken and deep JSON, wrong types, unknown keys, commands with bad arguments,
random parameter paths and values, binary, ping and oversized frames. Prints one JSON line:
what was sent, how many replies came back, how many were errors, how many connections the
server closed (oversized frames close them, as RFC 6455 says), and the last `status`."""
import json, random, sys, threading, time
from wsclient import WebSocket

host, port, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
WORDS = ["set", "bypass", "load", "save", "insert", "remove", "play", "pause", "stop", "seek", "learn", "status",
         "meters", "record", "quit", "exit", "eq.bands[0].gain", "hp.frequency", "trim.gain", "master.volume",
         "tone.pan", "on", "off", "1e308", "nan", "-0", "../../etc/passwd", "/tmp/x.so:probe", "start", "x.wav", "{}"]
SEEDS = [
    {"v": 1, "id": 1, "command": "set eq.bands[0].gain 3"},
    {"v": 1, "id": 2, "set": "eq.bands[0].shape", "value": "lowshelf"},
    {"v": 1, "id": 3, "command": "status"},
    {"v": 1, "id": 4, "meters": False},
    {"v": 1, "id": 5, "command": "bypass hp on"},
    {"v": 1, "id": 6, "command": "load ../outside.json"},
    {"v": 1, "id": 7, "command": "insert 0 {\"type\": \"plugin\", \"ladspa\": \"/tmp/x.so:probe\"}"},
    {"v": 1, "id": 8, "command": "record start /tmp/escape.wav master"},
]


def message(rng, k):
    kind = k % 10
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).decode("latin-1")
    if kind == 1:
        s = json.dumps(rng.choice(SEEDS))
        cut = rng.randrange(len(s))
        return s[:cut] + "".join(rng.choice("{}[]\",:0123456789aeflnrstu\\") for _ in range(rng.randrange(0, 8))) + s[cut + 1:]
    if kind == 2:
        return "[" * rng.randrange(100, 5000) + "]" * rng.randrange(0, 5000)
    if kind == 3:
        m = dict(rng.choice(SEEDS))
        key = rng.choice(list(m.keys()))
        m[key] = rng.choice([None, True, 1.5, -1, 2 ** 60, "x" * rng.randrange(0, 300), [], {}, [1, 2], {"a": 1}])
        return json.dumps(m)
    if kind == 4:
        m = dict(rng.choice(SEEDS))
        m[rng.choice(["extra", "V", "cmd", "value", "set", "meters"])] = rng.random()
        return json.dumps(m)
    if kind == 5:
        return json.dumps({"v": 1, "id": k, "command": " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 5)))})
    if kind == 6:
        address = rng.choice(["eq.bands[%d].%s" % (rng.randrange(-2, 12), rng.choice(["gain", "frequency", "q", "shape", "x"])),
                              "hp.%s" % rng.choice(["frequency", "slope", "bypass"]), "trim.gain", "tone.volume", "master.pan",
                              "nosuch.gain", "", ".", "a.b.c"])
        value = rng.choice([rng.uniform(-1e6, 1e6), rng.uniform(-30, 30), "peak", "lowshelf", "bogus", True, False, 0, 1])
        return json.dumps({"v": 1, "id": k, "set": address, "value": value})
    if kind == 7:
        return json.dumps({"v": rng.choice([0, 2, "1", None, 1.0001]), "id": k, "command": "status"})
    if kind == 8:
        return json.dumps(rng.choice(SEEDS)).replace("1", "\u0000", 1)
    return json.dumps({"v": 1, "id": k, "command": "set eq.bands[%d].gain %s" % (rng.randrange(0, 3), rng.choice(["3", "-3", "40", "1e999", "0x10", "inf"]))})


results = {"sent": 0, "replies": 0, "errors": 0, "closedByServer": 0, "binary": 0, "oversized": 0, "ping": 0}
lock = threading.Lock()


def worker(index, n):
    rng = random.Random(seed * 100 + index)
    ws = WebSocket(host, port)
    assert ws.status == 101, ws.status
    stop = threading.Event()

    def reader(sock):
        while not stop.is_set():
            try:
                m = sock.receive()
            except Exception:
                return
            if m is None:
                return
            try:
                r = json.loads(m)
            except ValueError:
                continue
            if r.get("type") == "reply":
                with lock:
                    results["replies"] += 1
                    results["errors"] += 0 if r.get("ok") else 1

    t = threading.Thread(target=reader, args=(ws,), daemon=True)
    t.start()
    for k in range(n):
        try:
            r = k % 97
            if r == 13:
                ws.send_frame(bytes(rng.randrange(256) for _ in range(64)), opcode=2)
                with lock: results["binary"] += 1
            elif r == 29:
                ws.send_frame(b"ping", opcode=9)
                with lock: results["ping"] += 1
            elif r == 61:
                ws.send_frame("x" * 70000, opcode=1)  # over the 64 KiB limit: the server closes
                with lock: results["oversized"] += 1
            else:
                ws.send(message(rng, k))
            with lock: results["sent"] += 1
        except OSError:
            with lock: results["closedByServer"] += 1
            stop.set()
            ws.close()
            ws = WebSocket(host, port)
            t = threading.Thread(target=reader, args=(ws,), daemon=True)
            stop.clear()
            t.start()
        if k % 50 == 49:
            time.sleep(0.2 if index % 2 else 0.05)  # half the connections stay under the rate limit
    time.sleep(0.5)
    stop.set()
    ws.close()


threads = [threading.Thread(target=worker, args=(i, count // 10)) for i in range(10)]
for t in threads: t.start()
for t in threads: t.join()
ws = WebSocket(host, port)
ws.send(json.dumps({"v": 1, "id": 999999, "command": "status"}))
status = None
deadline = time.time() + 5
while time.time() < deadline:
    m = json.loads(ws.receive())
    if m.get("type") == "reply" and m.get("id") == 999999:
        status = m.get("status")
        break
results["statusAnswered"] = status is not None
results["document"] = status.get("document") if status else None
print(json.dumps(results))
