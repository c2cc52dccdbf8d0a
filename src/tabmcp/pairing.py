"""Bridge pairing: the token the extension must present, where it lives, and whose origin counts.

Any local process, and any web page the user visits, can open a WebSocket to 127.0.0.1. The
bridge therefore links only an extension that (a) connects from an allowed
``chrome-extension://<id>`` origin and (b) says ``hello`` with this token. The token is made once
(``secrets.token_urlsafe``) and kept in the user's config dir with owner-only rights, so another
user on the machine cannot read it; ``tabmcp token`` prints it for the extension's options page,
and a browser tabmcp launches gets it written into its copy of the extension.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

TOKEN_FILE = "pairing-token"
TOKEN_BYTES = 32  # → 43 URL-safe characters
MIN_TOKEN_CHARS = 16  # a stored token shorter than this is treated as damaged and replaced

# The id Chromium gives tabmcp's extension: derived from the public ``key`` in
# extension/manifest.json (see ``extension_id_from_key``; a unit test keeps the two in step), so it
# is the same for every unpacked copy, wherever its folder is.
EXTENSION_ID = "mlanppckmjeenfaegefdmalbgnjdgloi"


def resolve_config_dir(configured: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """``configured`` (``Settings.config_dir``), else ``$XDG_CONFIG_HOME/tabmcp``, else ``~/.config/tabmcp``."""
    if configured is not None:
        return configured.expanduser()
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG spec says to ignore a relative value
        return Path(xdg) / "tabmcp"
    return Path.home() / ".config" / "tabmcp"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def load_or_create(config_dir: Path) -> str:
    """The token stored in ``config_dir``, created (dir 0700, file 0600) on first use.

    Two servers starting at once agree on one token: the file is written under a temporary name
    and linked into place, which fails if another process got there first, and then that
    process's token is read.
    """
    path = config_dir / TOKEN_FILE
    token = _read(path)
    if token is not None:
        return token
    _make_private_dir(config_dir)
    token = new_token()
    _write_new(path, token)
    stored = _read(path)
    if stored is None:  # another process wrote something unusable between the two steps
        raise OSError(f"cannot store the pairing token in {path}")
    if stored == token:
        log.info("created a pairing token in %s (show it with `tabmcp token`)", path)
    return stored


def rotate(config_dir: Path) -> str:
    """Replace the stored token with a new one (a token that leaked); linked extensions must re-pair."""
    _make_private_dir(config_dir)
    path = config_dir / TOKEN_FILE
    token = new_token()
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    _write_private(tmp, token)
    os.replace(tmp, path)
    return token


def resolve_token(configured: str | None, config_dir: Path | None = None) -> str:
    """The token the bridge expects: ``Settings.pairing_token`` if set, else the stored one."""
    if configured and configured.strip():
        return configured.strip()
    return load_or_create(resolve_config_dir(config_dir))


def tokens_match(given: str | None, expected: str) -> bool:
    """Constant-time comparison, so the time a refusal takes says nothing about the token."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def extension_id_from_key(key_b64: str) -> str:
    """Chromium's extension id for a manifest ``key``: sha256 of the DER key, 32 hex digits mapped 0-9a-f to a-p."""
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def extension_origin(extension_id: str) -> str:
    return f"chrome-extension://{extension_id}"


def allowed_origins(extra_ids: Iterable[str] = ()) -> frozenset[str]:
    """tabmcp's own extension, plus the ids a user configured (``Settings.extension_ids``)."""
    return frozenset(extension_origin(i.strip()) for i in (EXTENSION_ID, *extra_ids) if i.strip())


# ----------------------------------------------------------------- file helpers


def _read(path: Path) -> str | None:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if len(token) < MIN_TOKEN_CHARS:
        log.warning("the pairing token in %s is empty or too short; making a new one", path)
        path.unlink(missing_ok=True)
        return None
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); setting it to 0600", path, mode)
        path.chmod(0o600)
    return token


def _make_private_dir(config_dir: Path) -> None:
    if not config_dir.exists():
        config_dir.mkdir(parents=True, mode=0o700)
        config_dir.chmod(0o700)  # mkdir's mode is filtered by the umask


def _write_private(path: Path, token: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token + "\n")
    path.chmod(0o600)  # O_CREAT's mode is filtered by the umask too


def _write_new(path: Path, token: str) -> None:
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    _write_private(tmp, token)
    try:
        os.link(tmp, path)  # atomic, and never replaces a token another process just stored
    except FileExistsError:
        pass
    except OSError:  # a filesystem without hard links: second best, still never a partial file
        if not path.exists():
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
