"""A student at a browser, in Python: sign up, log in, start a server, pull content, run
notebook cells on a kernel, all through the hub's public address (its proxy) and the same HTTP
requests and kernel websocket JupyterLab uses. tests/test_course_hub.py and
benchmarks/hub_load.py are its users.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field

import requests
import websocket   # websocket-client


class HubError(RuntimeError):
    """Something a student would have seen go wrong (an error page, a server that never came)."""


@dataclass
class CellRun:
    source: str
    status: str                       # "ok" or "error"
    output: str                       # what the cell printed and displayed, as text
    error: str = ""                   # "ename: evalue" when status is "error"
    seconds: float = 0.0
    finished: float = 0.0             # time.perf_counter() when the kernel went idle


@dataclass
class HubUser:
    hub_url: str                      # e.g. http://127.0.0.1:8000
    name: str
    password: str
    session: requests.Session = field(default_factory=requests.Session)
    token: str = ""
    reconnects: int = 0               # kernel websocket connections that dropped and came back

    # --- the hub's pages, as a browser sends them --------------------------------------------
    def _xsrf(self, page: str) -> str:
        """Open a hub page; its `_xsrf` cookie is what the page's form sends back."""
        self.session.get(f"{self.hub_url}/hub/{page}", timeout=60).raise_for_status()
        return self.session.cookies.get("_xsrf", "")

    def sign_up(self) -> str:
        """NativeAuthenticator's sign-up form; the kind of message the page answers with:
        'success' (a roster name: log in now), 'info' (sent to the admin), 'danger' (refused)."""
        form = {"_xsrf": self._xsrf("signup"), "username": self.name,
                "signup_password": self.password,
                "signup_password_confirmation": self.password}
        page = self.session.post(f"{self.hub_url}/hub/signup", data=form, timeout=60)
        page.raise_for_status()
        kinds = [k for k in ("success", "info", "danger") if f"alert-{k}" in page.text]
        return kinds[0] if kinds else "none"

    def log_in(self) -> requests.Response:
        """The login form. A right password answers with a redirect and a login cookie."""
        form = {"_xsrf": self._xsrf("login"), "username": self.name, "password": self.password}
        return self.session.post(f"{self.hub_url}/hub/login", data=form, timeout=120,
                                 allow_redirects=False)

    def logged_in(self) -> bool:
        return any(c.name.startswith("jupyterhub-hub-login") for c in self.session.cookies)

    def new_token(self) -> str:
        """An API token, made on the hub's token page with the login cookie (as the page does)."""
        answer = self.session.post(f"{self.hub_url}/hub/api/users/{self.name}/tokens",
                                   json={"note": "hub_client", "expires_in": 86400},
                                   headers={"X-XSRFToken": self.session.cookies.get("_xsrf", "")},
                                   timeout=60)
        if answer.status_code != 201:
            raise HubError(f"{self.name}: no token: {answer.status_code} {answer.text[:200]}")
        self.token = answer.json()["token"]
        return self.token

    # --- the hub's REST API, with the token ---------------------------------------------------
    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        """`path` under the hub's /hub/api/ or, starting with /user/, the student's server."""
        url = self.hub_url + (path if path.startswith("/user/") else f"/hub/api/{path}")
        headers = {"Authorization": f"token {self.token}"}
        return requests.request(method, url, headers=headers, timeout=kwargs.pop("timeout", 120),
                                **kwargs)

    def start_server(self, timeout: float = 600) -> float:
        """Ask for the student's server and wait until the hub says it is ready; seconds."""
        start = time.perf_counter()
        answer = self.api("POST", f"users/{self.name}/server")
        if answer.status_code not in (201, 202, 400):   # 400: it is already running
            raise HubError(f"{self.name}: spawn refused: {answer.status_code} {answer.text}")
        while time.perf_counter() - start < timeout:
            server = self.api("GET", f"users/{self.name}").json()["servers"].get("", {})
            if server.get("ready"):
                return time.perf_counter() - start
            if not server and time.perf_counter() - start > 5:   # the spawn failed
                raise HubError(f"{self.name}: the server stopped while starting (hub log)")
            time.sleep(0.5)
        raise HubError(f"{self.name}: server not ready after {timeout:.0f} s")

    def server(self, method: str, path: str, **kwargs) -> requests.Response:
        """The student's own Jupyter server (through the proxy): e.g. 'api/contents/x.ipynb'."""
        return self.api(method, f"/user/{self.name}/{path}", **kwargs)

    def git_pull(self, repo: str, branch: str, target: str) -> list[dict]:
        """nbgitpuller's pull, as its page runs it: the event stream until it finishes."""
        answer = self.server("GET", "git-pull/api", stream=True, timeout=300,
                             params={"repo": repo, "branch": branch, "targetpath": target})
        events = []
        for line in answer.iter_lines(decode_unicode=True):
            if line and line.startswith("data:"):
                events.append(json.loads(line[5:]))
                if events[-1].get("phase") in ("finished", "error"):
                    break
        answer.close()
        if not events or events[-1].get("phase") != "finished":
            raise HubError(f"{self.name}: git pull failed: {events[-1:] or answer.status_code}")
        return events

    # --- a kernel, through the kernel websocket -----------------------------------------------
    def start_kernel(self, name: str = "edujax") -> str:
        answer = self.server("POST", "api/kernels", json={"name": name})
        if answer.status_code != 201:
            raise HubError(f"{self.name}: no kernel: {answer.status_code} {answer.text[:200]}")
        return answer.json()["id"]

    def run_cells(self, sources: list[str], kernel: str = "edujax", cell_timeout: float = 300,
                  may_raise: frozenset[int] = frozenset()) -> list[CellRun]:
        """Run each source on a new kernel, in order, as JupyterLab's "run all" does; stop at
        an error, except in the cells numbered in `may_raise` (a tutorial's cells tagged
        raises-exception, which show an error on purpose)."""
        kernel_id = self.start_kernel(kernel)
        channel = KernelChannel(self, kernel_id, cell_timeout)
        try:
            runs = []
            for i, source in enumerate(sources):
                runs.append(channel.execute(source))
                if runs[-1].status != "ok" and i not in may_raise:
                    break
            self.reconnects += channel.reconnects
            return runs
        finally:
            channel.close()
            self.server("DELETE", f"api/kernels/{kernel_id}")


