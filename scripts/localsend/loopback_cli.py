"""Runs localsend-cli with its network confined to loopback, for tests.

localsend-cli has no option for the port of `receive`, for the interface of its multicast
announcements, or for where its HTTPS server listens; it always uses 53317, the default route's
interface and every address. This wrapper changes only those (environment, not protocol):

- LOCALSEND_PORT: the port it listens on and announces (default 53317);
- every IPv4 UDP socket sends multicast through 127.0.0.1 only;
- its HTTPS server binds 127.0.0.1.

The protocol code (requests, JSON, TLS) is the package's own, unchanged. HOME decides where it
keeps its certificate (~/.config/localsend-cli).

Usage: python loopback_cli.py ARGS...   (the arguments of localsend-cli)
"""
import os
import socket
import sys
import http.server

PORT = int(os.environ.get("LOCALSEND_PORT", "53317"))


class LoopbackSocket(socket.socket):
    """A socket whose IPv4 multicast leaves through loopback."""

    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        super().__init__(family, type, proto, fileno)
        if fileno is None and self.family == socket.AF_INET and self.type == socket.SOCK_DGRAM:
            self.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))


socket.socket = LoopbackSocket

_bind = http.server.HTTPServer.server_bind


def _loopback_bind(self):
    self.server_address = ("127.0.0.1", self.server_address[1])
    _bind(self)


http.server.HTTPServer.server_bind = _loopback_bind

from localsend_cli import constants, network  # noqa: E402
from localsend_cli.commands import receive, scan, send  # noqa: E402
from localsend_cli import main as cli  # noqa: E402

for module in (constants, network, receive, scan, send, cli):
    if hasattr(module, "PORT"):
        module.PORT = PORT
network.get_local_ip = receive.get_local_ip = lambda: "127.0.0.1"

sys.argv = ["localsend-cli"] + sys.argv[1:]
cli.main()
