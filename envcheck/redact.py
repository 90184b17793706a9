"""``--redact``: one policy for everything envcheck prints or writes for sharing.

What goes (issue 16 item 2):

* the values of environment variables whose names say they hold a secret
  (``*_TOKEN``, ``*_KEY``, ``*_SECRET``, ``*_PASSWORD``, ``*_AUTH``, ``*_CRED*``,
  ``HF_TOKEN``, ``WANDB_API_KEY``, NCCL/XLA credentials ...) become ``<redacted>``,
  in a snapshot's ``env`` and in free text (``NAME=value``, ``NAME: value``);
  credentials inside URLs (``https://user:pass@host``) and well-known token
  shapes (``hf_...``, ``ghp_...``, ``sk-...``, ``AKIA...``) too;
* host names: this machine's, and any in an env value (``MASTER_ADDR``,
  ``*_HOST``, a fully qualified name, an IPv4 address) become ``<host>``;
* home directories (``$HOME``, ``/home/NAME``, ``/Users/NAME``,
  ``C:\\Users\\NAME``) become ``~``, and every user name learned from them, from
  ``USER``/``LOGNAME``/``USERNAME`` and from this machine becomes ``<user>``
  wherever it appears: in paths outside the home (``/data/alice/``) too.

Applied to snapshots from this machine and from others (a snapshot file, a
pasted ``collect_env``): the users and hosts of the data are learned from the
data itself. All patterns are linear (bounded quantifiers, no nesting).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

REDACTED = "<redacted>"
USER = "<user>"
HOST = "<host>"

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CRED|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
    r"|(?:^|_)KEY(?:_|$)|(?:^|_)AUTH|(?:^|_)PASS(?:_|$)|SESSION|COOKIE|(?:^|_)PAT(?:_|$)",
    re.IGNORECASE,
)
_HOST_NAME = re.compile(
    r"(?:^|_)(?:HOST|HOSTNAME|HOSTS|NODENAME|NODELIST|NODE_LIST|ADDR|ADDRESS|MASTER|SERVER"
    r"|ENDPOINT|COORDINATOR)(?:_|$)|^SLURM_(?:JOB_|STEP_)?NODE",
    re.IGNORECASE,
)
_USER_NAME = re.compile(r"^(?:USER|LOGNAME|USERNAME|SUDO_USER|SLURM_JOB_USER|PBS_O_LOGNAME)$")
# Too generic to replace outside a path: it would mangle other text.
_GENERIC = frozenset(
    [
        "root",
        "user",
        "users",
        "admin",
        "ubuntu",
        "debian",
        "centos",
        "fedora",
        "ec2-user",
        "jovyan",
        "nobody",
        "guest",
        "runner",
        "vagrant",
        "docker",
        "conda",
        "python",
        "cuda",
        "nvidia",
        "home",
        "data",
        "shared",
        "public",
        "default",
        "test",
        "tmp",
        "local",
        "opt",
        "usr",
        "bin",
        "lib",
        "torch",
        "jax",
        "keras",
        "tensorflow",
        "cupy",
        "paddle",
        "onnxruntime",
        "pip",
        "linux",
        "windows",
        "darwin",
        "gpu",
        "cpu",
    ]
)
_NOT_SECRET = frozenset({"TOKENIZERS_PARALLELISM", "PYTHONHASHSEED"})

_URL_CRED = re.compile(
    r"(\b[A-Za-z][A-Za-z0-9+.-]{0,31}://)[^/\s:@'\"]{1,256}(?::[^/\s@'\"]{0,256})?@"
)
_TOKENS = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{20,256}|gh[pousr]_[A-Za-z0-9]{20,256}|github_pat_[A-Za-z0-9_]{20,256}"
    r"|sk-[A-Za-z0-9_-]{16,256}|xox[abpr]-[A-Za-z0-9-]{10,256}|AKIA[0-9A-Z]{16}"
    r"|glpat-[A-Za-z0-9_-]{20,256})"
)
_ASSIGN = re.compile(r"(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]{0,127})[ \t]{0,8}[=:][ \t]{0,8}")
_VALUE = re.compile(
    r"(?:Bearer|Basic|Token)[ \t]{1,8}[^\s\"',;]{1,4096}"
    r"|\"[^\"\n]{0,4096}\"|'[^'\n]{0,4096}'|[^\s\"',;]{1,4096}"
)
_HOME = re.compile(
    r"(?:(?<![A-Za-z0-9_.~-])/(?:home|Users|export/home)|\b[A-Za-z]:[\\/](?:Users|Documents and Settings))"
    r"[\\/]([A-Za-z0-9_][A-Za-z0-9_.@-]{0,63})(?=[\\/\s:;,'\"\])}]|$)"
)
_FQDN = re.compile(
    r"(?<![A-Za-z0-9.-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})\.){1,16}"
    r"(?:com|net|org|edu|gov|mil|io|ai|dev|cloud|local|localdomain|internal|lan|corp|cluster"
    r"|[a-z]{2})(?![A-Za-z0-9-])"
)
_IPV4 = re.compile(r"(?<![0-9.])(?:\d{1,3}\.){3}\d{1,3}(?![0-9.])")
_IP_PORT = re.compile(r"(?<![0-9.])(?:\d{1,3}\.){3}\d{1,3}(:\d{1,5})(?![0-9.])")
_IP_IN_URL = re.compile(r"(//|@)(?:\d{1,3}\.){3}\d{1,3}(?![0-9.])")
_FILE_SUFFIXES = frozenset(
    ["so", "py", "sh", "txt", "md", "in", "cfg", "json", "toml", "yml", "yaml", "gz", "zip", "whl"]
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret."""
    return _SECRET_NAME.search(name) is not None and name.upper() not in _NOT_SECRET


