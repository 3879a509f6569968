"""Checks who may use a running `timbre live --http` (the page's access rules, from outside).

Usage: web_security.py LOOPBACK_PORT OPEN_PORT TOKEN. LOOPBACK_PORT is a host bound to
127.0.0.1 without a token; OPEN_PORT one bound to 0.0.0.0, whose TOKEN it printed. Prints one
JSON object: the status of every request tried, and the replies to commands a page may not send."""
import http.client, json, sys
from wsclient import WebSocket

loop, open_port, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out = {}


def get(port, path, method="GET", host=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    h = dict(headers or {})
    if host:
        h["Host"] = host
    c.request(method, path, body=b"x" * 10 if method == "POST" else None, headers=h)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict(r.getheaders()), body


s, h, body = get(loop, "/")
out["page"] = s
out["pageHasTitle"] = b"<title>Timbre</title>" in body
out["csp"] = h.get("Content-Security-Policy", "")
out["script"] = get(loop, "/app.js")[0]
out["missing"] = get(loop, "/../../etc/passwd")[0]
out["post"] = get(loop, "/", method="POST")[0]
out["foreignHost"] = get(loop, "/", host=f"evil.example:{loop}")[0]
out["localhostName"] = get(loop, "/", host=f"localhost:{loop}")[0]
out["wsSameOrigin"] = WebSocket("127.0.0.1", loop, origin=f"http://127.0.0.1:{loop}").status
out["wsNoOrigin"] = WebSocket("127.0.0.1", loop).status
out["wsCrossOrigin"] = WebSocket("127.0.0.1", loop, origin="http://evil.example").status

# Beyond loopback: nothing without the token.
out["openNoToken"] = get(open_port, "/")[0]
out["openScriptNoToken"] = get(open_port, "/app.js")[0]
out["openWrongToken"] = get(open_port, "/?token=" + "0" * len(token))[0]
s, h, _ = get(open_port, "/?token=" + token)
out["openToken"] = s
out["cookie"] = h.get("Set-Cookie", "")
out["openCookie"] = get(open_port, "/app.js", headers={"Cookie": "timbre-token=" + token})[0]
out["openBearer"] = get(open_port, "/app.css", headers={"Authorization": "Bearer " + token})[0]
out["openWsNoToken"] = WebSocket("127.0.0.1", open_port).status
ws = WebSocket("127.0.0.1", open_port, path="/ws?token=" + token)
out["openWsToken"] = ws.status
ws.close()

# What a page may not make the host do: each gets an error reply, and nothing changes.
ws = WebSocket("127.0.0.1", loop, origin=f"http://127.0.0.1:{loop}")
hello = json.loads(ws.receive())
out["hello"] = {"type": hello.get("type"), "protocol": hello.get("protocol"), "schemaDefs": len(hello.get("schema", {}).get("$defs", {}))}
refused = {}
for k, cmd in enumerate(["quit", "load ../outside.json", "load /etc/passwd", "save ../escaped.json",
                         "record start /tmp/timbre-escape.wav master", "record start ../escape.wav master",
                         "insert 0 {\"type\": \"plugin\", \"id\": \"x\", \"ladspa\": \"/tmp/probe.so:probe\"}"]):
    ws.send(json.dumps({"v": 1, "id": k, "command": cmd}))
    while True:
        m = json.loads(ws.receive())
        if m.get("type") == "reply" and m.get("id") == k:
            refused[cmd] = m.get("error") if not m.get("ok") else "ACCEPTED"
            break
out["refused"] = refused
ws.close()
print(json.dumps(out))
