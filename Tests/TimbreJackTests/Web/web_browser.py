"""Drives Timbre's control page in a real browser (Debian's chromium through Playwright).

Usage: web_browser.py URL CONTROL_SOCKET SCREENSHOT_DIR HOST_PID. The host runs a preset with
a 1 kHz sine at -20 dBFS panned hard left and an `eq` node with id `eq`. Prints one JSON
object of what was seen; WebSurfaceTests decides pass or fail from it."""
import json, os, socket, sys, time
from playwright.sync_api import sync_playwright

url, control, shots, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
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


def cpu_seconds(pid):
    """CPU seconds of the host's control side: its main thread (the control loop) and the
    web server's event-loop thread (named NIO-ELT-…); not JACK's process thread."""
    total = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        if int(tid) == pid or name.startswith("NIO-ELT"):
            fields = stat.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


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
    time.sleep(1)
    c0, t0 = cpu_seconds(pid), time.time()
    time.sleep(5)
    idle = (cpu_seconds(pid) - c0) / (time.time() - t0)
    load0 = status()["dspLoadPercent"]
    pages = [open_page(1280, 900) for _ in range(4)]
    time.sleep(1)
    c1, t1 = cpu_seconds(pid), time.time()
    time.sleep(5)
    busy = (cpu_seconds(pid) - c1) / (time.time() - t1)
    out["cpuIdle"], out["cpuFourPages"] = idle, busy
    out["dspLoadIdle"], out["dspLoadFourPages"] = load0, status()["dspLoadPercent"]
    out["consoleErrors"] = errors
    browser.close()

print(json.dumps(out))
