#!/usr/bin/env python3
"""Headless Chromium driven over its DevTools pipe, with the standard library only (no websocket
module, no Selenium on a bare CI machine): `--remote-debugging-pipe` makes Chromium read
NUL-terminated JSON commands on fd 3 and answer on fd 4 (the Chrome DevTools Protocol).

The report runs no script and its Content-Security-Policy forbids one; expressions sent with
Runtime.evaluate run in DevTools' own context, which the page's policy does not govern, so the
page is measured exactly as a reader's browser lays it out.

  with Browser(chromium, profile_dir) as b:
      b.open("file:///tmp/report.html", width=1400, height=900)
      sizes = b.evaluate("...")          # JSON-serialisable result
      b.screenshot("first.png")          # the viewport
      b.screenshot("page.png", full=True)
"""
import base64
import json
import os
import subprocess
import time


class DevToolsError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium, profile_dir, timeout=120):
        self.chromium, self.profile_dir, self.timeout = chromium, profile_dir, timeout
        self.proc = None
        self.session = None
        self.next_id = 0
        self.buffer = b""
        self.console = []  # console messages and exceptions the page produced

    def __enter__(self):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()

        def wire_fds():  # in the child: its fd 3 reads our commands, fd 4 carries its answers
            # Copied above 4 first, so that neither end is overwritten by the other's dup2.
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        # Offline (every host name resolves to nothing), its own profile directory, no sandbox so
        # that it runs as root and in containers, and no /dev/shm use (small in containers).
        self.proc = subprocess.Popen(
            [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--disable-extensions", "--no-first-run", "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile_dir}", "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire_fds,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.out = os.fdopen(to_chrome_w, "wb", buffering=0)
        self.inp = os.fdopen(from_chrome_r, "rb", buffering=0)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        return self

    def __exit__(self, *exc):
        try:
            self.session = None
            self.call("Browser.close")
        except (DevToolsError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise DevToolsError("Chromium did not answer in time")
            chunk = self.inp.read(1 << 16)
            if not chunk:
                raise DevToolsError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def _note_event(self, m):
        method, params = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            self.console.append(params.get("exceptionDetails", {}).get("text", "exception"))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.console.append(f"{entry.get('level')}: {entry.get('text')}")

    def call(self, method, params=None):
        """Sends one command to the page's session (the browser's before one exists); returns its result."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        self.out.write(json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise DevToolsError(f"{method}: {m['error']}")
                return m.get("result", {})
            self._note_event(m)

    def open(self, url, width=1400, height=900):
        """Loads `url` in a viewport of width × height CSS pixels and waits until it has loaded."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise DevToolsError(f"{url} did not finish loading")
            time.sleep(0.1)

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise DevToolsError(f"evaluate: {r['exceptionDetails'].get('text')}: {expression[:80]}")
        return r["result"].get("value")

    def screenshot(self, path, full=False, clip=None):
        """The viewport as a PNG, or with full=True the whole page, or with clip=(x, y, width,
        height, scale) that rectangle of the page (CSS pixels) drawn at scale."""
        params = {"format": "png"}
        if clip:
            x, y, w, h, scale = clip
            params.update(captureBeyondViewport=True, clip={"x": x, "y": y, "width": w, "height": h, "scale": scale})
        elif full:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        r = self.call("Page.captureScreenshot", params)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