class KernelChannel:
    """A kernel's websocket, as JupyterLab keeps it: when the connection drops (a busy server
    can miss a ping), connect again with the same session id; the Jupyter server kept the
    messages sent meanwhile and replays them, so no output is lost. At most 3 times a cell."""

    def __init__(self, user: HubUser, kernel_id: str, timeout: float):
        self.session, self.timeout, self.reconnects = uuid.uuid4().hex, timeout, 0
        self.url = user.hub_url.replace("http", "ws", 1) + \
            f"/user/{user.name}/api/kernels/{kernel_id}/channels?session_id={self.session}"
        self.header = [f"Authorization: token {user.token}"]
        self.username = user.name
        self.socket = self.connect()

    def connect(self) -> websocket.WebSocket:
        return websocket.create_connection(self.url, header=self.header, timeout=self.timeout)

    def close(self) -> None:
        self.socket.close()

    def receive(self, drops: list[int]) -> dict:
        while True:
            try:
                return json.loads(self.socket.recv())
            except websocket.WebSocketConnectionClosedException:
                drops.append(1)
                if len(drops) > 3:
                    raise
                self.reconnects += 1
                time.sleep(1)
                self.socket = self.connect()

    def execute(self, source: str) -> CellRun:
        """One execute_request; its outputs until the kernel is idle again."""
        msg_id = uuid.uuid4().hex
        self.socket.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request",
                       "username": self.username, "session": self.session, "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": source, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))
        start = time.perf_counter()
        run, replied, idle, drops = CellRun(source, "ok", ""), False, False, []
        while not (replied and idle):
            message = self.receive(drops)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            replied, idle = take(run, message, replied, idle)
        run.finished = time.perf_counter()
        run.seconds = run.finished - start
        return run


def take(run: CellRun, message: dict, replied: bool, idle: bool) -> tuple[bool, bool]:
    """Add one of the cell's messages to `run`; whether the reply has come, and the idle."""
    kind, content = message["header"]["msg_type"], message["content"]
    if kind == "stream":
        run.output += content["text"]
    elif kind in ("execute_result", "display_data"):
        run.output += content["data"].get("text/plain", "") + "\n"
    elif kind == "error":
        run.status, run.error = "error", f"{content['ename']}: {content['evalue']}"
    elif kind == "execute_reply":
        replied = True
        if content["status"] != "ok":
            run.status = "error"
            run.error = run.error or f"{content.get('ename')}: {content.get('evalue')}"
    elif kind == "status" and content["execution_state"] == "idle":
        idle = True
    return replied, idle
