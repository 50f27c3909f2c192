"""Test hosts: network namespaces, each with its own D-Bus and Avahi, made and removed by
scripts/netns-hosts.sh, the one writer of that setup."""

import os
import subprocess

from .common import REPO, BenchError, log


def in_bench_netns():
    """Whether this process runs in the bench's own network namespace (a host with nothing but lo)."""
    return bool(os.environ.get("SHARE_BENCH_NETNS"))


class Host:
    """One test host that scripts/netns-hosts.sh made: a network namespace with its own D-Bus
    system bus and an avahi-daemon (see that script). share finds that Avahi through
    DBUS_SYSTEM_BUS_ADDRESS; the bus is a filesystem socket, reachable from every namespace."""

    def __init__(self, name, bus, addr=None):
        self.name, self.bus, self.addr = name, bus, addr

    def prefix(self):
        """argv prefix that runs a command in this host's network namespace, as `netns-hosts.sh
        exec` does but with no shell in between (so no script start lands in a timing)."""
        return ["nsenter", f"--net=/run/netns/{self.name}", "--"]

    def env(self):
        return dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus)


class NetnsHosts:
    """The bench's set of test hosts, made and removed by scripts/netns-hosts.sh (the one writer
    of namespaces, buses and Avahis), under its own prefix so it never collides with the test
    suite's share-a and share-b: PREFIX-lo (the bench's own namespace: lo and Avahi on lo) and
    PREFIX-a, PREFIX-b, ... on one link."""

    SCRIPT = os.path.join(REPO, "scripts", "netns-hosts.sh")

    def __init__(self, prefix):
        self.prefix = prefix
        self.env = dict(os.environ, SHARE_NETNS_PREFIX=prefix)

    def run(self, *argv, timeout=180):
        r = subprocess.run([self.SCRIPT, *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env, timeout=timeout)
        if r.returncode:
            raise BenchError(f"netns-hosts.sh {' '.join(argv)}: {r.stdout.strip()[-600:]}")
        return r.stdout

    def host(self, name):
        return Host(name, self.run("bus", name).strip(), self.run("addr", name).strip())

    def up_lo(self):
        self.run("up-lo")
        return self.host(f"{self.prefix}-lo")

    def up(self, count):
        """`count` hosts on one link (2: a veth pair; more: a bridge), recreated; PREFIX-lo stays."""
        self.run("up", str(count))
        return [self.host(f"{self.prefix}-{chr(ord('a') + i)}") for i in range(count)]

    def down(self):
        try:
            self.run("down", timeout=120)
        except (BenchError, subprocess.SubprocessError) as e:
            log(f"could not remove the test hosts: {e}")