def is_host_name(name: str) -> bool:
    return _HOST_NAME.search(name) is not None or name.upper() in _HOST_PORT_VARS


# Variables whose whole value is a host (or host:port): every part of it goes.
_WHOLE_HOST_VARS = frozenset({"HOSTNAME", "HOST", "MASTER_ADDR", "SLURMD_NODENAME"})
# NCCL's rendezvous address is ``host:port`` (NCCL docs, "Environment Variables").
_HOST_PORT_VARS = frozenset({"NCCL_COMM_ID"})
# A file name NCCL writes; users put the host name in it (``%h`` is NCCL's own).
_HOST_FILE_VARS = frozenset({"NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE"})
_HOST_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{1,252}")
_HOST_PORT = re.compile(r"^\[?([^\s\]]{1,253}?)\]?(:\d{1,5})?$")


def _host_value(name: str, value: str) -> Optional[str]:
    """The value of a variable that names a host, with the host gone; None for others."""
    upper = name.upper()
    if not value:
        return None
    if upper in _WHOLE_HOST_VARS:
        return HOST
    if upper in _HOST_PORT_VARS:
        m = _HOST_PORT.match(value.strip())
        return HOST + (m.group(2) or "") if m else HOST
    if upper in _HOST_FILE_VARS:
        head, sep, _tail = value.replace("\\", "/").rpartition("/")
        return f"{head}{sep}{REDACTED}" if sep else REDACTED
    return None


def _hosts_of(name: str, value: str) -> list[str]:
    """Host names a variable's value reveals (learned, so they go everywhere)."""
    upper = name.upper()
    found: list[str] = []
    if upper in _WHOLE_HOST_VARS or upper in _HOST_PORT_VARS or is_host_name(name):
        for token in _HOST_TOKEN.findall(value):
            if not token.replace(".", "").isdigit():
                found.append(token)
    for m in _FQDN.finditer(value):
        if _host_match(m) == HOST:
            found.append(m.group(0))
    # The short name of every fully qualified one: ``gpu7`` of ``gpu7.cluster.example.org``.
    found += [h.split(".", 1)[0] for h in found if "." in h]
    return [h for h in found if len(h) >= 3 and h.lower() not in _GENERIC]


