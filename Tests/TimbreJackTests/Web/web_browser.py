"""Drives Timbre's control page in a real browser (Debian's chromium through Playwright).

Usage: web_browser.py URL CONTROL_SOCKET SCREENSHOT_DIR. The host runs a preset with
a 1 kHz sine at -20 dBFS panned hard left and an `eq` node with id `eq`. Prints one JSON
object of what was seen; WebSurfaceTests decides pass or fail from it."""
import json, os, socket, sys, time
from playwright.sync_api import sync_playwright

url, control, shots = sys.argv[1], sys.argv[2], sys.argv[3]
out = {}


def ask(line):
    """A command over the host's control socket; its one-line reply."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(control)
    s.sendall((line + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        data += s.recv(1 << 20)
    s.close()
    return data.decode().strip()


def status():
    return json.loads(ask("status")[len("status: "):])


def band(doc, i):
    for n in doc["document"]["graph"]["master"]["chain"]:
        if n.get("id") == "eq":
            return n["bands"][i]


def wait_for(predicate, timeout=5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = predicate()
        if v:
            return v
        time.sleep(0.05)
    return predicate()


def cpu_seconds():
    """CPU seconds used so far by the host's control side — the control loop and the web
    server's thread — and by JACK's thread, from `status` (each thread's own CPU-time clock:
    exact, where /proc's per-thread counters advance in 10 ms scheduler ticks)."""
    c = status()["cpuSeconds"]
    return c["control"] + c.get("web", 0), c["audio"]


def measure(seconds):
    """Control-side and audio-thread CPU as fractions of a core, and JACK's mean DSP load."""
    (c0, a0), t0 = cpu_seconds(), time.time()
    time.sleep(seconds)  # nothing asked of the host meanwhile
    (c1, a1), dt = cpu_seconds(), time.time() - t0
    loads = []
    for _ in range(5):  # JACK's DSP load is itself an average over recent cycles
        loads.append(status()["dspLoadPercent"])
        time.sleep(0.2)
    return (c1 - c0) / dt, (a1 - a0) / dt, sum(loads) / len(loads)


with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
    errors = []

    def open_page(width, height):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("#connection.ok", timeout=10000)
        page.wait_for_selector('circle[data-handle="eq.bands[0]"]', timeout=10000)
        return page

    one = open_page(1280, 900)
    two = open_page(1280, 900)
    # Controls from each kind's own schema entry: the pan's slider, the high-pass's frequency.
    out["panControl"] = one.locator('input[data-address="width.pan"]').count() > 0
    out["highpassControl"] = one.locator('input[data-address="rumble.frequency"]').count() > 0
    time.sleep(1.5)  # the peak meters settle on the sine

    # Meters: the page's master readout against the sine's level (-20 dBFS on the left).
    out["pageMasterPeak"] = float(one.text_content('[data-meter="master"] [data-peak="0"]').replace("−", "-"))
    out["pageMasterRMS"] = float(one.text_content('[data-meter="master"] [data-rms="0"]').replace("−", "-"))

    # Drag band 1's handle: right and up. The host's document follows; so does the other page.
    handle = one.locator('circle[data-handle="eq.bands[0]"]')
    box = handle.bounding_box()
    svg = one.locator("#eq").bounding_box()
    x0, y0 = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    x1, y1 = x0 + svg["width"] * 0.15, y0 - svg["height"] * 0.2
    one.mouse.move(x0, y0)
    one.mouse.down()
    for k in range(1, 11):
        one.mouse.move(x0 + (x1 - x0) * k / 10, y0 + (y1 - y0) * k / 10)
        time.sleep(0.03)
    one.mouse.up()
    # Where the drag ended, in the page's own coordinates (log frequency, ±24 dB).
    fx = (x1 - svg["x"]) / svg["width"]
    gy = (y1 - svg["y"]) / svg["height"]
    out["dragTarget"] = {"frequency": 20 * 1000 ** fx, "gain": (1 - gy) * 48 - 24}
    moved = wait_for(lambda: (lambda b: b if abs(b["frequency"] - out["dragTarget"]["frequency"]) / out["dragTarget"]["frequency"] < 0.02 and abs(b["gain"] - out["dragTarget"]["gain"]) < 0.3 else None)(band(status(), 0)))
    out["afterDrag"] = band(status(), 0)
    out["dragApplied"] = bool(moved)
    out["secondPageAfterDrag"] = wait_for(lambda: (lambda h: {"frequency": float(h.get_attribute("data-frequency")), "gain": float(h.get_attribute("data-gain"))}
                                                  if abs(float(h.get_attribute("data-gain")) - out["afterDrag"]["gain"]) < 1e-6 else None)(two.locator('circle[data-handle="eq.bands[0]"]')))

    # A `set` from outside (the control socket, as stdin or OSC) moves the handle on both pages.
    out["socketReply"] = ask("set eq.bands[1].gain 6")
    out["pagesAfterSet"] = [wait_for(lambda pg=pg: float(pg.locator('circle[data-handle="eq.bands[1]"]').get_attribute("data-gain")) == 6.0) for pg in (one, two)]

    # Keyboard: focus band 2's handle, arrow up twice: +1 dB.
    two.locator('circle[data-handle="eq.bands[1]"]').focus()
    two.keyboard.press("ArrowUp")
    time.sleep(0.1)
    two.keyboard.press("ArrowUp")
    out["afterKeys"] = wait_for(lambda: band(status(), 1)["gain"] == 7.0 and 7.0)

    # Wheel over a handle changes Q; a double-click resets its gain.
    h3 = one.locator('circle[data-handle="eq.bands[2]"]')
    b3 = h3.bounding_box()
    one.mouse.move(b3["x"] + b3["width"] / 2, b3["y"] + b3["height"] / 2)
    one.mouse.wheel(0, -100)
    out["qAfterWheel"] = wait_for(lambda: band(status(), 2).get("q", 1) != 1 and band(status(), 2)["q"])
    # Pinch: two fingers on the curve spread apart widen the band last touched (Q down).
    one.evaluate("""(() => {
        const s = document.getElementById('eq'), r = s.getBoundingClientRect();
        const y = r.y + r.height / 2, x = r.x + r.width / 2;
        const send = (type, id, dx) => s.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x + dx, clientY: y, bubbles: true, cancelable: true }));
        send('pointerdown', 11, -20); send('pointerdown', 12, 20);
        for (let k = 1; k <= 10; k++) { send('pointermove', 11, -20 - 4 * k); send('pointermove', 12, 20 + 4 * k); }
        send('pointerup', 11, -60); send('pointerup', 12, 60);
    })()""")
    out["qAfterPinch"] = wait_for(lambda: (lambda q: q if q < out["qAfterWheel"] - 0.2 else None)(band(status(), 2)["q"]))
    ask("set eq.bands[2].gain 5")
    wait_for(lambda: float(h3.get_attribute("data-gain")) == 5.0)
    h3.dblclick()
    wait_for(lambda: band(status(), 2)["gain"] == 0)
    out["gainAfterDoubleClick"] = band(status(), 2)["gain"]

    # Meter frames a second, counted on the page.
    out["meterFramesPerSecond"] = one.evaluate("""new Promise((done) => { let n = 0; const ws = page.socket;
        const count = (e) => { if (JSON.parse(e.data).type === 'meters') n++; };
        ws.addEventListener('message', count);
        setTimeout(() => { ws.removeEventListener('message', count); done(n / 3); }, 3000); })""")

    # Player transport: pause, play, seek from the page.
    one.click('button[aria-label="pause bed"]')
    out["pausedFromPage"] = wait_for(lambda: status()["players"]["bed"]["playing"] is False)
    one.click('button[aria-label="play bed"]')
    out["playingFromPage"] = wait_for(lambda: status()["players"]["bed"]["playing"] is True)
    one.locator('[data-player="bed"] .seek').fill("2.5")
    one.locator('[data-player="bed"] .seek').dispatch_event("change")
    out["afterSeek"] = wait_for(lambda: (lambda t: t if 2.4 <= t <= 3.5 else None)(status()["players"]["bed"]["currentTime"]))

    # A take from the page: its time and ring fill appear; Stop closes it.
    one.fill("#take-file", "page-take.wav")
    one.select_option("#take-source", "master")
    one.click("#take-start")
    out["takeShown"] = wait_for(lambda: (lambda t: t if t and " s, ring " in t and "recording" in t else None)(
        one.locator('[data-take="page-take.wav"]').text_content() if one.locator('[data-take="page-take.wav"]').count() else None))
    time.sleep(1)
    one.click("#take-stop")
    out["takeFile"] = wait_for(lambda: os.path.exists(os.path.join(os.path.dirname(control), "page-take.wav")) and
                               os.path.getsize(os.path.join(os.path.dirname(control), "page-take.wav")) > 48000 * 2 * 3)

    # Save and load round trip, from the page.
    one.fill("#preset-save-name", "roundtrip.json")
    one.click("#preset-save")
    out["saved"] = wait_for(lambda: os.path.exists(os.path.join(os.path.dirname(control), "roundtrip.json")))
    ask("set eq.bands[1].gain -3")
    wait_for(lambda: "roundtrip.json" in [o.get_attribute("value") for o in one.locator("#preset-list option").all()])
    one.select_option("#preset-list", "roundtrip.json")
    one.click("#preset-load")
    out["afterLoad"] = wait_for(lambda: band(status(), 1)["gain"] == 7.0 and 7.0)

    # A dropped connection reconnects and resynchronises.
    one.evaluate("page.socket.close()")
    ask("set eq.bands[2].gain -4")
    out["resynced"] = wait_for(lambda: float(one.locator('circle[data-handle="eq.bands[2]"]').get_attribute("data-gain")) == -4.0, 10)

    # Screenshots: desktop and a 390 px phone.
    one.evaluate("window.scrollTo(0, 0)")
    time.sleep(0.5)
    one.screenshot(path=os.path.join(shots, "web-desktop.png"), full_page=False)
    phone = open_page(390, 844)
    time.sleep(1)
    phone.screenshot(path=os.path.join(shots, "web-phone.png"), full_page=False)
    out["phoneOverflow"] = phone.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    # Every control has a name a screen reader can say.
    out["unlabelled"] = one.evaluate("""[...document.querySelectorAll('input, select, button, [role=slider]')]
        .filter(e => !(e.getAttribute('aria-label') || (e.labels && e.labels.length) || e.textContent.trim())).length""")

    # Cost: the host's CPU with four pages open against none, and the DSP load JACK reports.
    for page in (one, two, phone):
        page.context.close()
    time.sleep(3)
    out["cpuIdle"], out["audioIdle"], out["dspLoadIdle"] = measure(15)
    pages = [open_page(1280, 900) for _ in range(4)]
    time.sleep(2)
    out["cpuFourPages"], out["audioFourPages"], out["dspLoadFourPages"] = measure(15)
    out["consoleErrors"] = errors
    browser.close()

# The same four subscribers without the browsers (raw WebSocket clients reading every frame):
# the host's own cost, and the audio thread's, with nothing else loading the machine's cores.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wsclient import WebSocket
import threading
host, port = url.split("//")[1].split("/")[0].split(":")
stop_reading = threading.Event()
frames = [0, 0, 0, 0]


def read_frames(i):
    ws = WebSocket(host, int(port), origin=f"http://{host}:{port}")
    while not stop_reading.is_set():
        ws.receive()
        frames[i] += 1
    ws.close()


time.sleep(2)  # the browser's processes gone
readers = [threading.Thread(target=read_frames, args=(i,)) for i in range(4)]
for r in readers:
    r.start()
time.sleep(1)
out["cpuFourSockets"], out["audioFourSockets"], out["dspLoadFourSockets"] = measure(10)
stop_reading.set()
for r in readers:
    r.join()
out["socketFrames"] = frames

print(json.dumps(out))