@dataclass(frozen=True)
class Policy:
    """What to replace: the home directories, user names and host names known."""

    homes: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    def learn(self, strings: Iterable[str], env: Optional[Mapping[str, str]] = None) -> Policy:
        """This policy plus the users and hosts that ``strings``/``env`` reveal."""
        users = list(self.users)
        hosts = list(self.hosts)
        for text in strings:
            users += [m.group(1) for m in _HOME.finditer(text)]
        for name, value in (env or {}).items():
            if _USER_NAME.match(name) and value:
                users.append(value.strip())
            elif name.upper() in ("HOSTNAME", "HOST", "SLURMD_NODENAME") and value:
                hosts.append(value.strip())
            hosts += _hosts_of(name, str(value))
        return Policy(self.homes, _clean(users), _clean(hosts))

    # ---------------------------------------------------------------- text

    def text(self, text: str) -> str:
        """Redact free text: a log, a pasted report, a rendered output."""
        if not text:
            return text
        text = _URL_CRED.sub(lambda m: m.group(1) + REDACTED + "@", text)
        text = _TOKENS.sub(REDACTED, text)
        text = _redact_assignments(text)
        # An address with a port or a scheme is an address, not a version (cuDNN
        # 8.9.7.29 has four parts too).
        text = _IP_IN_URL.sub(lambda m: m.group(1) + HOST, text)
        text = _IP_PORT.sub(HOST + r"\1", text)
        # A substring test before each pattern is built: a snapshot holds tens of
        # thousands of strings (package names) that name no home, host or user.
        for home in self.homes:
            if home.rstrip("/\\") in text:
                text = _replace_path_prefix(text, home, "~")
        text = _HOME.sub("~", text)
        folded = text.lower()
        for host in self.hosts:
            if host.lower() not in _GENERIC and len(host) >= 3 and host.lower() in folded:
                text = _replace_word(text, host, HOST, flags=re.IGNORECASE)
        for user in self.users:
            if user in text:
                text = _replace_user(text, user)
        return text

    def env_value(self, name: str, value: str) -> str:
        if is_secret_name(name):
            return REDACTED if value else value
        if _USER_NAME.match(name) and value:
            return USER
        whole = _host_value(name, value)
        if whole is not None:
            return whole
        value = _IPV4.sub(HOST, _FQDN.sub(_host_match, value))
        return self.text(value)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        return {name: self.env_value(name, value) for name, value in env.items()}

    def json(self, value: Any) -> Any:
        """Redact every string of a JSON value; a mapping named ``env`` is an environment."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if key == "env" and isinstance(item, dict):
                    out[key] = {
                        k: self.env_value(k, v) if isinstance(v, str) else self.json(v)
                        for k, v in item.items()
                    }
                else:
                    out[key] = self.json(item)
            return out
        return value


def _clean(names: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for name in names:
        name = name.strip().strip("\\/")
        if (
            name
            and not name.isdigit()
            and name not in out
            and name not in ("~", USER, HOST, REDACTED)
        ):
            out.append(name)
    # longest first: "alice2" before "alice"
    return tuple(sorted(out, key=len, reverse=True))


def _redact_assignments(text: str) -> str:
    """``NAME=value`` / ``NAME: value`` with a secret NAME: the value goes; with a
    NAME that holds a host (``MASTER_ADDR``, ``NCCL_COMM_ID``), its hosts go."""
    out: list[str] = []
    pos = 0
    while True:
        m = _ASSIGN.search(text, pos)
        if m is None:
            break
        name = m.group(1)
        secret = is_secret_name(name)
        value = _VALUE.match(text, m.end()) if secret or is_host_name(name) else None
        if value is None:
            out.append(text[pos : m.end()])
            pos = m.end()
        else:
            out.append(text[pos : m.end()])
            if secret:
                out.append(REDACTED)
            else:
                # MASTER_ADDR=10.11.12.13 in a pasted log: the value's hosts go.
                raw = value.group(0)
                whole = _host_value(name, raw.strip("\"'"))
                out.append(
                    whole if whole is not None else _IPV4.sub(HOST, _FQDN.sub(_host_match, raw))
                )
            pos = value.end()
    out.append(text[pos:])
    return "".join(out)


def _host_match(m: re.Match[str]) -> str:
    found = m.group(0)
    last = found.rsplit(".", 1)[-1].lower()
    if last in _FILE_SUFFIXES or (found[0].isdigit() and found.replace(".", "").isdigit()):
        return found
    return HOST


def _replace_path_prefix(text: str, home: str, new: str) -> str:
    home = home.rstrip("/\\")
    if not home or home in ("/", "~") or len(home) < 2:
        return text
    pattern = re.compile(re.escape(home) + r"(?=[\\/\s:;,'\"\])}]|$)")
    return pattern.sub(new, text)


def _replace_word(text: str, word: str, new: str, flags: int = 0) -> str:
    if len(word) < 2:
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9_-])" + re.escape(word) + r"(?![A-Za-z0-9_-])", flags)
    return pattern.sub(new, text)


def _replace_user(text: str, user: str) -> str:
    """A user name as a path component anywhere; as a word too unless generic/short."""
    if user.lower() in _GENERIC or len(user) < 3:
        if len(user) < 2:
            return text
        pattern = re.compile(r"(?<=[\\/])" + re.escape(user) + r"(?=[\\/]|$|[\s:;,'\"])")
        return pattern.sub(USER, text)
    return _replace_word(text, user, USER)


def local_policy(
    home: Optional[str] = None, user: Optional[str] = None, host: Optional[str] = None
) -> Policy:
    """The policy for this machine: its home, user and host name (None: look them up)."""
    import os

    if home is None:
        home = os.path.expanduser("~")  # noqa: PTH111 - a string is wanted
    if user is None:
        try:
            import getpass

            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name is fine
            user = None
    hosts: list[str] = []
    if host is None:
        try:
            import socket

            host = socket.gethostname()
        except OSError:
            host = None
    if host and host not in ("localhost", "localhost.localdomain"):
        hosts += [host, host.split(".")[0]]
    homes: tuple[str, ...] = (home,) if home and home not in ("/", "~") else ()
    if homes:
        # A symlinked home (/home/alice -> /mnt/disk2/alice): paths show either.
        real = os.path.realpath(home)
        if real != home and real not in ("/", "~"):
            homes += (real,)
    users = (user,) if user else ()
    return Policy(homes, _clean(users), _clean(hosts))


def redact_snapshot_json(data: Any, policy: Optional[Policy] = None) -> Any:
    """A snapshot's JSON with the policy applied (users/hosts learned from it)."""
    policy = local_policy() if policy is None else policy
    env = data.get("env") if isinstance(data, dict) else None
    policy = policy.learn(_strings(data), env if isinstance(env, dict) else None)
    return policy.json(data)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
